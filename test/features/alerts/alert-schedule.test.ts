import { describe, expect, it } from "vitest";
import { ALERT_GAP_MS, alertsDueAt, isQuiet } from "../../../src/features/alerts/alert-schedule.js";

const at = (iso: string) => Date.parse(iso);
const night = { from: 21, to: 8 };

describe("alert schedule", () => {
  it("reads quiet hours over midnight, and within a day, in the time zone", () => {
    expect(isQuiet(at("2026-11-28T22:00:00Z"), night, "UTC")).toBe(true);
    expect(isQuiet(at("2026-11-28T07:59:00Z"), night, "UTC")).toBe(true);
    expect(isQuiet(at("2026-11-28T08:00:00Z"), night, "UTC")).toBe(false);
    expect(isQuiet(at("2026-11-28T13:00:00Z"), { from: 12, to: 14 }, "UTC")).toBe(true);
    // 03:00 UTC is 21:00 the day before in Chicago (UTC-6 in November).
    expect(isQuiet(at("2026-11-29T03:00:00Z"), night, "America/Chicago")).toBe(true);
    expect(isQuiet(at("2026-11-28T22:00:00Z"), undefined, "UTC")).toBe(false);
    // An unknown zone is read as UTC.
    expect(isQuiet(at("2026-11-28T22:00:00Z"), night, "Not/AZone")).toBe(true);
  });

  it("is due now, an hour after the last alert, or at the end of the quiet hours", () => {
    const noon = at("2026-11-28T12:00:00Z");
    expect(alertsDueAt(noon, undefined, night, "UTC")).toBe(noon);
    expect(alertsDueAt(noon, noon - 20 * 60_000, night, "UTC")).toBe(noon + 40 * 60_000);
    expect(alertsDueAt(noon, noon - ALERT_GAP_MS, night, "UTC")).toBe(noon);
    expect(alertsDueAt(at("2026-11-28T22:10:00Z"), undefined, night, "UTC")).toBe(at("2026-11-29T08:00:00Z"));
    expect(alertsDueAt(at("2026-11-28T20:30:00Z"), at("2026-11-28T20:00:00Z"), night, "UTC")).toBe(
      at("2026-11-29T08:00:00Z"),
    );
    // 08:00 in Kolkata (UTC+5:30) is 02:30 UTC.
    expect(alertsDueAt(at("2026-11-28T17:00:00Z"), undefined, night, "Asia/Kolkata")).toBe(at("2026-11-29T02:30:00Z"));
  });
});
