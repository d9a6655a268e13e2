import { z } from "zod";

/**
 * zod's issues as sentences for people, one per problem, each naming the field by its API name:
 * `Bedrooms must be a whole number from 0 to 1,000`, `Keys must list at least one key`, `Name must not be
 * empty`, `SaleType must be for_sale or for_rent`, `Images[2] must be an http(s) URL`.
 *
 * The sentence is built from the issue's code and from the schema at the issue's path (so a number's whole
 * valid range is named, not only the bound it broke). A schema may give its own wording for a check: a message
 * that starts in lower case is the rest of the sentence after the field name (`must be a colour like …`,
 * `is required when chatAskType is Image`) and is used as it is; zod's own messages start with a capital
 * letter ("Invalid input: …", "Too small: …") and are never shown.
 */

/** `Images[2]`, `ExtensionColumn[0].Key`; "The body" for the body itself. */
export function fieldName(path: readonly PropertyKey[]): string {
  const name = path
    .map((part, index) => (typeof part === "number" ? `[${part}]` : index === 0 ? String(part) : `.${String(part)}`))
    .join("");
  return name || "The body";
}

/** Bounds beyond these are no real limit (a whole number's safe range) or a sanity cap not worth naming. */
const UNBOUNDED = Number.MAX_SAFE_INTEGER;
const NAMED_MAXIMUM = 1e9;

const count = (value: number | bigint) => Number(value).toLocaleString("en-US");

/** "A", "A or B", "A, B or C". */
function alternatives(values: readonly unknown[]): string {
  const words = values.map(String);
  return words.length <= 1 ? words.join("") : `${words.slice(0, -1).join(", ")} or ${words.at(-1)}`;
}

/** The schema that validates the value at `path`, with optional, nullable, default and transform layers removed. */
function schemaAt(root: z.ZodType, path: readonly PropertyKey[]): z.ZodType | undefined {
  let schema: z.ZodType | undefined = unwrap(root);
  for (const part of path) {
    if (schema instanceof z.ZodObject && typeof part === "string") schema = schema.shape[part] as z.ZodType;
    else if (schema instanceof z.ZodArray && typeof part === "number") schema = schema.element as z.ZodType;
    else return undefined;
    schema = schema && unwrap(schema);
  }
  return schema;
}

function unwrap(schema: z.ZodType): z.ZodType {
  let current = schema;
  for (;;) {
    if (current instanceof z.ZodOptional || current instanceof z.ZodNullable || current instanceof z.ZodDefault) {
      current = current.unwrap() as z.ZodType;
    } else if (current instanceof z.ZodPipe) current = current.in as z.ZodType;
    else return current;
  }
}

/** "a whole number from 0 to 1,000", "a number ≥ 0"; the maximum is named when it was broken or is a real limit. */
function numberRule(schema: z.ZodNumber, maximumBroken: boolean): string {
  const kind = schema.isInt ? "a whole number" : "a number";
  const bound = (value: number | null) => (value === null || Math.abs(value) >= UNBOUNDED ? undefined : value);
  const min = bound(schema.minValue);
  let max = bound(schema.maxValue);
  if (max !== undefined && max >= NAMED_MAXIMUM && !maximumBroken) max = undefined;
  if (min !== undefined && max !== undefined) return `${kind} from ${count(min)} to ${count(max)}`;
  if (min !== undefined) return `${kind} ≥ ${count(min)}`;
  if (max !== undefined) return `${kind} ≤ ${count(max)}`;
  return kind;
}

const TYPE_WORDS: Record<string, string> = {
  int: "a whole number",
  number: "a number",
  string: "a string",
  boolean: "true or false",
  array: "an array",
  object: "an object",
};

/** What a valid value of `schema` is, in words; undefined for schemas this does not know how to describe. */
function describe(schema: z.ZodType | undefined, maximumBroken = false): string | undefined {
  if (schema instanceof z.ZodNumber) return numberRule(schema, maximumBroken);
  if (schema instanceof z.ZodString) return "a string";
  if (schema instanceof z.ZodBoolean) return "true or false";
  if (schema instanceof z.ZodEnum) return alternatives(schema.options);
  if (schema instanceof z.ZodLiteral) return alternatives([...schema.values]);
  if (schema instanceof z.ZodObject) return "an object";
  if (schema instanceof z.ZodArray) {
    const element = unwrap(schema.element as z.ZodType);
    if (element instanceof z.ZodString) return "an array of strings";
    if (element instanceof z.ZodNumber) return element.isInt ? "an array of whole numbers" : "an array of numbers";
    if (element instanceof z.ZodObject) return "an array of objects";
    return "an array";
  }
  if (schema instanceof z.ZodUnion) {
    const options = (schema.options as z.ZodType[]).map((option) => describe(unwrap(option)));
    return options.every((option) => option !== undefined) ? alternatives([...new Set(options)]) : undefined;
  }
  return undefined;
}

