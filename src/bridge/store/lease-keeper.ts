import { LeaseLostError } from "./work-queue.js";

/** What a backend does to extend a lease: true when it is still ours (and now extended), false when it is not. */
export type Renew = () => Promise<boolean>;

/**
 * Keeps a lease (of a conversation or a named one) alive: renews it every third of its length and aborts
 * {@link lost} when a renewal finds it gone or taken over, or when no renewal succeeded before the lease ends (the
 * store unreachable, or this process stalled past it). The end is counted from when the last successful renewal
 * was sent, which is never later than the store's own expiry, so a holder learns it lost the lease before another
 * can take it, unless its clock or event loop stood still.
 */
export class LeaseKeeper {
  readonly lost: AbortSignal;
  readonly #controller = new AbortController();
  readonly #leaseMs: number;
  readonly #renew: Renew;
  readonly #onError: (error: unknown) => void;
  #deadline: number;
  #renewTimer: NodeJS.Timeout | undefined;
  #deadlineTimer: NodeJS.Timeout | undefined;
  #stopped = false;

  /**
   * @param confirmedAt when the request that took the lease was sent (epoch ms)
   * @param onError receives the failures of renewals that are retried (the store unreachable for a moment)
   */
  constructor(leaseMs: number, confirmedAt: number, renew: Renew, onError: (error: unknown) => void) {
    this.lost = this.#controller.signal;
    this.#leaseMs = leaseMs;
    this.#renew = renew;
    this.#onError = onError;
    this.#deadline = confirmedAt + leaseMs;
    this.#armDeadline();
    this.#scheduleRenewal();
  }

  /** Stops renewing (at release); `lost` stays as it is. */
  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#renewTimer);
    clearTimeout(this.#deadlineTimer);
  }

  /** Stops renewing and aborts `lost` with a {@link LeaseLostError} saying why. */
  lose(why: string): void {
    if (this.#stopped) return;
    this.stop();
    this.#controller.abort(new LeaseLostError(why));
  }

  #scheduleRenewal(): void {
    // Neither timer keeps the process alive: a process with nothing else to do has nothing to hold a lease for.
    this.#renewTimer = setTimeout(() => void this.#renewNow(), this.#leaseMs / 3).unref();
  }

  #armDeadline(): void {
    clearTimeout(this.#deadlineTimer);
    this.#deadlineTimer = setTimeout(
      () => this.lose("the lease ended before a renewal reached the store"),
      Math.max(0, this.#deadline - Date.now()),
    ).unref();
  }

  async #renewNow(): Promise<void> {
    // After a stall (a blocked event loop) the renewal runs late: the lease may already belong to another.
    if (Date.now() >= this.#deadline) return this.lose("the lease ended before it could be renewed");
    const sentAt = Date.now();
    let ours: boolean;
    try {
      ours = await this.#renew();
    } catch (error) {
      if (this.#stopped) return;
      // Retried at the next interval; the deadline timer ends the lease if none succeeds in time.
      this.#onError(error);
      this.#scheduleRenewal();
      return;
    }
    if (this.#stopped) return;
    if (!ours) return this.lose("the lease expired or was taken over");
    this.#deadline = sentAt + this.#leaseMs;
    this.#armDeadline();
    this.#scheduleRenewal();
  }
}

/** Checks a lease length: one that is not above zero would end at once. */
export function leaseDurationMs(ms: number): number {
  if (!Number.isFinite(ms) || ms <= 0) throw new RangeError(`a lease needs a length above 0 ms, got ${ms}`);
  return Math.ceil(ms);
}
