import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import type { ConversationLease, TakeOptions } from "./work-queue.js";

/** The default lease length of {@link WorkQueue.take}. */
export const DEFAULT_LEASE_MS = 15_000;

/** One call of `take` waiting for a conversation. */
export interface Taker {
  readonly leaseMs: number;
  readonly holder: string;
}

/**
 * A waiting call. The taker is kept apart from the call's callbacks: a lease keeps its taker (for its length) while
 * held, and should not keep the finished call's promise callbacks and abort listener with it.
 */
interface Waiting {
  readonly taker: Taker;
  resolve(lease: ConversationLease | undefined): void;
  reject(error: unknown): void;
  signal: AbortSignal;
  onAbort(): void;
}

/**
 * The calls of `take` waiting in one store, oldest first: the backend offers each conversation it leases to the
 * first. A taker whose signal aborts leaves at once with undefined.
 */
export class Takers {
  readonly #waiting: Waiting[] = [];

  /** Waits for a lease to be offered to this taker; undefined when `signal` aborts first. */
  wait(signal: AbortSignal, taker: Taker): Promise<ConversationLease | undefined> {
    if (signal.aborted) return Promise.resolve(undefined);
    return new Promise((resolve, reject) => {
      const waiting: Waiting = {
        taker,
        resolve,
        reject,
        signal,
        onAbort: () => {
          this.#remove(waiting);
          resolve(undefined);
        },
      };
      signal.addEventListener("abort", waiting.onAbort, { once: true });
      this.#waiting.push(waiting);
    });
  }

  /** The taker waiting longest. */
  get first(): Taker | undefined {
    return this.#waiting[0]?.taker;
  }

  /** The taker waiting longest with the same holder and lease length as `like` (itself, if it still waits). */
  firstLike(like: Taker): Taker | undefined {
    return this.#waiting.find(({ taker }) => taker.holder === like.holder && taker.leaseMs === like.leaseMs)?.taker;
  }

  get size(): number {
    return this.#waiting.length;
  }

  /** Hands `lease` to `taker`; false when it stopped waiting meanwhile (the lease is then the caller's to let go). */
  serve(taker: Taker, lease: ConversationLease): boolean {
    const waiting = this.#waiting.find((candidate) => candidate.taker === taker);
    if (!waiting) return false;
    this.#remove(waiting);
    waiting.resolve(lease);
    return true;
  }

  /** Rejects every waiting taker (the store is closing). */
  failAll(error: Error): void {
    for (const waiting of this.#waiting.splice(0)) {
      waiting.signal.removeEventListener("abort", waiting.onAbort);
      waiting.reject(error);
    }
  }

  #remove(waiting: Waiting): void {
    waiting.signal.removeEventListener("abort", waiting.onAbort);
    const index = this.#waiting.indexOf(waiting);
    if (index >= 0) this.#waiting.splice(index, 1);
  }
}

/** The lease length and holder of a `take`, with the defaults filled in. */
export function takerOf(options: TakeOptions | undefined, defaultHolder: string): Taker {
  const leaseMs = options?.leaseMs ?? DEFAULT_LEASE_MS;
  if (!Number.isFinite(leaseMs) || leaseMs <= 0) throw new RangeError(`take needs a lease above 0 ms, got ${leaseMs}`);
  return { leaseMs: Math.ceil(leaseMs), holder: options?.holder ?? defaultHolder };
}

/** A name for the leases of one store instance: the host and process, and a random part for several stores. */
export function newHolderId(): string {
  return `${hostname()}:${process.pid}:${randomBytes(3).toString("hex")}`;
}
