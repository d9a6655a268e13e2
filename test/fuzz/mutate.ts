import { seededRandom } from "../../src/server/seeded-random.js";

/** A JSON value as `JSON.parse` returns it. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** A path to a node of a JSON value: object keys and array indexes from the root. */
type JsonPath = (string | number)[];

/** Strings that break naive readers: empty, blank, numeric-looking, markup, control and astral characters, commands. */
const ODD_STRINGS = [
  "",
  " ",
  "abc",
  "0",
  "-1",
  "1.5",
  "null",
  "true",
  "[]",
  "{}",
  "<b>x</b>",
  "\u0000",
  "\ud800",
  "🙂",
  "/start",
  "/reset",
  "@",
  "D0",
  "wamid.",
  "__proto__",
];

/** Numbers past the edges: zero, negative, fractional, beyond 32 bits and beyond exact doubles. */
const ODD_NUMBERS = [0, -1, 1.5, -0.25, 2 ** 31, 2 ** 53, -(2 ** 53), 2 ** 53 + 2, 1e308, 123456789012];

/** Keys that are no field of any platform payload, or that prototype-pollution attempts use. */
const ODD_KEYS = ["unknown_field", "__proto__", "constructor", "", "type", "0"];

/** Event and update types no platform sends. */
const ODD_TYPES = ["x_unknown_type", "", "MESSAGE", "message ", "event_callback_v2"];

/** Sizes of the long strings the mutations put in (bytes of ASCII); one in fifty is over a megabyte. */
const LONG_STRINGS = [1_000, 20_000, 100_000];
const HUGE_STRING = 1_100_000;

/**
 * A seeded source of malformed variants of valid payloads, so a fuzz run is reproducible from its seed. Mutations
 * work on a copy: drop a key, change a value's type, put null, an array, an empty or deeply nested value, a long
 * string, an odd number or string, an unknown key or an unknown `type`; {@link Fuzzer.variant} can also replace
 * the whole payload with a non-object, and {@link Fuzzer.text} produces bodies that are not JSON at all.
 */
export interface Fuzzer {
  /** A number in [0, 1). */
  next(): number;
  /** An integer in [0, n). */
  int(n: number): number;
  pick<T>(items: readonly T[]): T;
  chance(probability: number): boolean;
  /** A copy of `value` with 1 to `rounds` mutations at random nodes. */
  mutate(value: Json, rounds?: number): Json;
  /** Mostly {@link mutate}; sometimes a top-level non-object (null, a number, a string, an array, a boolean). */
  variant(value: Json): Json;
  /** A body that is not JSON: truncated, unbalanced, binary, empty, or with a byte-order mark. */
  text(json: string): string;
}

