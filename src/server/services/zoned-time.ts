import { wallClock, zoneOffset } from "../../common/zoned-time.js";

/**
 * Calendar days and months in a chatbot's TimeZone, as instants and as YYYY-MM-DD: what the daily digests and the
 * monthly MessageLimit count by. The wall clock and the offsets come from src/common/zoned-time.ts, measured at the
 * instant in question, so days of 23 or 25 hours (DST) and zones whose clocks jump at midnight come out right.
 */

const DAY_MS = 86_400_000;

/** A calendar date as YYYY-MM-DD. */
export type Day = string;

const pad = (value: number) => String(value).padStart(2, "0");

/** The calendar date of an instant in a time zone. */
export function zonedDay(instant: Date, timeZone: string): Day {
  const { year, month, day } = wallClock(instant.getTime(), timeZone);
  return `${year}-${pad(month)}-${pad(day)}`;
}

/** The date `days` days after `day` (before, when negative): calendar arithmetic, no zone involved. */
export function addDays(day: Day, days: number): Day {
  return new Date(Date.parse(`${day}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);
}

/**
 * The first instant of a calendar day in a time zone: its midnight, or — where the clocks jump forward at
 * midnight and 00:00 never happens — the moment of the jump.
 */
export function dayStart(day: Day, timeZone: string): Date {
  const midnight = Date.parse(`${day}T00:00:00Z`);
  // The start is midnight read with the offset in force just before or just after it (a transition near
  // midnight makes them differ); of the readings that fall on the day itself, the earliest is its start.
  const readings = [midnight - DAY_MS, midnight + DAY_MS]
    .map((probe) => midnight - zoneOffset(probe, timeZone))
    .filter((instant) => zonedDay(new Date(instant), timeZone) === day);
  return new Date(Math.min(...readings));
}

/** The instant a calendar month starts in a time zone (MessageLimit counts per month in the chatbot's zone). */
export function monthStart(now: Date, timeZone: string): Date {
  return dayStart(`${zonedDay(now, timeZone).slice(0, 8)}01`, timeZone);
}
