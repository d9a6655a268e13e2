import { addDays, type Day, dayStart } from "./zoned-time.js";

/**
 * The instants covered by whole UTC days, the first and the last included; either end may be open. Dates of
 * the history and lead filters are read this way; their schemas have checked that the first is not after the
 * last (see `daysInOrder`).
 */
export function utcDays(
  first: Day | undefined,
  last: Day | undefined,
): { from?: Date | undefined; to?: Date | undefined } {
  return {
    from: first === undefined ? undefined : dayStart(first, "UTC"),
    to: last === undefined ? undefined : dayStart(addDays(last, 1), "UTC"),
  };
}
