/** How deep a shape goes; below, objects and arrays are only named. */
const MAX_DEPTH = 5;
/** Keys described per object; the rest are counted. */
const MAX_KEYS = 25;
/** Items described per array (the first ones); the rest are counted. */
const MAX_ITEMS = 3;
/** Longer keys are cut: a key is structure, but a sender chooses it. */
const MAX_KEY_LENGTH = 40;

/**
 * The structure of a JSON value without its content, for logging a payload the bridge could not use: objects keep
 * their keys (cut to 40 characters, at most 25 per object), arrays their length and the shape of their first items,
 * and every other value becomes its type (`string`, `number`, `boolean`, `null`). No text, id or secret survives:
 * `{"message":{"chat":{"id":"abc"}}}` becomes `{"message":{"chat":{"id":"string"}}}`.
 */
export function payloadShape(value: unknown, depth = 0): unknown {
  if (value === null) return "null";
  if (Array.isArray(value)) {
    if (depth >= MAX_DEPTH) return `array(${value.length})`;
    const items = value.slice(0, MAX_ITEMS).map((item) => payloadShape(item, depth + 1));
    return value.length > MAX_ITEMS ? [...items, `…${value.length - MAX_ITEMS} more`] : items;
  }
  if (typeof value === "object") {
    const keys = Object.keys(value);
    if (depth >= MAX_DEPTH) return `object(${keys.length} keys)`;
    const shape: Record<string, unknown> = {};
    for (const key of keys.slice(0, MAX_KEYS)) {
      const field = (value as Record<string, unknown>)[key];
      // defineProperty: a "__proto__" key stays a plain key of the description.
      Object.defineProperty(shape, cut(key), {
        value: payloadShape(field, depth + 1),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    if (keys.length > MAX_KEYS) shape["…"] = `${keys.length - MAX_KEYS} more keys`;
    return shape;
  }
  return typeof value;
}

function cut(key: string): string {
  return key.length > MAX_KEY_LENGTH ? `${key.slice(0, MAX_KEY_LENGTH)}…` : key;
}
