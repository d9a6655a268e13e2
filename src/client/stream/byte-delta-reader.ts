import type { AnswerEvent } from "../answer-events.js";
import { skipWhitespace } from "./json-object-splitter.js";

// The same shapes as the text readers in answer-objects.ts, matched in the bytes seen as Latin-1 (one character
// per byte). JSON's structure is ASCII and no byte of a multi-byte UTF-8 sequence is below 0x80, so a quote, a
// backslash or a brace found this way is one in the text. A match goes on from where the last one stopped: first
// a delta's opening and the run of printable ASCII other than a quote or a backslash that follows (most deltas
// are only that, and their Latin-1 text is their text); where the run stops on something else, the rest of the
// literal in ASCII with escapes, or else (from the same place) in any characters, whose bytes are then decoded.
const OPENING_RUN = /\{"content":"[\x20\x21\x23-\x5b\x5d-\x7f]*/y;
const SSE_OPENING_RUN = /data: ?\{"content":"[\x20\x21\x23-\x5b\x5d-\x7f]*/y;
const ASCII_REST = /[\x20\x21\x23-\x5b\x5d-\x7f]*(?:\\[\s\S][\x20\x21\x23-\x5b\x5d-\x7f]*)*"\}/y;
const SSE_ASCII_REST = /[\x20\x21\x23-\x5b\x5d-\x7f]*(?:\\[\s\S][\x20\x21\x23-\x5b\x5d-\x7f]*)*"\}\n\n/y;
// biome-ignore lint/suspicious/noControlCharactersInRegex: JSON strings must not hold raw control characters.
const ANY_REST = /[^"\\\u0000-\u001f]*(?:\\[\s\S][^"\\\u0000-\u001f]*)*"\}/y;
// biome-ignore lint/suspicious/noControlCharactersInRegex: JSON strings must not hold raw control characters.
const SSE_ANY_REST = /[^"\\\u0000-\u001f]*(?:\\[\s\S][^"\\\u0000-\u001f]*)*"\}\n\n/y;
const QUOTE = 0x22;
const CLOSING_BRACE = 0x7d;
const LF = 0x0a;

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
  readonly #openingRun: RegExp;
  readonly #asciiRest: RegExp;
  readonly #anyRest: RegExp;

  constructor(shape: "object" | "sse event") {
    this.#sse = shape === "sse event";
    this.#openingRun = this.#sse ? SSE_OPENING_RUN : OPENING_RUN;
    this.#asciiRest = this.#sse ? SSE_ASCII_REST : ASCII_REST;
    this.#anyRest = this.#sse ? SSE_ANY_REST : ANY_REST;
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
    const openingRun = this.#openingRun;
    // Where the string literal starts, from where the value starts, and what follows its closing quote.
    const prefix = sse ? 16 : 11;
    const suffix = sse ? 3 : 1;
    let at = first - from;
    while (at < length) {
      openingRun.lastIndex = at;
      if (!openingRun.test(text)) break;
      const quote = at + prefix + (sse && text.charCodeAt(at + 5) === SPACE ? 1 : 0);
      const stop = openingRun.lastIndex;
      let end: number;
      let content: string | undefined;
      if (text.charCodeAt(stop) === QUOTE && closes(text, stop + 1, sse)) {
        end = stop + 1 + suffix;
        content = text.slice(quote + 1, stop);
      } else {
        const asciiRest = this.#asciiRest;
        asciiRest.lastIndex = stop;
        if (asciiRest.test(text)) {
          // All ASCII, and the run stopped on a backslash: an escape.
          end = asciiRest.lastIndex;
          content = parseLiteral(text.slice(quote, end - suffix));
        } else {
          const anyRest = this.#anyRest;
          anyRest.lastIndex = stop;
          if (!anyRest.test(text)) break;
          // Characters beyond ASCII: their bytes are decoded as UTF-8.
          end = anyRest.lastIndex;
          const literal = bytes.toString("utf8", from + quote, from + end - suffix);
          content = literal.includes("\\") ? parseLiteral(literal) : literal.slice(1, -1);
        }
        if (content === undefined) break;
      }
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

/** True when `text` holds at `at` what closes a delta after its literal: `}`, and for SSE the blank line. */
function closes(text: string, at: number, sse: boolean): boolean {
  if (text.charCodeAt(at) !== CLOSING_BRACE) return false;
  return !sse || (text.charCodeAt(at + 1) === LF && text.charCodeAt(at + 2) === LF);
}

/** True when `bytes` hold `expected` at index `at`. */
export function startsWith(bytes: Buffer, at: number, expected: Buffer): boolean {
  if (at + expected.length > bytes.length) return false;
  for (let i = 0; i < expected.length; i++) if (bytes[at + i] !== expected[i]) return false;
  return true;
}

/**
 * The text of a JSON string literal (quotes included) holding escapes, as `JSON.parse` reads it; `undefined` for
 * a bad escape. Unescaping by hand took half the time here but made strings of pieces, which cost a consumer
 * joining the deltas (as a reply does) more than that once it reads the whole (see docs/benchmarks.md).
 */
function parseLiteral(literal: string): string | undefined {
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
