import { z } from "zod";
import { isTimeZone } from "../../common/zoned-time.js";

/** Field validators shared by the operation schemas; each says in its message what a valid value is. */

/** A chatbot serial number as issued by Add (and, on the hosted platform, 32 hex characters). */
export const serialNumber = z.string().trim().min(1).max(64);

export const text = (max: number) => z.string().max(max);

/** `rgb(r,g,b)` with each component 0–255, spaces allowed. */
export const rgbColor = z.string().refine((value) => {
  const match = /^rgb\(\s*(\d{1,3})\s*,\s*(\d{1,3})\s*,\s*(\d{1,3})\s*\)$/i.exec(value);
  return !!match && match.slice(1).every((part) => Number(part) <= 255);
}, "must be a colour like rgb(37,99,235) with values from 0 to 255");

/** An http(s) URL, or "" to clear the setting. */
export const urlOrEmpty = z
  .string()
  .max(2048)
  .refine((value) => value === "" || /^https?:\/\/[^\s/$.?#][^\s]*$/i.test(value), "must be an http(s) URL");

/** An e-mail address, or "" to clear the setting. */
export const emailOrEmpty = z
  .string()
  .max(254)
  .refine((value) => value === "" || z.email().safeParse(value).success, "must be an e-mail address");

/** A calendar date as YYYY-MM-DD that exists (not 2025-02-30). */
export const calendarDay = z.string().refine((value) => {
  const time = Date.parse(`${value}T00:00:00Z`);
  return /^\d{4}-\d{2}-\d{2}$/.test(value) && !Number.isNaN(time) && new Date(time).toISOString().startsWith(value);
}, "must be a date as YYYY-MM-DD");

/** A phone number: 7 to 15 digits, an optional leading "+", spaces, dashes, dots and parentheses; or "". */
export const phoneOrEmpty = z
  .string()
  .trim()
  .max(40)
  .refine((value) => {
    const digits = value.replace(/\D/g, "").length;
    return value === "" || (/^\+?[\d ().-]+$/.test(value) && digits >= 7 && digits <= 15);
  }, "must be a phone number with 7 to 15 digits, such as +1 512 555 0100");

/**
 * The rule of a date filter: the first day must not come after the last (both whole days, the last included).
 * For `.superRefine(daysInOrder("StartTime", "EndTime"), onceValid(…))`.
 */
export function daysInOrder<First extends string, Last extends string>(first: First, last: Last) {
  return (value: Partial<Record<First | Last, string | undefined>>, ctx: z.RefinementCtx) => {
    const [from, to] = [value[first], value[last]];
    if (from !== undefined && to !== undefined && from > to) {
      ctx.addIssue({ code: "custom", path: [first], message: `must not be after ${last}`, input: from });
    }
  };
}

/** An IANA time zone such as America/New_York. */
export const timeZone = z.string().refine(isTimeZone, "must be an IANA time zone such as America/New_York");

/** A non-negative number (areas, prices, counts that may be fractional). */
export const amount = z.number().min(0).max(1e12);

/** A whole number within bounds. */
export const wholeNumber = (min: number, max: number) => z.number().int().min(min).max(max);
