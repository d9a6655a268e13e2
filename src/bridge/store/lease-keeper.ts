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

/**
 * What every lease held by this process keeps the same way, named (`KeptLease`) or of a conversation
 * (`KeptConversationLease`): its fencing token, the {@link LeaseKeeper} that renews it and aborts `lost`, and
 * a letting go that runs once, never rejects, and does nothing once the lease is lost. A subclass says how its
 * store renews the lease and what stops tracking it when it ends here.
 */
export abstract class HeldLease {
  /** Fencing token: larger than that of every earlier holder of the lease. */
  readonly token: number;
  /** Aborts with a {@link LeaseLostError} when the lease is lost. */
  readonly lost: AbortSignal;
  readonly #keeper: LeaseKeeper;
  readonly #onError: (error: unknown) => void;
  #released: Promise<void> | undefined;

  /**
   * @param takenAt when the request that took the lease was sent (epoch ms)
   * @param onError receives the renewals that failed and are retried, and the releases that failed
   */
  constructor(token: number, leaseMs: number, takenAt: number, onError: (error: unknown) => void) {
    this.token = token;
    this.#onError = onError;
    this.#keeper = new LeaseKeeper(leaseMs, takenAt, () => this.renewInStore(), onError);
    this.lost = this.#keeper.lost;
    this.lost.addEventListener("abort", () => this.ended(), { once: true });
  }

  /** Ends the lease here without touching the store (the store is closing): it expires there. */
  abandon(): void {
    this.#keeper.lose("the store was closed");
  }

  /** Extends the lease in the store: true when it is still this one (and now extended), false when it is not. */
  protected abstract renewInStore(): Promise<boolean>;

  /** Called once when the lease ends here, released or lost: whoever tracks the leases held here forgets it. */
  protected abstract ended(): void;

  /** True once a release started. */
  protected get releasing(): boolean {
    return this.#released !== undefined;
  }

  /**
   * Lets the lease go: stops renewing, ends it here, then `release` deletes it in the store. Only the first call
   * does it (later ones get its promise); never rejects.
   */
  protected letGo(release: () => Promise<void>): Promise<void> {
    this.#released ??= this.#letGo(release);
    return this.#released;
  }

  /** Stops renewing and aborts `lost` saying why. */
  protected lose(why: string): void {
    this.#keeper.lose(why);
  }

  async #letGo(release: () => Promise<void>): Promise<void> {
    if (this.lost.aborted) return;
    this.#keeper.stop();
    this.ended();
    // A release that fails leaves the lease to expire, which frees it (and hands its work over) all the same.
    await release().catch(this.#onError);
  }
}

/** Checks a lease length: one that is not above zero would end at once. */
export function leaseDurationMs(ms: number): number {
  if (!Number.isFinite(ms) || ms <= 0) throw new RangeError(`a lease needs a length above 0 ms, got ${ms}`);
  return Math.ceil(ms);
}
