import { describe, expect, it } from "vitest";
import { isTimeZone, knownZone, wallClock, zoneOffset } from "../../src/common/zoned-time.js";

const HOUR_MS = 3_600_000;
const MINUTE_MS = 60_000;

describe("wallClock", () => {
  it("reads the calendar and the clock of an instant, east and west of Greenwich and with odd offsets", () => {
    const at = Date.parse("2026-05-01T12:34:56Z");
    expect(wallClock(at, "UTC")).toEqual({ year: 2026, month: 5, day: 1, hour: 12, minute: 34, second: 56 });
    expect(wallClock(at, "America/Chicago")).toMatchObject({ day: 1, hour: 7, minute: 34 });
    expect(wallClock(at, "Asia/Kolkata")).toMatchObject({ day: 1, hour: 18, minute: 4 });
    expect(wallClock(at, "Asia/Kathmandu")).toMatchObject({ day: 1, hour: 18, minute: 19 });
    expect(wallClock(at, "Pacific/Kiritimati")).toMatchObject({ day: 2, hour: 2, minute: 34 });
  });

  it("writes midnight as hour 0 and crosses days, months and years with the zone", () => {
    expect(wallClock(Date.parse("2026-05-01T15:00:00Z"), "Asia/Tokyo")).toEqual({
      year: 2026,
      month: 5,
      day: 2,
      hour: 0,
      minute: 0,
      second: 0,
    });
    expect(wallClock(Date.parse("2026-01-01T05:59:59Z"), "America/Chicago")).toMatchObject({
      year: 2025,
      month: 12,
      day: 31,
      hour: 23,
    });
  });

  it("jumps an hour forward and back at the daylight-saving changes", () => {
    // Chicago: 02:00 CST becomes 03:00 CDT on 8 March 2026, 02:00 CDT becomes 01:00 CST on 1 November.
    const chicago = (iso: string) => wallClock(Date.parse(iso), "America/Chicago");
    expect(chicago("2026-03-08T07:59:59Z")).toMatchObject({ day: 8, hour: 1, minute: 59, second: 59 });
    expect(chicago("2026-03-08T08:00:00Z")).toMatchObject({ day: 8, hour: 3, minute: 0, second: 0 });
    expect(chicago("2026-11-01T06:59:59Z")).toMatchObject({ day: 1, hour: 1, minute: 59, second: 59 });
    expect(chicago("2026-11-01T07:00:00Z")).toMatchObject({ day: 1, hour: 1, minute: 0, second: 0 });
    // Lord Howe Island moves by half an hour: 02:00 becomes 02:30 on 4 October 2026.
    expect(wallClock(Date.parse("2026-10-03T15:30:00Z"), "Australia/Lord_Howe")).toMatchObject({
      day: 4,
      hour: 2,
      minute: 30,
    });
  });

  it("throws a RangeError for a zone Intl does not know", () => {
    expect(() => wallClock(0, "Mars/Olympus")).toThrow(RangeError);
    expect(() => zoneOffset(0, "")).toThrow(RangeError);
  });
});

describe("zoneOffset", () => {
  it("is positive east of Greenwich, negative west, in whole minutes where the zone has them", () => {
    const at = Date.parse("2026-01-15T12:00:00Z");
    expect(zoneOffset(at, "UTC")).toBe(0);
    expect(zoneOffset(at, "Europe/Madrid")).toBe(HOUR_MS);
    expect(zoneOffset(at, "America/New_York")).toBe(-5 * HOUR_MS);
    expect(zoneOffset(at, "Asia/Kolkata")).toBe(5.5 * HOUR_MS);
    expect(zoneOffset(at, "Asia/Kathmandu")).toBe(5 * HOUR_MS + 45 * MINUTE_MS);
  });

  it("changes at the instant of a daylight-saving change, not before", () => {
    const chicago = (iso: string) => zoneOffset(Date.parse(iso), "America/Chicago") / HOUR_MS;
    expect(chicago("2026-03-08T07:59:59Z")).toBe(-6);
    expect(chicago("2026-03-08T08:00:00Z")).toBe(-5);
    expect(chicago("2026-11-01T06:59:59Z")).toBe(-5);
    expect(chicago("2026-11-01T07:00:00Z")).toBe(-6);
    const berlin = (iso: string) => zoneOffset(Date.parse(iso), "Europe/Berlin") / HOUR_MS;
    expect(berlin("2026-03-29T00:59:59Z")).toBe(1);
    expect(berlin("2026-03-29T01:00:00Z")).toBe(2);
    const lordHowe = (iso: string) => zoneOffset(Date.parse(iso), "Australia/Lord_Howe") / MINUTE_MS;
    expect(lordHowe("2026-10-03T15:29:59Z")).toBe(10 * 60 + 30);
    expect(lordHowe("2026-10-03T15:30:00Z")).toBe(11 * 60);
  });

  it("ignores the milliseconds of the instant and keeps the seconds of an old local mean time", () => {
    expect(zoneOffset(Date.parse("2026-05-01T15:00:00.999Z"), "Asia/Tokyo")).toBe(9 * HOUR_MS);
    // New York kept its local mean time, 4:56:02 behind Greenwich, until 1883.
    expect(zoneOffset(Date.parse("1880-01-01T00:00:00Z"), "America/New_York")).toBe(-(4 * 3600 + 56 * 60 + 2) * 1000);
  });
});

describe("isTimeZone and knownZone", () => {
  it("know the IANA names and UTC, in any case", () => {
    for (const name of ["UTC", "utc", "Europe/Madrid", "America/Argentina/Buenos_Aires", "Etc/GMT+5"]) {
      expect(isTimeZone(name), name).toBe(true);
      expect(knownZone(name), name).toBe(name);
    }
  });

  it("refuse empty, misspelt and made-up names, and offsets written as such; knownZone falls back to UTC", () => {
    for (const name of ["", " UTC", "Mars/Olympus", "Europe/Madird", "+01:00", "America/New York"]) {
      expect(isTimeZone(name), name).toBe(false);
      expect(knownZone(name), name).toBe("UTC");
    }
    expect(knownZone(undefined)).toBe("UTC");
  });
});
