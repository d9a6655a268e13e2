import type { AnswerEvent } from "../answer-events.js";
import { skipWhitespace } from "./json-object-splitter.js";

// The same shapes as the text readers in answer-objects.ts, matched in the bytes seen as Latin-1 (one character
// per byte). JSON's structure is ASCII and no byte of a multi-byte UTF-8 sequence is below 0x80, so a quote, a
// backslash or a brace found this way is one in the text. First a delta of printable ASCII without escapes (its
// Latin-1 text is its text), then any delta, whose string literal is then decoded.
const ASCII_DELTA = /\{"content":"[\x20\x21\x23-\x5b\x5d-\x7f]*"\}/y;
// biome-ignore lint/suspicious/noControlCharactersInRegex: JSON strings must not hold raw control characters.
const ANY_DELTA = /\{"content":"[^"\\\u0000-\u001f]*(?:\\[\s\S][^"\\\u0000-\u001f]*)*"\}/y;
const ASCII_SSE_DELTA = /data: ?\{"content":"[\x20\x21\x23-\x5b\x5d-\x7f]*"\}\n\n/y;
// biome-ignore lint/suspicious/noControlCharactersInRegex: JSON strings must not hold raw control characters.
const ANY_SSE_DELTA = /data: ?\{"content":"[^"\\\u0000-\u001f]*(?:\\[\s\S][^"\\\u0000-\u001f]*)*"\}\n\n/y;
/** UTF-8 bytes of characters beyond ASCII, whose Latin-1 text is not theirs. */
const ABOVE_ASCII = /[\x80-\xff]/;

// How a delta opens, to tell at a glance the values that are not deltas (a final spanning many chunks)
// without copying their bytes.
const DELTA_OPENING = Buffer.from('{"content":"');
/** The field an SSE data line opens with. */
export const SSE_DATA = Buffer.from("data:");
const SPACE = 0x20;

/**
 * Reads deltas written the usual way (`{"content":"..."}`, or for SSE the event `data: {"content":"..."}` and
 * its blank line) straight out of the body's bytes, before they are decoded as UTF-8. Decoding every byte
 * as UTF-8 cost a sixth of the decoding time; seen as Latin-1 (a plain copy), the bytes of a delta in ASCII
 * are already its text, and only a delta holding other characters or escapes has its few bytes decoded.
 * What is not such a delta is left to the caller, which decodes the rest as UTF-8 and reports what is wrong.
 */
export class ByteDeltaReader {
  readonly #sse: boolean;
  readonly #ascii: RegExp;
  readonly #any: RegExp;

  constructor(shape: "object" | "sse event") {
    this.#sse = shape === "sse event";
    this.#ascii = this.#sse ? ASCII_SSE_DELTA : ASCII_DELTA;
    this.#any = this.#sse ? ANY_SSE_DELTA : ANY_DELTA;
  }

  /**
   * Appends to `out` the deltas that follow each other in `bytes` from index `from` (JSON whitespace may
   * separate objects, not SSE events) and returns the index of the first byte not read: where something
   * else starts (past JSON whitespace), or the length of `bytes`. `from` must be between two values, with
   * nothing of a multi-byte character pending before it.
   */
  read(bytes: Buffer, from: number, out: AnswerEvent[]): number {
    const sse = this.#sse;
    const first = sse ? from : skipWhitespaceBytes(bytes, from);
    if (!this.#opensDelta(bytes, first)) return first;
    // Indices below are in `text`, which starts at `from`.
    const text = bytes.toString("latin1", from);
    const length = text.length;
    const ascii = this.#ascii;
    const any = this.#any;
    // Where the string literal starts, from where the value starts, and what follows its closing quote.
    const prefix = sse ? 16 : 11;
    const suffix = sse ? 3 : 1;
    let at = first - from;
    while (at < length) {
      const quote = at + prefix + (sse && text.charCodeAt(at + 5) === SPACE ? 1 : 0);
      ascii.lastIndex = at;
      if (ascii.test(text)) {
        const end = ascii.lastIndex;
        out.push({ type: "delta", content: text.slice(quote + 1, end - suffix - 1) });
        at = sse ? end : skipWhitespace(text, end);
        continue;
      }
      any.lastIndex = at;
      if (!any.test(text)) break;
      const end = any.lastIndex;
      const content = literalText(bytes, text, from, quote, end - suffix);
      if (content === undefined) break;
      out.push({ type: "delta", content });
      at = sse ? end : skipWhitespace(text, end);
    }
    return from + at;
  }

  #opensDelta(bytes: Buffer, at: number): boolean {
    if (!this.#sse) return startsWith(bytes, at, DELTA_OPENING);
    return (
      startsWith(bytes, at, SSE_DATA) && startsWith(bytes, bytes[at + 5] === SPACE ? at + 6 : at + 5, DELTA_OPENING)
    );
  }
}

/** True when `bytes` hold `expected` at index `at`. */
export function startsWith(bytes: Buffer, at: number, expected: Buffer): boolean {
  if (at + expected.length > bytes.length) return false;
  for (let i = 0; i < expected.length; i++) if (bytes[at + i] !== expected[i]) return false;
  return true;
}

/**
 * The text of the JSON string literal at `[start, end)` of `latin1` (the bytes from `offset` on), as
 * `JSON.parse` reads it from the bytes decoded as UTF-8 (bad bytes become U+FFFD, as the text path's
 * decoder makes them); `undefined` for a bad escape.
 */
function literalText(bytes: Buffer, latin1: string, offset: number, start: number, end: number): string | undefined {
  let literal = latin1.slice(start, end);
  if (ABOVE_ASCII.test(literal)) literal = bytes.toString("utf8", offset + start, offset + end);
  if (!literal.includes("\\")) return literal.slice(1, -1);
  try {
    return JSON.parse(literal) as string;
  } catch {
    return undefined;
  }
}

/** The index of the first byte at or after `from` that is not JSON whitespace (or the length of `bytes`). */
function skipWhitespaceBytes(bytes: Buffer, from: number): number {
  let i = from;
  let c = bytes[i];
  while (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) c = bytes[++i];
  return i;
}