/** A {@link Fuzzer} whose choices all follow from `seed`. */
export function fuzzer(seed: number): Fuzzer {
  const next = seededRandom(seed);
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(items: readonly T[]): T => items[int(items.length)] as T;
  const chance = (probability: number) => next() < probability;

  const longString = () => "x".repeat(chance(0.02) ? HUGE_STRING : pick(LONG_STRINGS));

  const scalar = (): Json => {
    switch (int(5)) {
      case 0:
        return pick(ODD_STRINGS);
      case 1:
        return pick(ODD_NUMBERS);
      case 2:
        return chance(0.5);
      case 3:
        return null;
      default:
        return longString();
    }
  };

  /** A value of another kind than `value` (a string for a number, an object for an array…). */
  const otherType = (value: Json): Json => {
    const kind = kindOf(value);
    const candidates: Json[] = [
      pick(ODD_STRINGS),
      pick(ODD_NUMBERS),
      chance(0.5),
      null,
      [],
      [value],
      {},
      { [pick(ODD_KEYS)]: value },
    ];
    const others = candidates.filter((candidate) => kindOf(candidate) !== kind);
    return pick(others);
  };

  /** Arrays in arrays, objects in objects: readers that recurse without a bound. */
  const nested = (): Json => {
    let value: Json = scalar();
    const depth = 1 + int(64);
    for (let level = 0; level < depth; level++) value = chance(0.5) ? [value] : { [pick(ODD_KEYS)]: value };
    return value;
  };

  const mutateOnce = (root: Json): Json => {
    const paths = nodePaths(root);
    const path = pick(paths);
    const current = at(root, path);
    const replace = (value: Json): Json => replaceAt(root, path, value);
    switch (int(10)) {
      case 0:
        return path.length > 0 ? removeAt(root, path) : replace(otherType(current));
      case 1:
      case 2:
        return replace(otherType(current));
      case 3:
        return replace(null);
      case 4:
        return replace(scalar());
      case 5:
        return replace(nested());
      case 6:
        return replace(Array.isArray(current) ? [] : isObject(current) ? {} : [current, current]);
      case 7: {
        if (!isObject(current)) return replace({ [pick(ODD_KEYS)]: current });
        return replace({ ...current, [pick(ODD_KEYS)]: scalar() });
      }
      case 8: {
        // An unknown type where the payload names one, or wherever this node is.
        const typed = paths.filter((candidate) => candidate.at(-1) === "type" || candidate.at(-1) === "field");
        if (typed.length === 0) return replace(pick(ODD_TYPES));
        return replaceAt(root, pick(typed), pick(ODD_TYPES));
      }
      default:
        return replace(typeof current === "string" ? longString() : pick(ODD_NUMBERS));
    }
  };

  const mutate = (value: Json, rounds = 3): Json => {
    let result = structuredClone(value);
    const count = 1 + int(rounds);
    for (let round = 0; round < count; round++) result = mutateOnce(result);
    return result;
  };

  return {
    next,
    int,
    pick,
    chance,
    mutate,
    variant: (value) => {
      if (!chance(0.05)) return mutate(value);
      return pick<Json>([null, 0, 1.5, "", "update", true, [], [value], [null]]);
    },
    text: (json) => {
      switch (int(7)) {
        case 0:
          return json.slice(0, int(json.length));
        case 1:
          return "{";
        case 2:
          return "";
        case 3:
          return `\ufeff${json}`;
        case 4:
          return `${json}}`;
        case 5:
          return json.replace(/"/, "'");
        default:
          return String.fromCharCode(...Array.from({ length: 1 + int(64) }, () => int(256)));
      }
    },
  };
}

function kindOf(value: Json): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}

function isObject(value: Json | undefined): value is { [key: string]: Json } {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Every node's path, the root's (empty) first. */
function nodePaths(root: Json): JsonPath[] {
  const paths: JsonPath[] = [];
  const visit = (value: Json, path: JsonPath) => {
    paths.push(path);
    if (Array.isArray(value)) {
      for (const [index, item] of value.entries()) visit(item, [...path, index]);
    } else if (isObject(value)) for (const [key, item] of Object.entries(value)) visit(item, [...path, key]);
  };
  visit(root, []);
  return paths;
}

function at(root: Json, path: JsonPath): Json {
  let value: Json = root;
  for (const step of path) value = (value as Record<string | number, Json>)[step] as Json;
  return value;
}

/** The root with the node at `path` replaced (the root itself for an empty path). */
function replaceAt(root: Json, path: JsonPath, value: Json): Json {
  if (path.length === 0) return value;
  const parent = at(root, path.slice(0, -1)) as Record<string | number, Json>;
  const key = path.at(-1) as string | number;
  // defineProperty, so a "__proto__" key becomes an own property as JSON.parse would make it.
  Object.defineProperty(parent, key, { value, enumerable: true, writable: true, configurable: true });
  return root;
}

/** The root without the node at `path` (an array item is spliced out). */
function removeAt(root: Json, path: JsonPath): Json {
  const parent = at(root, path.slice(0, -1));
  const key = path.at(-1) as string | number;
  if (Array.isArray(parent)) parent.splice(key as number, 1);
  else if (isObject(parent)) delete parent[key as string];
  return root;
}
