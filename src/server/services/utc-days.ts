import { ApiError } from "../http/api-error.js";
import { addDays, type Day, dayStart } from "./zoned-time.js";

/**
 * The instants covered by whole UTC days, the first and the last included; either end may be open. Dates of
 * the history and lead filters are read this way. A first day after the last is a 400 naming both fields.
 */
export function utcDays(
  first: { name: string; day: Day | undefined },
  last: { name: string; day: Day | undefined },
): { from?: Date | undefined; to?: Date | undefined } {
  const from = first.day === undefined ? undefined : dayStart(first.day, "UTC");
  const to = last.day === undefined ? undefined : dayStart(addDays(last.day, 1), "UTC");
  if (from && to && from >= to) throw new ApiError(400, `${first.name} must not be after ${last.name}`);
  return { from, to };
}
