import { knownZone, wallClock } from "../../common/zoned-time.js";

/** At most one alert message per conversation in this long: alerts that come sooner wait and go together. */
export const ALERT_GAP_MS = 60 * 60 * 1000;

/** Quiet hours are found in steps of a quarter of an hour: every time zone's offset is a whole number of those. */
const STEP_MS = 15 * 60 * 1000;

/** Hours of the day without alerts: from `from`:00 up to `to`:00, over midnight when `from` is later. */
export interface QuietHours {
  from: number;
  to: number;
}

/** True when `at` falls in the quiet hours, read in `timeZone`. */
export function isQuiet(at: number, quiet: QuietHours | undefined, timeZone: string): boolean {
  if (!quiet) return false;
  // An unknown zone is read as UTC, like the chatbot's other times.
  const hour = wallClock(at, knownZone(timeZone)).hour;
  return quiet.from < quiet.to ? hour >= quiet.from && hour < quiet.to : hour >= quiet.from || hour < quiet.to;
}

/**
 * When waiting alerts may go: not before an hour after the last alert message, and then at the end of the quiet
 * hours if that moment falls in them (the first quarter of an hour outside them).
 */
export function alertsDueAt(
  now: number,
  lastSentAt: number | undefined,
  quiet: QuietHours | undefined,
  timeZone: string,
): number {
  let due = Math.max(now, (lastSentAt ?? Number.NEGATIVE_INFINITY) + ALERT_GAP_MS);
  if (!isQuiet(due, quiet, timeZone)) return due;
  due = Math.ceil(due / STEP_MS) * STEP_MS;
  // A day at most: quiet hours never cover all of it (`from` and `to` differ).
  for (let steps = 0; steps < 96 && isQuiet(due, quiet, timeZone); steps++) due += STEP_MS;
  return due;
}
