/** How much of a non-JSON body an error quotes: enough to recognise an HTML page or a proxy message. */
export const GARBAGE_EXCERPT_LENGTH = 80;

const OPEN_BRACE = 0x7b;
const BACKSLASH = 0x5c;

// Outside strings only quotes and braces change the structure; the regex engine skips everything else
// (keys' colons, numbers, commas, whitespace) natively, which is much faster than a per-character loop.
const STRUCTURE = /["{}]/g;
// A whole object without nested objects (every delta, most finals), matched by one call into the regex
// engine instead of one call per string. Written as unrolled loops, so a miss costs linear time.
const FLAT_OBJECT = /\{[^"{}]*(?:"[^"\\]*(?:\\[\s\S][^"\\]*)*"[^"{}]*)*\}/y;

/** Raised when the text between objects is not JSON whitespace (an HTML error page, a proxy message). */
export class JsonStreamSyntaxError extends SyntaxError {
  override readonly name = "JsonStreamSyntaxError";

  /** The stray text, from its first character, cut to {@link GARBAGE_EXCERPT_LENGTH} characters. */
  readonly excerpt: string;

  constructor(excerpt: string) {
    super(`not a JSON object: ${JSON.stringify(excerpt)}`);
    this.excerpt = excerpt;
  }
}

/**
 * Cuts a stream of text into the texts of its top-level JSON objects, whatever separates them: newlines
 * (NDJSON, `\n` or `\r\n`), other whitespace, or nothing at all (`{...}{...}`). Pieces may be cut anywhere,
 * inside a string or an escape sequence included.
 *
 * It only tracks what decides where an object ends (braces outside strings, and quotes not escaped), so
 * the texts it emits still need `JSON.parse`, which is what rejects malformed members. The scan resumes
 * where the previous piece stopped and an unfinished object is kept as a list of pieces, so a long object
 * (a final answer that spans hundreds of chunks) costs linear time, never a rescan of a growing buffer.
 */
export class JsonObjectSplitter {
  /** Pieces of the object being read; the first one starts at its `{`. */
  #parts: string[] = [];
  /** Brace depth; 0 means between objects. */
  #depth = 0;
  #inString = false;
  /** The last piece ended, inside a string, on a backslash that escapes the next piece's first character. */
  #escapePending = false;
  /** Non-JSON text met between objects, collected until it is long enough to quote. */
  #garbage: string | undefined;

  /**
   * The objects of a whole text, in order; when the text ends inside an object, that unfinished object's
   * text comes last (for `JSON.parse` to reject). Throws {@link JsonStreamSyntaxError} for stray text.
   */
  static split(text: string): string[] {
    const splitter = new JsonObjectSplitter();
    const texts: string[] = [];
    splitter.feed(text, texts);
    splitter.end();
    if (splitter.inObject) texts.push(splitter.#parts.join(""));
    return texts;
  }

  /** True while an object has started but not yet ended (a stream cut here lost part of it). */
  get inObject(): boolean {
    return this.#depth > 0;
  }

  /** True between objects, when a caller may read the next object itself (not once stray text was met). */
  get betweenObjects(): boolean {
    return this.#depth === 0 && this.#garbage === undefined;
  }

  /**
   * Reads `piece` from index `from` and appends to `out` the text of every object it completes, in order;
   * with `firstOnly`, it stops just after the first one. Returns the index where it stopped (the piece's
   * length once it is all read), so a caller can read the common objects itself between two calls;
   * `from` must then be where the previous call stopped, or 0 for a new piece. Throws
   * {@link JsonStreamSyntaxError} once enough stray text was seen to quote it; the objects that came
   * before the stray text are in `out` by then.
   */
  feed(piece: string, out: string[], from = 0, firstOnly = false): number {
    const length = piece.length;
    if (this.#garbage !== undefined) {
      this.#collectGarbage(piece, from);
      return length;
    }
    // Start of the current object in this piece: 0 when it began in an earlier piece.
    let start = 0;
    let i = from;
    // Backslashes before this index belong to an escape that the previous piece already accounted for.
    let floor = from;
    if (this.#escapePending && length > 0) {
      this.#escapePending = false;
      i = floor = 1;
    }
    while (i < length) {
      if (this.#depth === 0) {
        i = skipWhitespace(piece, i);
        if (i === length) return length;
        if (piece.charCodeAt(i) !== OPEN_BRACE) {
          this.#garbage = "";
          this.#collectGarbage(piece, i);
          return length;
        }
        FLAT_OBJECT.lastIndex = i;
        if (FLAT_OBJECT.test(piece)) {
          out.push(piece.slice(i, FLAT_OBJECT.lastIndex));
          i = FLAT_OBJECT.lastIndex;
          if (firstOnly) return i;
          continue;
        }
        start = i++;
        this.#depth = 1;
      } else if (this.#inString) {
        const quote = piece.indexOf('"', i);
        if (quote === -1) {
          this.#escapePending = oddBackslashesBefore(piece, length, floor);
          break;
        }
        i = quote + 1;
        // A quote preceded by an odd run of backslashes is escaped and does not end the string.
        if (!oddBackslashesBefore(piece, quote, floor)) this.#inString = false;
      } else {
        STRUCTURE.lastIndex = i;
        if (!STRUCTURE.test(piece)) break;
        i = STRUCTURE.lastIndex;
        const c = piece.charCodeAt(i - 1);
        if (c === 0x22) this.#inString = true;
        else if (c === OPEN_BRACE) this.#depth++;
        else if (--this.#depth === 0) {
          out.push(this.#take(piece, start, i));
          if (firstOnly) return i;
        }
      }
    }
    if (this.#depth > 0) this.#parts.push(start === 0 ? piece : piece.slice(start));
    return length;
  }

  /**
   * Declares the end of the stream. Throws {@link JsonStreamSyntaxError} when stray text is pending; an
   * unfinished object is not an error here (see {@link inObject}): the caller decides what a cut means.
   */
  end(): void {
    if (this.#garbage !== undefined) throw new JsonStreamSyntaxError(this.#garbage);
  }

  #take(piece: string, start: number, end: number): string {
    if (this.#parts.length === 0) return piece.slice(start, end);
    this.#parts.push(piece.slice(0, end));
    const text = this.#parts.join("");
    this.#parts = [];
    return text;
  }

  #collectGarbage(piece: string, from: number): void {
    const garbage = (this.#garbage ?? "") + piece.slice(from, from + GARBAGE_EXCERPT_LENGTH);
    this.#garbage = garbage.slice(0, GARBAGE_EXCERPT_LENGTH);
    if (this.#garbage.length >= GARBAGE_EXCERPT_LENGTH) throw new JsonStreamSyntaxError(this.#garbage);
  }
}

/** The index of the first character at or after `from` that is not JSON whitespace (or the text's length). */
export function skipWhitespace(text: string, from: number): number {
  // Separators are a character or two (a newline, `\r\n`), so a plain loop beats a regex call here.
  let i = from;
  let c = text.charCodeAt(i);
  while (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) c = text.charCodeAt(++i);
  return i;
}

/** True when the run of backslashes ending just before `index` (and not reaching below `floor`) is odd. */
function oddBackslashesBefore(text: string, index: number, floor: number): boolean {
  let j = index - 1;
  while (j >= floor && text.charCodeAt(j) === BACKSLASH) j--;
  return (index - 1 - j) % 2 === 1;
}
