import { describe, expect, it } from "vitest";
import { monthStart } from "../../../src/server/services/zoned-time.js";

describe("monthStart", () => {
  it("is midnight of the first day in the chatbot's time zone", () => {
    expect(monthStart(new Date("2026-03-15T12:00:00Z"), "UTC").toISOString()).toBe("2026-03-01T00:00:00.000Z");
    expect(monthStart(new Date("2026-03-15T12:00:00Z"), "America/New_York").toISOString()).toBe(
      "2026-03-01T05:00:00.000Z",
    );
    expect(monthStart(new Date("2026-07-04T12:00:00Z"), "America/New_York").toISOString()).toBe(
      "2026-07-01T04:00:00.000Z",
    );
    expect(monthStart(new Date("2026-07-04T12:00:00Z"), "Asia/Kolkata").toISOString()).toBe("2026-06-30T18:30:00.000Z");
  });

  it("uses the zone's month, not UTC's, near the boundary", () => {
    // 02:00 UTC on 1 April is still 31 March in New York.
    expect(monthStart(new Date("2026-04-01T02:00:00Z"), "America/New_York").toISOString()).toBe(
      "2026-03-01T05:00:00.000Z",
    );
    // 20:00 UTC on 31 March is already 1 April in Tokyo.
    expect(monthStart(new Date("2026-03-31T20:00:00Z"), "Asia/Tokyo").toISOString()).toBe("2026-03-31T15:00:00.000Z");
  });
});
