import type { z } from "zod";
import { ApiError } from "../http/api-error.js";

/**
 * Field names are matched case-insensitively, as the hosted platform (ASP.NET) does: the spec itself writes
 * `serialNumber` on chatbot operations and `SerialNumber` on listings. The same name given twice in
 * different cases is refused rather than guessed.
 */
function canonicalize(body: Record<string, unknown>, names: readonly string[]): Record<string, unknown> {
  const byLower = new Map(names.map((name) => [name.toLowerCase(), name]));
  const out: Record<string, unknown> = {};
  const seen = new Map<string, string>();
  for (const [key, value] of Object.entries(body)) {
    const canonical = byLower.get(key.toLowerCase()) ?? key;
    const earlier = seen.get(canonical);
    if (earlier !== undefined) throw new ApiError(400, `${canonical} is given twice (as ${earlier} and ${key})`);
    seen.set(canonical, key);
    out[canonical] = value;
  }
  return out;
}

function describeType(expected: string): string {
  if (expected === "int") return "a whole number";
  if (expected === "number") return "a number";
  if (expected === "string") return "a string";
  if (expected === "boolean") return "true or false";
  if (expected === "array") return "an array";
  if (expected === "object") return "an object";
  return expected;
}

/** One issue as `Field must …`, the way the API's `Message` reports it. */
function describeIssue(issue: z.core.$ZodIssue): string {
  const field =
    issue.path
      .map((part, index) => (typeof part === "number" ? `[${part}]` : index === 0 ? String(part) : `.${String(part)}`))
      .join("") || "The body";
  if (issue.input === undefined && (issue.code === "invalid_type" || issue.code === "invalid_value")) {
    return `${field} is required`;
  }
  switch (issue.code) {
    case "invalid_type":
      if (issue.input === null) return `${field} must not be null`;
      return `${field} must be ${describeType(issue.expected)}`;
    case "invalid_value":
      return `${field} must be one of ${issue.values.map(String).join(", ")}`;
    case "too_small":
      if (issue.origin === "string") {
        return Number(issue.minimum) <= 1
          ? `${field} must not be empty`
          : `${field} must have at least ${issue.minimum} characters`;
      }
      if (issue.origin === "array") return `${field} must have at least ${issue.minimum} item(s)`;
      return `${field} must be at least ${issue.minimum}`;
    case "too_big":
      if (issue.origin === "string") return `${field} must have at most ${issue.maximum} characters`;
      if (issue.origin === "array") return `${field} must have at most ${issue.maximum} items`;
      return `${field} must be at most ${issue.maximum}`;
    case "invalid_format":
      return `${field} ${issue.message.startsWith("must") ? issue.message : `must be a valid ${issue.format}`}`;
    case "invalid_union": {
      // A value of one of the accepted types that is still wrong says why; otherwise name the accepted types.
      if (issue.input === undefined) return `${field} is required`;
      if (issue.input === null) return `${field} must not be null`;
      const inner = issue.errors.flat();
      const specific = inner.find((item) => item.code !== "invalid_type");
      if (specific) return describeIssue({ ...specific, path: [...issue.path, ...specific.path] });
      const types = [
        ...new Set(inner.map((item) => (item.code === "invalid_type" ? describeType(item.expected) : ""))),
      ];
      if (types.length > 0 && !types.includes("")) return `${field} must be ${types.join(" or ")}`;
      return `${field} is invalid`;
    }
    default:
      return `${field} ${issue.message}`;
  }
}

/**
 * Validates a request body against an object schema and returns the typed value, or throws a 400
 * {@link ApiError} naming the first bad field and the problem (`SaleType must be one of for_sale, for_rent`).
 */
export function parseRequest<S extends z.ZodObject>(schema: S, body: unknown): z.output<S> {
  const record =
    typeof body === "object" && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
  const result = schema.safeParse(canonicalize(record, Object.keys(schema.shape)), { reportInput: true });
  if (result.success) return result.data;
  const [first] = result.error.issues;
  throw new ApiError(400, first ? describeIssue(first) : "The body is invalid");
}

/** A refinement message in the API's words, for `.refine(…, must("be …"))`. */
export const must = (text: string) => ({ error: `must ${text}` });
