/**
 * Async iterators that hand another iterator's items on without an async generator of their own. Each layer of an
 * answer's events used to be an async generator (the request opened on first use, the first event read ahead, the
 * final recorded as it passes): a thousand answers under way each kept three suspended generators with their
 * frames, promises and closures, about 2 KiB, and every event passed three `yield`s of several promise jobs each.
 * These are plain objects: once open, `next` is the inner iterator's own.
 */

const DONE: IteratorReturnResult<undefined> = Object.freeze({ done: true, value: undefined });

/**
 * The items of the iterator `open` resolves to, opened on the first `next` (as a generator's body runs on its first
 * `next`). A failure to open is thrown by that `next`; after it the iterator is done. `return` before the first
 * `next` opens nothing; `return` while opening waits for the opening and closes what it opened.
 */
export function openedLater<T>(open: () => Promise<AsyncIterator<T>>): AsyncIterableIterator<T> {
  return new OpenedLater(open);
}

class OpenedLater<T> implements AsyncIterableIterator<T> {
  #open: (() => Promise<AsyncIterator<T>>) | undefined;
  #opening: Promise<AsyncIterator<T>> | undefined;
  #inner: AsyncIterator<T> | undefined;
  /** Opening failed or the iterator was closed: nothing more comes. */
  #over = false;

  constructor(open: () => Promise<AsyncIterator<T>>) {
    this.#open = open;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<IteratorResult<T>> {
    if (this.#inner) return this.#inner.next();
    if (this.#over) return Promise.resolve(DONE);
    // Closed while opening: `return` closes what was opened, and nothing is handed out.
    return this.#opened().then((inner) => (inner && !this.#over ? inner.next() : DONE));
  }

  async return(): Promise<IteratorResult<T>> {
    // Over at once: an opening that ends meanwhile hands nothing out.
    this.#over = true;
    this.#open = undefined;
    const inner = this.#inner;
    this.#inner = undefined;
    if (inner) await inner.return?.();
    else if (this.#opening) await this.#closeOpened(this.#opening);
    return DONE;
  }

  async #closeOpened(opening: Promise<AsyncIterator<T>>): Promise<void> {
    const opened = await opening.catch(() => undefined);
    await opened?.return?.();
  }

  #opened(): Promise<AsyncIterator<T>> {
    if (!this.#opening) {
      const open = this.#open as () => Promise<AsyncIterator<T>>;
      this.#open = undefined;
      this.#opening = open().then(
        (inner) => {
          if (!this.#over) this.#inner = inner;
          return inner;
        },
        (error: unknown) => {
          this.#over = true;
          throw error;
        },
      );
    }
    return this.#opening;
  }
}

/**
 * `head` (a result already read from `rest`), then the rest of `rest`'s items: what reading ahead one item took
 * from an iterator, put back.
 */
export function prepended<T>(head: IteratorResult<T>, rest: AsyncIterator<T>): AsyncIterableIterator<T> {
  return new Prepended(head, rest);
}

class Prepended<T> implements AsyncIterableIterator<T> {
  #head: IteratorResult<T> | undefined;
  readonly #rest: AsyncIterator<T>;

  constructor(head: IteratorResult<T>, rest: AsyncIterator<T>) {
    this.#head = head;
    this.#rest = rest;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<IteratorResult<T>> {
    const head = this.#head;
    if (head === undefined) return this.#rest.next();
    // A done head stays: the iterator it came from has nothing more.
    if (!head.done) this.#head = undefined;
    return Promise.resolve(head);
  }

  async return(): Promise<IteratorResult<T>> {
    this.#head = DONE;
    await this.#rest.return?.();
    return DONE;
  }
}

/** `source`'s items, each shown to `see` as it passes (before the consumer gets it). */
export function tapped<T>(source: AsyncIterator<T>, see: (item: T) => void): AsyncIterableIterator<T> {
  return new Tapped(source, see);
}

class Tapped<T> implements AsyncIterableIterator<T> {
  readonly #source: AsyncIterator<T>;
  readonly #pass: (result: IteratorResult<T>) => IteratorResult<T>;

  constructor(source: AsyncIterator<T>, see: (item: T) => void) {
    this.#source = source;
    this.#pass = (result) => {
      if (!result.done) see(result.value);
      return result;
    };
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<IteratorResult<T>> {
    return this.#source.next().then(this.#pass);
  }

  async return(): Promise<IteratorResult<T>> {
    await this.#source.return?.();
    return DONE;
  }
}
