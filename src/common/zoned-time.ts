/**
 * Instants read in an IANA time zone, with nothing but Intl: the bridge (viewing times, alert hours, the times in
 * its mails) and the server (a chatbot's days and months) both read a chatbot's TimeZone with these. Offsets are
 * measured with Intl at the instant in question rather than assumed, so daylight-saving changes come out right.
 */

/** The wall clock of an instant in a time zone: the calendar fields (month 1 to 12) and the time (hour 0 to 23). */
export interface WallClock {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

/** True when Intl knows `name` as a time zone (IANA names such as America/New_York, and UTC). */
export function isTimeZone(name: string): boolean {
  try {
    // The constructor is what checks the name: it throws a RangeError for one it does not know (and for "").
    new Intl.DateTimeFormat("en-US", { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/** The zone's name when Intl knows it, else UTC: a chatbot's TimeZone setting may be empty or misspelt. */
export function knownZone(name: string | undefined): string {
  return name && isTimeZone(name) ? name : "UTC";
}

/**
 * The wall clock of instant `at` (epoch milliseconds) in `timeZone`.
 * @throws RangeError when Intl does not know the zone
 */
export function wallClock(at: number, timeZone: string): WallClock {
  const parts = new Intl.DateTimeFormat("en-US", {
    timeZone,
    // h23, not hour12: false, which writes midnight as 24 in some engines.
    hourCycle: "h23",
    year: "numeric",
    month: "numeric",
    day: "numeric",
    hour: "numeric",
    minute: "numeric",
    second: "numeric",
  }).formatToParts(at);
  const part = (type: Intl.DateTimeFormatPartTypes) => Number(parts.find((p) => p.type === type)?.value);
  return {
    year: part("year"),
    month: part("month"),
    day: part("day"),
    hour: part("hour"),
    minute: part("minute"),
    second: part("second"),
  };
}

/**
 * The zone's offset from UTC at instant `at`, in milliseconds (positive east of Greenwich): its wall clock read as
 * if it were UTC, less the instant (to the whole second, as far as the wall clock goes).
 * @throws RangeError when Intl does not know the zone
 */
export function zoneOffset(at: number, timeZone: string): number {
  const clock = wallClock(at, timeZone);
  const asUtc = Date.UTC(clock.year, clock.month - 1, clock.day, clock.hour, clock.minute, clock.second);
  return asUtc - Math.floor(at / 1000) * 1000;
}
