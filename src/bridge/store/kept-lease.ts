import { LeaseKeeper } from "./lease-keeper.js";
import type { Lease } from "./leases.js";

/** What a backend does for a named lease it took; {@link KeptLease} adds the renewal and `lost`. */
export interface TakenLease {
  readonly name: string;
  readonly token: number;
  /** When the request that took it was sent (epoch ms). */
  readonly takenAt: number;
  readonly ttlMs: number;
  /** Extends it when it is still this one; false otherwise. */
  renew(): Promise<boolean>;
  /** Deletes it when it is still this one. */
  release(): Promise<void>;
}

/** The {@link Lease} of every backend, over that backend's {@link TakenLease}. */
export class KeptLease implements Lease {
  readonly name: string;
  readonly token: number;
  readonly lost: AbortSignal;
  readonly #taken: TakenLease;
  readonly #keeper: LeaseKeeper;
  readonly #onEnd: (lease: KeptLease) => void;
  readonly #onError: (error: unknown) => void;
  #released: Promise<void> | undefined;

  constructor(taken: TakenLease, onEnd: (lease: KeptLease) => void, onError: (error: unknown) => void) {
    this.name = taken.name;
    this.token = taken.token;
    this.#taken = taken;
    this.#onEnd = onEnd;
    this.#onError = onError;
    this.#keeper = new LeaseKeeper(taken.ttlMs, taken.takenAt, () => taken.renew(), onError);
    this.lost = this.#keeper.lost;
    this.lost.addEventListener("abort", () => onEnd(this), { once: true });
  }

  release(): Promise<void> {
    this.#released ??= this.#letGo();
    return this.#released;
  }

  /** Ends the lease here without touching the store (the store is closing): it expires there. */
  abandon(): void {
    this.#keeper.lose("the store was closed");
  }

  async #letGo(): Promise<void> {
    if (this.lost.aborted) return;
    this.#keeper.stop();
    this.#onEnd(this);
    // Never rejects: a release that fails leaves the lease to expire, which frees it all the same.
    await this.#taken.release().catch(this.#onError);
  }
}
