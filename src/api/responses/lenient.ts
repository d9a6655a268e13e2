import { z } from "zod";

/**
 * Building blocks of the response schemas. They are lenient where the hosted platform is loose (an ASP.NET
 * service): member names in any case, ids as numbers or numeric strings, extra members. A check's message is
 * what the value should have been ("an integer"), for the client's "expected Data.SessionID to be an integer".
 */

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A JSON object, whatever its members: what the client passes on without reading them. */
export const anObject = <T>() => z.custom<T>(isRecord, { error: "an object" });

/**
 * The object with `names` copied from members that differ only in case (an exact match wins, then the first
 * match in any case), other members kept: the hosted platform is not consistent about member case.
 */
function withCanonicalNames(value: unknown, names: readonly string[]): unknown {
  if (!isRecord(value)) return value;
  const copy: Record<string, unknown> = { ...value };
  for (const name of names) {
    if (name in value) continue;
    const lower = name.toLowerCase();
    const key = Object.keys(value).find((candidate) => candidate.toLowerCase() === lower);
    if (key !== undefined) copy[name] = value[key];
  }
  return copy;
}

/** An object read by member names in any case; members not in `shape` are left out of the result. */
export function anyCase<Shape extends z.ZodRawShape>(shape: Shape) {
  return z.preprocess(
    (value) => withCanonicalNames(value, Object.keys(shape)),
    z.object(shape, { error: "an object" }),
  );
}

/** An integer sent as a number or a numeric string (the hosted platform sends ids both ways). */
export const integerLike = z.unknown().transform((value, ctx) => {
  const number = typeof value === "string" && value.trim() !== "" ? Number(value) : value;
  if (typeof number === "number" && Number.isSafeInteger(number)) return number;
  ctx.addIssue({ code: "custom", message: "an integer", input: value });
  return z.NEVER;
});

/** An array whose items are checked by `item`. */
export const arrayOf = <Item extends z.ZodType>(item: Item) => z.array(item, { error: "an array" });

/** Any value: the Data of operations whose answer the caller does not read (`1`, `true` or null). */
export const ignored = z.unknown();
