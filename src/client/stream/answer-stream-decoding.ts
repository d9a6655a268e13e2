import { createParser, type EventSourceMessage, type EventSourceParser } from "eventsource-parser";
import type { AnswerEvent } from "../answer-events.js";
import { ChatbotApiError } from "../errors.js";
import {
  type AnswerObject,
  classifyAnswerObject,
  errorEventError,
  PlainDeltaReader,
  readAnswerObject,
} from "./answer-objects.js";
import { BodyBytes, type Chunk } from "./body-bytes.js";
import { ByteDeltaReader, SSE_DATA, startsWith } from "./byte-delta-reader.js";
import { JsonObjectSplitter, JsonStreamSyntaxError, skipWhitespace } from "./json-object-splitter.js";
import { readJoined } from "./shared-join.js";
import { decodeUtf8 } from "./utf8-text.js";

/** What decoding needs to know besides the body, for its errors. */
export interface AnswerStreamDecodingOptions {
  /** Operation name for errors, e.g. `ClientAsk`. */
  operation: string;
  /** The response's `Content-Type`, quoted when the body turns out not to be a stream of answer objects. */
  contentType?: string | undefined;
}

const LF = 0x0a;
const CR = 0x0d;
const CLOSING_BRACE = 0x7d;
const OPEN_BRACE = 0x7b;
const SPACE = 0x20;
const STREAM = { stream: true };

// Lines an SSE stream can open with; a body starting with anything else is read as bare JSON objects.
const SSE_OPENINGS = ["data:", "event:", "id:", "retry:", ":"];
/** Enough bytes to tell the framing: the longest SSE opening. */
const SNIFFED_BYTES = 6;

/**
 * The state of one answer being decoded. `push` and `finish` never throw, so the events read before a
 * failure still go out before it.
 */
export class AnswerStreamDecoding {
  readonly #options: AnswerStreamDecodingOptions;
  /**
   * Decodes the text path's bytes, made on first use: an SSE stream of plain deltas and a final is read from
   * the bytes without it, and a decoder holds about 1.3 KB outside the heap, per answer under way. Not fatal:
   * one bad byte from the server should cost one U+FFFD, not the whole answer.
   */
  #decoder: InstanceType<typeof TextDecoder> | undefined;
  /**
   * The body so far, from which the partial text is rebuilt when an error needs it. Keeping the text of every
   * delta instead cost a sixth of the decoding time (a copy of each small string, to free the chunk it was cut
   * from) for text that only a failure reads. Undefined in the rebuilding decoding.
   */
  readonly #body: BodyBytes | undefined;
  /** Bytes received but not decoded yet (see {@link #decodeBytes}). */
  readonly #held: Uint8Array[] = [];
  /** The decoder holds the first bytes of a character cut at the end of what it was given last. */
  #decoderMidCharacter = false;
  #deltaCount = 0;
  #rebuilt: { count: number; text: string } | undefined;
  #framing: "sse" | "json" | undefined;
  /** Text read before the framing could be told. */
  #head = "";
  #events: AnswerEvent[] = [];
  #failure: ChatbotApiError | undefined;
  #done = false;
  /** Set while flushing at the end of the body: a cut last object then means "incomplete", not "malformed". */
  #ending = false;
  // The readers of each framing and path are made on first use: an answer needs those of one framing, and a
  // thousand answers under way each held all of them (SSE's parser alone is ten closures), about 0.8 KiB.
  #splitterMade: JsonObjectSplitter | undefined;
  #plainDeltasMade: PlainDeltaReader | undefined;
  #plainSseDeltasMade: PlainDeltaReader | undefined;
  #byteDeltasMade: ByteDeltaReader | undefined;
  #byteSseDeltasMade: ByteDeltaReader | undefined;
  #sseMade: EventSourceParser | undefined;
  readonly #objectTexts: string[] = [];
  /** The SSE text given to the parser so far ends on a blank line: the next event starts afresh. */
  #sseBetweenEvents = true;
  /** The SSE text read so far ends with a line feed. */
  #sseLineEnded = false;

  constructor(options: AnswerStreamDecodingOptions, keepBody: boolean) {
    this.#options = options;
    this.#body = keepBody ? new BodyBytes() : undefined;
  }

