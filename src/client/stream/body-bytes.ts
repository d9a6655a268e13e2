/** A piece of the body as its source hands it over. */
export type Chunk = Uint8Array | string;

/** A chunk this long or longer is kept as it came: copying it would cost more than the view it saves. */
const KEPT_AS_IS = 1024;
const FIRST_TAIL = 1024;
const LARGEST_TAIL = 64 * 1024;

/**
 * The bytes of a body so far. An answer's stream mostly comes in small chunks (one per delta): keeping each as it
 * came held three heap objects per chunk (the view, its ArrayBuffer, the list's slot), about 10 KiB per answer
 * under way for a 1,000-character answer in 50 fragments. Small chunks are therefore copied into a tail buffer
 * (each new tail twice the last, up to 64 KiB), which lives outside the heap; large chunks are kept as they came,
 * since copying megabytes of a long body cost a tenth of the decoding time. Text chunks are kept as their UTF-8
 * bytes, so the body decodes again to the same text (a lone surrogate in a text chunk, which no UTF-8 body can
 * carry, comes back as U+FFFD).
 */
export class BodyBytes {
  readonly #segments: Uint8Array[] = [];
  #tail: Uint8Array | undefined;
  #tailLength = 0;

  /** Appends a chunk. */
  push(chunk: Chunk): void {
    const bytes = typeof chunk === "string" ? Buffer.from(chunk, "utf8") : chunk;
    if (bytes.length >= KEPT_AS_IS) {
      this.#closeTail();
      this.#segments.push(bytes);
      return;
    }
    let tail = this.#tail;
    if (tail === undefined || tail.length - this.#tailLength < bytes.length) {
      const size = tail === undefined ? FIRST_TAIL : Math.min(tail.length * 2, LARGEST_TAIL);
      this.#closeTail();
      tail = this.#tail = new Uint8Array(size);
    }
    tail.set(bytes, this.#tailLength);
    this.#tailLength += bytes.length;
  }

  /** The bytes so far, in order (views, valid until the next push). */
  segments(): Uint8Array[] {
    const tail = this.#tail;
    return tail === undefined ? this.#segments : [...this.#segments, tail.subarray(0, this.#tailLength)];
  }

  #closeTail(): void {
    if (this.#tail === undefined) return;
    this.#segments.push(this.#tail.subarray(0, this.#tailLength));
    this.#tail = undefined;
    this.#tailLength = 0;
  }
}
