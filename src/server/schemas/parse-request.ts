import type { z } from "zod";
import { invalidRequest } from "../http/api-error.js";
import { fieldName, issueSentence } from "./issue-sentences.js";

/**
 * Field names are matched case-insensitively, as the hosted platform (ASP.NET) does: the spec itself writes
 * `serialNumber` on chatbot operations and `SerialNumber` on listings. The same name given twice in
 * different cases is a problem rather than a guess. Fields the operation does not take are left out here (as
 * the schema would strip them), so that a key such as `__proto__` never reaches the parsed object.
 */
function canonicalize(body: Record<string, unknown>, names: readonly string[]) {
  const byLower = new Map(names.map((name) => [name.toLowerCase(), name]));
  const record: Record<string, unknown> = {};
  const problems: string[] = [];
  const seen = new Map<string, string>();
  for (const [key, value] of Object.entries(body)) {
    const canonical = byLower.get(key.toLowerCase());
    if (canonical === undefined) continue;
    const earlier = seen.get(canonical);
    if (earlier !== undefined) {
      problems.push(`${canonical} is given twice (as ${earlier} and ${key})`);
      continue;
    }
    seen.set(canonical, key);
    record[canonical] = value;
  }
  return { record, problems };
}

/** How deep {@link nulStrings} looks: deeper than any field's shape, so only into values that are wrong anyway. */
const NUL_SCAN_DEPTH = 6;

/**
 * The paths of strings that hold U+0000. No field has a use for it, and PostgreSQL cannot store it in text (nor
 * compare text with it), so it is refused up front on both stores alike.
 */
function nulStrings(value: unknown, path: PropertyKey[] = [], found: PropertyKey[][] = []): PropertyKey[][] {
  if (typeof value === "string") {
    if (value.includes("\u0000")) found.push(path);
  } else if (typeof value === "object" && value !== null && path.length < NUL_SCAN_DEPTH) {
    const entries = Array.isArray(value) ? value.map((item, index) => [index, item] as const) : Object.entries(value);
    for (const [key, item] of entries) nulStrings(item, [...path, key], found);
  }
  return found;
}

/**
 * One sentence per field, in the order zod reports them (the schema's field order, then rules between fields),
 * then strings with U+0000 that zod found nothing wrong with.
 */
function sentences(issues: readonly z.core.$ZodIssue[], schema: z.ZodType, record: Record<string, unknown>): string[] {
  const byField = new Map<string, string>();
  for (const issue of issues) {
    const field = fieldName(issue.path);
    if (!byField.has(field)) byField.set(field, issueSentence(issue, schema));
  }
  for (const path of nulStrings(record)) {
    const field = fieldName(path);
    if (!byField.has(field)) byField.set(field, `${field} must not contain the NUL character (\\u0000)`);
  }
  return [...byField.values()];
}

/**
 * Validates a request body against an object schema and returns the typed value, or throws one 400
 * {@link invalidRequest} listing every problem found: each bad or missing field, each broken rule between
 * fields whose fields are valid themselves (see {@link onceValid}), and each string with U+0000.
 */
export function parseRequest<S extends z.ZodObject>(schema: S, body: unknown): z.output<S> {
  const given =
    typeof body === "object" && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
  const { record, problems } = canonicalize(given, Object.keys(schema.shape));
  const result = schema.safeParse(record, { reportInput: true });
  const found = [...problems, ...sentences(result.success ? [] : result.error.issues, schema, record)];
  if (result.success && found.length === 0) return result.data;
  throw invalidRequest(found);
}