  get #splitter(): JsonObjectSplitter {
    this.#splitterMade ??= new JsonObjectSplitter();
    return this.#splitterMade;
  }

  get #plainDeltas(): PlainDeltaReader {
    this.#plainDeltasMade ??= new PlainDeltaReader();
    return this.#plainDeltasMade;
  }

  get #plainSseDeltas(): PlainDeltaReader {
    this.#plainSseDeltasMade ??= new PlainDeltaReader("sse event");
    return this.#plainSseDeltasMade;
  }

  get #byteDeltas(): ByteDeltaReader {
    this.#byteDeltasMade ??= new ByteDeltaReader("object");
    return this.#byteDeltasMade;
  }

  get #byteSseDeltas(): ByteDeltaReader {
    this.#byteSseDeltasMade ??= new ByteDeltaReader("sse event");
    return this.#byteSseDeltasMade;
  }

  /** eventsource-parser, for the SSE events that are not a plain delta alone (the final, comments, errors). */
  get #sse(): EventSourceParser {
    this.#sseMade ??= createParser({ onEvent: (message) => this.#readSseEvent(message) });
    return this.#sseMade;
  }

  /** The concatenated deltas so far, rebuilt by decoding the body again up to the same delta. */
  get partialText(): string {
    if (this.#body === undefined || this.#deltaCount === 0) return "";
    if (this.#rebuilt?.count === this.#deltaCount) return this.#rebuilt.text;
    const again = new AnswerStreamDecoding(this.#options, false);
    for (const segment of this.#body.segments()) again.push(segment);
    again.#flush();
    const contents: string[] = [];
    for (const event of again.#events) {
      if (contents.length === this.#deltaCount) break;
      if (event.type === "delta") contents.push(event.content);
    }
    this.#rebuilt = { count: this.#deltaCount, text: contents.join("") };
    return this.#rebuilt.text;
  }

  /** Reads the next chunk of the body. */
  push(chunk: Chunk): void {
    if (this.#done || this.#failure) return;
    this.#body?.push(chunk);
    if (typeof chunk !== "string") this.#decodeBytes(chunk);
    else {
      this.#decodeHeld();
      this.#read(chunk);
    }
  }

  /** Reads what is left once the body has ended, and fails when the final never came. */
  finish(): void {
    this.#flush();
    if (this.#done || this.#failure) return;
    const partialText = this.partialText;
    const message = `the stream ended before the final answer (${partialText.length} characters received)`;
    const { operation } = this.#options;
    this.#failure = new ChatbotApiError({
      operation,
      kind: "incomplete",
      message,
      partialText: partialText || undefined,
    });
  }

  /**
   * The events decoded since the last call, then the failure to throw once they are out, and whether the
   * final came (the rest of the body then does not matter).
   */
  take(): { events: AnswerEvent[]; failure: ChatbotApiError | undefined; done: boolean } {
    const events = this.#events;
    this.#events = [];
    return { events, failure: this.#failure, done: this.#done };
  }

  /**
   * Decodes a chunk of bytes up to where the value under way may end: its last line end (SSE) or closing
   * brace (JSON). The bytes after that are held, and so is a chunk that has none: a value spanning whole
   * chunks (the final, which repeats the whole answer) is then decoded in one piece once its end has come,
   * instead of chunk by chunk and joined again, which cost as much as decoding it. Decoding in stream
   * mode gives the same text however the bytes are grouped, so holding never changes what is read.
   */
  #decodeBytes(chunk: Uint8Array): void {
    const held = this.#held;
    const bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    // A body opening straight on its framing (no byte order mark or blank) is told from its first bytes, so
    // that even its first chunk is read from the bytes.
    if (this.#framing === undefined && this.#head === "" && held.length === 0 && !isBlankOrMark(bytes[0])) {
      this.#framing = sniff(bytes.toString("latin1", 0, SNIFFED_BYTES));
    }
    const framing = this.#framing;
    const end = framing === undefined ? bytes.length : decodableLength(bytes, framing);
    if (end > 0) {
      if (held.length === 0) this.#readBytes(bytes.subarray(0, end), false);
      else {
        // A value spanned whole chunks when what was held is more than the rest of one chunk.
        const spanned = held.length > 1;
        readJoined([...held, bytes.subarray(0, end)], (ready) => this.#readBytes(ready, spanned));
        held.length = 0;
      }
    }
    if (end === bytes.length) return;
    const rest = end === 0 ? bytes : bytes.subarray(end);
    // Between JSON objects, what is not an object is stray text, reported without waiting for more.
    if (held.length > 0 || framing === "sse" || this.#splitter.inObject || opensObject(rest)) held.push(rest);
    else this.#read(this.#decode(rest));
  }

  /**
   * Reads bytes that end where a value may end. Between values, the usual deltas are read straight from the
   * bytes ({@link ByteDeltaReader}), and so is a value that is all of what follows: an SSE event of one `data:`
   * line, or (once the value spanned whole chunks, as the final does) a JSON object up to the end of the
   * bytes. Only decoding and `JSON.parse` then touch a long final, instead of the SSE parser's or the
   * splitter's scans as well, which took as long again. The rest is decoded and read as text.
   */
  #readBytes(bytes: Buffer, spanned: boolean): void {
    let from = 0;
    while (from < bytes.length && this.#betweenValues()) {
      const events = this.#events;
      const before = events.length;
      from = (this.#framing === "sse" ? this.#byteSseDeltas : this.#byteDeltas).read(bytes, from, events);
      if (events.length > before) {
        this.#deltaCount += events.length - before;
        // Each SSE delta read ends with its blank line.
        this.#sseLineEnded = this.#framing === "sse";
      }
      if (from === bytes.length) return;
      const next =
        this.#framing === "sse" ? this.#readDataEvent(bytes, from) : this.#readLastObject(bytes, from, spanned);
      if (next === from) break;
      from = next;
    }
    if (from < bytes.length) this.#read(this.#decode(from === 0 ? bytes : bytes.subarray(from)));
  }

  /** True between two values, with nothing pending: where the bytes can be read without the text path. */
  #betweenValues(): boolean {
    if (this.#framing === undefined || this.#decoderMidCharacter || this.#done || this.#failure) return false;
    return this.#framing === "sse" ? this.#sseBetweenEvents : this.#splitter.betweenObjects;
  }

  /**
   * Reads the SSE event at `from` when it is a single `data:` line and its blank line (`\n` only), as the
   * parser would; returns the index past it, or `from` when the event is anything else or not all there.
   */
  #readDataEvent(bytes: Buffer, from: number): number {
    if (!startsWith(bytes, from, SSE_DATA)) return from;
    const lineEnd = bytes.indexOf(LF, from);
    if (lineEnd === -1 || bytes[lineEnd + 1] !== LF) return from;
    // A carriage return ends a line too: such an event is the parser's.
    const line = bytes.subarray(from, lineEnd);
    if (line.includes(CR)) return from;
    const start = from + (bytes[from + SSE_DATA.length] === SPACE ? SSE_DATA.length + 1 : SSE_DATA.length);
    const value = line.subarray(start - from);
    const data = decodeUtf8(value);
    this.#guard(() => this.#readSseEvent({ data, event: undefined, id: undefined }));
    this.#sseLineEnded = true;
    return lineEnd + 2;
  }

  /**
   * Once a JSON value spanned whole chunks (the final, most likely, and the last thing sent), reads the
   * bytes from `from` to their end as that one object, parsed without first looking for where it ends;
   * when they are not one object (more came after it), their text goes the usual way. Returns the index
   * past what it read.
   */
  #readLastObject(bytes: Buffer, from: number, spanned: boolean): number {
    if (!spanned || bytes[from] !== OPEN_BRACE) return from;
    const text = this.#decode(bytes.subarray(from));
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      this.#read(text);
      return bytes.length;
    }
    this.#guard(() => this.#take(classifyAnswerObject(this.#options.operation, value, () => this.partialText)));
    return bytes.length;
  }

  #decodeHeld(): void {
    const held = this.#held;
    if (held.length === 0) return;
    this.#read(this.#decode(held.length === 1 ? (held[0] as Uint8Array) : Buffer.concat(held)));
    held.length = 0;
  }

  /** Decodes bytes in stream mode, noting whether a character cut at their end is left pending. */
  #decode(bytes: Uint8Array): string {
    // Bytes ending on ASCII leave nothing pending: an unfinished sequence before it is already replaced.
    if (bytes.length > 0) this.#decoderMidCharacter = (bytes[bytes.length - 1] as number) >= 0x80;
    this.#decoder ??= new TextDecoder("utf-8", { fatal: false });
    return this.#decoder.decode(bytes, STREAM);
  }

  #flush(): void {
    this.#decodeHeld();
    if (this.#decoder !== undefined) this.#read(this.#decoder.decode());
    this.#decoderMidCharacter = false;
    this.#ending = true;
    if (this.#framing === undefined) {
      // Too short to tell, so not SSE: read as JSON objects, stray text is reported for what it is.
      const head = this.#head.trimStart();
      this.#head = "";
      this.#framing = "json";
      this.#read(head);
    }
    // A last event without its blank line still counts: the server closing the body ends it.
    if (this.#framing === "sse") this.#read("\n\n");
    else this.#guard(() => this.#splitter.end());
  }

  #read(text: string): void {
    this.#guard(() => {
      if (this.#framing === undefined) {
        this.#head += text;
        this.#framing = sniff(this.#head.trimStart());
        if (this.#framing === undefined) return;
        text = this.#head.trimStart();
        this.#head = "";
      }
      if (this.#framing === "sse") this.#readSse(text);
      else this.#readJson(text);
    });
  }

  /** Runs a decoding step, keeping what it throws as the failure to report after the events before it. */
  #guard(step: () => void): void {
    if (this.#done || this.#failure) return;
    try {
      step();
    } catch (err) {
      if (err instanceof ChatbotApiError) this.#failure = err;
      else if (err instanceof JsonStreamSyntaxError) {
        const type = this.#options.contentType ? ` (${this.#options.contentType})` : "";
        this.#failure = this.#malformed(`the response${type} is not an answer stream: ${JSON.stringify(err.excerpt)}`);
      } else this.#failure = this.#malformed(`the stream could not be decoded: ${String(err)}`);
    }
  }

  #readJson(piece: string): void {
    const length = piece.length;
    const texts = this.#objectTexts;
    let i = 0;
    while (i < length && !this.#done) {
      if (this.#splitter.betweenObjects) {
        // Between objects, plain deltas (most of the stream) are read straight out of the piece.
        i = skipWhitespace(piece, i);
        const delta = this.#plainDeltas.read(piece, i);
        if (delta) {
          this.#take(delta);
          i = this.#plainDeltas.end;
          continue;
        }
      }
      try {
        i = this.#splitter.feed(piece, texts, i, true);
      } finally {
        // Objects before stray text are still the answer's, so they are read before its error surfaces.
        for (const text of texts) if (!this.#done) this.#readObject(text, text);
        texts.length = 0;
      }
    }
  }

  /**
   * Reads SSE text. Where an event starts, one that is a plain delta alone on its `data:` line, with
   * nothing else before its blank line (most of the stream), is read straight out of the piece; all the
   * rest goes through eventsource-parser, cut at blank lines so that it ends up between events again.
   * The parser alone costs about 30% of the time of `JSON.parse` over the same events, which left SSE
   * below the target of 70% of that ceiling (bench/stream-decoding.ts); no other SSE library measured
   * comes close (see docs/benchmarks.md). Blank lines written `\r\n` or `\r` are left to the parser.
   */
  #readSse(piece: string): void {
    const length = piece.length;
    let i = 0;
    while (i < length && !this.#done) {
      if (this.#sseBetweenEvents) {
        const delta = this.#plainSseDeltas.read(piece, i);
        if (delta) {
          this.#take(delta);
          this.#sseLineEnded = true;
          i = this.#plainSseDeltas.end;
          continue;
        }
      }
      const end = this.#sseEventEnd(piece, i);
      const text = end === -1 ? piece.slice(i) : piece.slice(i, end);
      this.#sseBetweenEvents = end !== -1;
      this.#sseLineEnded = text.charCodeAt(text.length - 1) === LF;
      this.#sse.feed(text);
      i = end === -1 ? length : end;
    }
  }

  /** The index just past the blank line ending the event under way at `from`; -1 when it goes on past the piece. */
  #sseEventEnd(piece: string, from: number): number {
    // A line feed closing the previous piece and one opening this piece make a blank line.
    if (from === 0 && this.#sseLineEnded && piece.charCodeAt(0) === LF) return 1;
    const blank = piece.indexOf("\n\n", from);
    return blank === -1 ? -1 : blank + 2;
  }

  /** Reads one SSE event; the parser calls it while fed, so what it throws comes out of `#sse.feed`. */
  #readSseEvent(message: EventSourceMessage): void {
    if (this.#done) return;
    const { data, event } = message;
    if (event === "error") throw errorEventError(this.#options.operation, data.trim(), this.partialText);
    const delta = this.#plainDeltas.read(data, 0);
    if (delta && this.#plainDeltas.end === data.length) {
      this.#take(delta);
      return;
    }
    const trimmed = data.trim();
    if (trimmed === "" || trimmed === "[DONE]" || this.#tryObject(trimmed)) return;
    // One event may carry several objects back to back; only then is the data split.
    for (const text of JsonObjectSplitter.split(trimmed)) if (!this.#done) this.#readObject(text, trimmed);
  }

  /** Reads one object's text; a text that is not JSON fails quoting `context`, unless the body just ended. */
  #readObject(text: string, context: string): void {
    // At the end of the body a cut object is the sign of a cut stream, which `finish` reports as incomplete.
    if (!this.#tryObject(text) && !this.#ending) {
      const quote = context.length > 80 ? `${context.slice(0, 77)}...` : context;
      throw this.#malformed(`a streamed object is not valid JSON: ${JSON.stringify(quote)}`);
    }
  }

  /** Reads one object's text and takes what it stands for; false when the text is not JSON. */
  #tryObject(text: string): boolean {
    let object: AnswerObject;
    try {
      object = readAnswerObject(this.#options.operation, text, () => this.partialText);
    } catch (err) {
      if (err instanceof SyntaxError) return false;
      throw err;
    }
    this.#take(object);
    return true;
  }

  #take(object: AnswerObject): void {
    if (object === undefined) return;
    if (object.type === "plain") this.#events.push(object.delta, object.final);
    else this.#events.push(object);
    if (object.type !== "final") this.#deltaCount++;
    this.#done = object.type !== "delta";
  }

  #malformed(message: string): ChatbotApiError {
    const partialText = this.partialText || undefined;
    return new ChatbotApiError({ operation: this.#options.operation, kind: "malformed", message, partialText });
  }
}

/**
 * How much of `chunk` can end the value under way: up to its last line end in SSE, its last closing brace
 * in JSON; 0 when none. Searched through a `Buffer` view, whose search is several times faster than a
 * `Uint8Array`'s.
 */
function decodableLength(bytes: Buffer, framing: "sse" | "json"): number {
  if (framing === "json") return bytes.lastIndexOf(CLOSING_BRACE) + 1;
  return Math.max(bytes.lastIndexOf(LF), bytes.lastIndexOf(CR)) + 1;
}

/** True for JSON whitespace and for the first byte of a UTF-8 byte order mark (or no byte at all). */
function isBlankOrMark(byte: number | undefined): boolean {
  return byte === undefined || byte === 0x20 || byte === LF || byte === CR || byte === 0x09 || byte === 0xef;
}

/** True when `bytes` hold, after JSON whitespace, the opening brace of an object. */
function opensObject(bytes: Uint8Array): boolean {
  let i = 0;
  while (bytes[i] === 0x20 || bytes[i] === LF || bytes[i] === CR || bytes[i] === 0x09) i++;
  return bytes[i] === 0x7b;
}

/** The framing a body opening with `head` (leading blanks removed) uses, or `undefined` until it can tell. */
function sniff(head: string): "sse" | "json" | undefined {
  if (SSE_OPENINGS.some((opening) => head.startsWith(opening))) return "sse";
  return SSE_OPENINGS.some((opening) => opening.startsWith(head)) ? undefined : "json";
}
