import { describe, expect, it } from "vitest";
import { addDays, dayStart, monthStart, zonedDay } from "../../../src/server/services/zoned-time.js";

const iso = (date: Date) => date.toISOString();

describe("zonedDay and addDays", () => {
  it("reads the calendar date of an instant in a zone", () => {
    expect(zonedDay(new Date("2026-05-02T04:59:59Z"), "America/Chicago")).toBe("2026-05-01");
    expect(zonedDay(new Date("2026-05-02T05:00:00Z"), "America/Chicago")).toBe("2026-05-02");
    expect(zonedDay(new Date("2026-05-01T14:59:59Z"), "Asia/Tokyo")).toBe("2026-05-01");
    expect(zonedDay(new Date("2026-05-01T15:00:00Z"), "Asia/Tokyo")).toBe("2026-05-02");
  });

  it("counts calendar days across months, years and leap days", () => {
    expect(addDays("2026-03-01", -1)).toBe("2026-02-28");
    expect(addDays("2024-02-28", 1)).toBe("2024-02-29");
    expect(addDays("2025-12-31", 1)).toBe("2026-01-01");
  });
});

describe("dayStart", () => {
  it("is local midnight, in zones east and west of Greenwich and with half-hour offsets", () => {
    expect(iso(dayStart("2026-05-01", "UTC"))).toBe("2026-05-01T00:00:00.000Z");
    expect(iso(dayStart("2026-05-01", "America/Chicago"))).toBe("2026-05-01T05:00:00.000Z");
    expect(iso(dayStart("2026-05-01", "Asia/Tokyo"))).toBe("2026-04-30T15:00:00.000Z");
    expect(iso(dayStart("2026-05-01", "Asia/Kolkata"))).toBe("2026-04-30T18:30:00.000Z");
    expect(iso(dayStart("2026-05-01", "Pacific/Kiritimati"))).toBe("2026-04-30T10:00:00.000Z");
  });

  it("gives the days around a DST change their 23 and 25 hours", () => {
    const hours = (day: string, zone: string) =>
      (dayStart(addDays(day, 1), zone).getTime() - dayStart(day, zone).getTime()) / 3_600_000;
    expect(iso(dayStart("2026-03-08", "America/Chicago"))).toBe("2026-03-08T06:00:00.000Z");
    expect(iso(dayStart("2026-03-09", "America/Chicago"))).toBe("2026-03-09T05:00:00.000Z");
    expect(hours("2026-03-08", "America/Chicago")).toBe(23);
    expect(hours("2026-11-01", "America/Chicago")).toBe(25);
    expect(hours("2026-03-29", "Europe/Berlin")).toBe(23);
  });

  it("is the moment of the jump where the clocks skip midnight, and the second midnight where they repeat it", () => {
    // Santiago springs forward at 00:00 → 01:00 and falls back at 24:00 → 23:00.
    expect(iso(dayStart("2026-09-06", "America/Santiago"))).toBe("2026-09-06T04:00:00.000Z");
    expect(iso(dayStart("2026-04-05", "America/Santiago"))).toBe("2026-04-05T04:00:00.000Z");
    expect(iso(dayStart("2026-04-04", "America/Santiago"))).toBe("2026-04-04T03:00:00.000Z");
    expect(iso(dayStart("2026-03-08", "America/Havana"))).toBe("2026-03-08T05:00:00.000Z");
    expect(iso(dayStart("2026-03-29", "Asia/Beirut"))).toBe("2026-03-28T22:00:00.000Z");
    for (const [day, zone] of [
      ["2026-09-06", "America/Santiago"],
      ["2026-04-05", "America/Santiago"],
      ["2026-03-29", "Asia/Beirut"],
    ] as const) {
      const start = dayStart(day, zone);
      expect(zonedDay(start, zone)).toBe(day);
      expect(zonedDay(new Date(start.getTime() - 1000), zone)).toBe(addDays(day, -1));
    }
  });
});

describe("monthStart", () => {
  it("is midnight of the first day in the chatbot's time zone", () => {
    expect(iso(monthStart(new Date("2026-03-15T12:00:00Z"), "UTC"))).toBe("2026-03-01T00:00:00.000Z");
    expect(iso(monthStart(new Date("2026-03-15T12:00:00Z"), "America/New_York"))).toBe("2026-03-01T05:00:00.000Z");
    expect(iso(monthStart(new Date("2026-07-04T12:00:00Z"), "America/New_York"))).toBe("2026-07-01T04:00:00.000Z");
    expect(iso(monthStart(new Date("2026-07-04T12:00:00Z"), "Asia/Kolkata"))).toBe("2026-06-30T18:30:00.000Z");
  });

  it("uses the zone's month, not UTC's, near the boundary", () => {
    // 02:00 UTC on 1 April is still 31 March in New York.
    expect(iso(monthStart(new Date("2026-04-01T02:00:00Z"), "America/New_York"))).toBe("2026-03-01T05:00:00.000Z");
    // 20:00 UTC on 31 March is already 1 April in Tokyo.
    expect(iso(monthStart(new Date("2026-03-31T20:00:00Z"), "Asia/Tokyo"))).toBe("2026-03-31T15:00:00.000Z");
  });
});