function lengthRule(origin: string, comparison: "at least" | "at most", limit: number | bigint): string | undefined {
  if (origin === "string") {
    return comparison === "at least" && Number(limit) <= 1
      ? "must not be empty"
      : `must have ${comparison} ${count(limit)} ${Number(limit) === 1 ? "character" : "characters"}`;
  }
  if (origin === "array" || origin === "set") {
    if (comparison === "at least" && Number(limit) === 1) return "must list at least one item";
    return `must list ${comparison} ${count(limit)} ${Number(limit) === 1 ? "item" : "items"}`;
  }
  return undefined;
}

/** What a JSON value of the wrong type was, for ", not a string": the usual surprise is a number sent as text. */
function kindOf(input: unknown): string {
  if (input === null) return "null";
  if (Array.isArray(input)) return "an array";
  if (typeof input === "boolean") return String(input);
  if (typeof input === "object") return "an object";
  if (typeof input === "string") return "a string";
  return "a number";
}

/** One issue as one sentence; `root` is the schema the issue came from. */
export function issueSentence(issue: z.core.$ZodIssue, root: z.ZodType): string {
  const field = fieldName(issue.path);
  const missing = issue.input === undefined;
  if (missing && (issue.code === "invalid_type" || issue.code === "invalid_value" || issue.code === "invalid_union")) {
    return `${field} is required`;
  }
  if (/^[a-z]/.test(issue.message)) return `${field} ${issue.message}`;
  const notNull = issue.input === null ? ", not null" : "";
  const schema = schemaAt(root, issue.path);
  switch (issue.code) {
    case "invalid_type": {
      const expected = describe(schema) ?? TYPE_WORDS[issue.expected] ?? issue.expected;
      // A fraction where a whole number goes is the right kind of value: no "not a number" then.
      const wrongKind = issue.expected === "int" ? "" : `, not ${kindOf(issue.input)}`;
      return `${field} must be ${expected}${wrongKind}`;
    }
    case "invalid_value":
      return `${field} must be ${alternatives(issue.values)}${notNull}`;
    case "too_small": {
      if (schema instanceof z.ZodNumber) return `${field} must be ${numberRule(schema, false)}`;
      return `${field} ${lengthRule(issue.origin, "at least", issue.minimum) ?? `must be at least ${count(issue.minimum)}`}`;
    }
    case "too_big": {
      if (schema instanceof z.ZodNumber) return `${field} must be ${numberRule(schema, true)}`;
      return `${field} ${lengthRule(issue.origin, "at most", issue.maximum) ?? `must be at most ${count(issue.maximum)}`}`;
    }
    case "invalid_format":
      if (issue.format === "email") return `${field} must be an e-mail address`;
      if (issue.format === "url") return `${field} must be a URL`;
      if (issue.format === "regex") return `${field} is not in the expected format`;
      return `${field} must be a valid ${issue.format}`;
    case "not_multiple_of":
      return `${field} must be a multiple of ${count(issue.divisor)}`;
    case "unrecognized_keys":
      return `${field} has fields this operation does not take: ${issue.keys.join(", ")}`;
    case "invalid_union": {
      // A value of one of the accepted types that is still wrong says why; otherwise name the accepted types.
      const inner = issue.errors.flat();
      const specific = inner.find((item) => item.code !== "invalid_type");
      if (specific && issue.input !== null) {
        const input = specific.input ?? issue.input;
        return issueSentence({ ...specific, input, path: [...issue.path, ...specific.path] } as z.core.$ZodIssue, root);
      }
      const types = [
        ...new Set(inner.map((item) => (item.code === "invalid_type" ? TYPE_WORDS[item.expected] : undefined))),
      ];
      const expected =
        describe(schema) ?? (types.every((type) => type !== undefined) ? alternatives(types) : undefined);
      return expected ? `${field} must be ${expected}${notNull}` : `${field} is invalid`;
    }
    case "invalid_key":
      return `${field} has a key that is not allowed`;
    case "invalid_element":
      return `${field} has a value that is not allowed`;
    default:
      return `${field} is invalid`;
  }
}
