import type { AnswerEvent } from "../answer-events.js";
import type { ChatbotApiError } from "../errors.js";
import { transportError } from "../transport-errors.js";
import { AnswerStreamDecoding, type AnswerStreamDecodingOptions } from "./answer-stream-decoding.js";
import type { Chunk } from "./body-bytes.js";

/** What {@link decodeAnswerStream} needs besides the body. */
export interface DecodeAnswerStreamOptions extends AnswerStreamDecodingOptions {
  /** The caller's signal: once aborted, no further event is yielded. */
  signal?: AbortSignal | undefined;
  /**
   * Whether a failure carries in `partialText` the text of the deltas received so far (default true). That text is
   * rebuilt from a copy of the body kept for it (about 3 KB for a 1,000-character answer, per answer under way); a
   * caller that keeps the deltas' text itself passes false and the copy is not kept.
   */
  partialText?: boolean | undefined;
}

/**
 * Decodes the body of a streamed `ClientAsk` into answer events: the deltas, then one final, after which
 * it stops reading. The wire framing is not specified, so it is sniffed from the first non-blank
 * characters: Server-Sent Events (`data:` lines; comments, `event:`, `id:`, `retry:` and `[DONE]` are
 * tolerated), or JSON objects separated by newlines, other whitespace or nothing at all.
 *
 * Throws a {@link ChatbotApiError}: `envelope` for an error envelope in the stream (or an SSE `error`
 * event), `malformed` for text that is not answer objects, `incomplete` when the body ends before the
 * final, and what {@link transportError} makes of a failing source (timeouts, resets, aborts). Every one
 * carries in `partialText` the text of the deltas received so far, unless `options.partialText` is false.
 * Leaving early (the final came, a failure, a consumer that stopped) releases the body.
 */
export function decodeAnswerStream(
  source: AsyncIterable<Chunk>,
  options: DecodeAnswerStreamOptions,
): AsyncIterableIterator<AnswerEvent> {
  return new AnswerEventIterator(source, options);
}

const DONE: IteratorReturnResult<undefined> = Object.freeze({ done: true, value: undefined });

/**
 * The events of one streamed answer, handed out one by one. Written by hand rather than as an async
 * generator: a generator's `yield` costs several promise jobs, and with a delta every few characters that
 * was a third of the decoding time (180,000 events: about 58 ms through a generator, 14 ms here). Events
 * already decoded go out at the price of one resolved promise; only reading the next chunk, failing and
 * closing take the slow path, which also serializes calls made without waiting for the previous one.
 */
class AnswerEventIterator implements AsyncIterableIterator<AnswerEvent> {
  readonly #source: AsyncIterable<Chunk>;
  readonly #options: DecodeAnswerStreamOptions;
  readonly #decoding: AnswerStreamDecoding;
  #iterator: AsyncIterator<Chunk> | undefined;
  /** Events decoded and not handed out yet, from {@link #next} on. */
  #events: AnswerEvent[] = [];
  #next = 0;
  /** What to throw once the events before it are out. */
  #failure: ChatbotApiError | undefined;
  /** The final came or the body ended: nothing is left to read. */
  #decoded = false;
  /** Nothing is left to hand out either; the body was released or had ended. */
  #closed = false;
  /** The body's iterator finished or failed by itself, so there is nothing to release. */
  #ended = false;
  /** Calls on the slow path, under way or waiting their turn: while there are any, later calls queue behind them. */
  #slow = 0;
  /** The last call on the slow path, which the next one waits for. */
  #last: Promise<IteratorResult<AnswerEvent>> | undefined;

  constructor(source: AsyncIterable<Chunk>, options: DecodeAnswerStreamOptions) {
    this.#source = source;
    this.#options = options;
    this.#decoding = new AnswerStreamDecoding(options, options.partialText !== false);
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<IteratorResult<AnswerEvent>> {
    if (this.#slow === 0 && this.#next < this.#events.length && !this.#options.signal?.aborted) {
      return Promise.resolve({ done: false, value: this.#events[this.#next++] as AnswerEvent });
    }
    return this.#serialized(false);
  }

  /** Stops early: releases the body unless it already ended. */
  return(): Promise<IteratorResult<AnswerEvent>> {
    return this.#serialized(true);
  }

  /**
   * Advances, or closes, once the slow calls before it are done. Each counts itself out when it ends, so a chunk read
   * costs no `finally` promise, and only a call that has to wait its turn makes a closure.
   */
  #serialized(closing: boolean): Promise<IteratorResult<AnswerEvent>> {
    const previous = this.#slow > 0 ? this.#last : undefined;
    this.#slow += 1;
    let result: Promise<IteratorResult<AnswerEvent>>;
    if (previous) {
      const step = () => (closing ? this.#return() : this.#advance());
      result = previous.then(step, step);
    } else result = closing ? this.#return() : this.#advance();
    this.#last = result;
    return result;
  }

  async #return(): Promise<IteratorResult<AnswerEvent>> {
    try {
      await this.#close();
      return DONE;
    } finally {
      this.#slow -= 1;
    }
  }

  /** The next event, reading chunks until one is decoded; throws the failure once the events before it are out. */
  async #advance(): Promise<IteratorResult<AnswerEvent>> {
    try {
      const { signal } = this.#options;
      for (;;) {
        if (this.#closed) return DONE;
        // A plain iterable knows nothing of the caller's signal; undici's body would throw by itself.
        if (signal?.aborted) {
          await this.#close();
          throw transportError(this.#options.operation, signal.reason, {
            signal,
            partialText: this.#decoding.partialText,
          });
        }
        if (this.#next < this.#events.length) return { done: false, value: this.#events[this.#next++] as AnswerEvent };
        if (this.#failure) {
          await this.#close();
          throw this.#failure;
        }
        if (this.#decoded) {
          await this.#close();
          return DONE;
        }
        // Reads one chunk of the body (or its end) and takes the events it completes; here rather than in a method of
        // its own, which cost an async frame per chunk.
        this.#iterator ??= this.#source[Symbol.asyncIterator]();
        let next: IteratorResult<Chunk>;
        try {
          next = await this.#iterator.next();
        } catch (err) {
          this.#ended = this.#closed = true;
          throw transportError(this.#options.operation, err, {
            signal: this.#options.signal,
            partialText: this.#decoding.partialText,
          });
        }
        if (next.done) {
          this.#ended = true;
          this.#decoding.finish();
        } else {
          this.#decoding.push(next.value);
        }
        const { events, failure, done } = this.#decoding.take();
        this.#events = events;
        this.#next = 0;
        this.#failure = failure;
        this.#decoded = done || this.#ended;
      }
    } finally {
      this.#slow -= 1;
    }
  }

  async #close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#events = [];
    this.#next = 0;
    if (!this.#ended && this.#iterator) await this.#iterator.return?.();
  }
}
