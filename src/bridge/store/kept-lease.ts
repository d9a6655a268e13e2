import { HeldLease, leaseDurationMs } from "./lease-keeper.js";
import type { Lease, Leases } from "./leases.js";

/**
 * The named {@link Leases} of every backend. A backend gives only the three steps its store does
 * ({@link tryTake}, {@link renewHeld}, {@link releaseHeld}, each fenced by the lease's token); this class does what
 * the leases need the same way on every backend: the length checked, each lease renewed and let go as every held
 * lease is ({@link HeldLease}), and the leases held here, ended at {@link close}.
 */
export abstract class KeptLeases implements Leases {
  readonly #kept = new Set<KeptLease>();
  readonly #onError: (error: unknown) => void;

  /** @param onError receives the renewals that failed and are retried, and the releases that failed */
  constructor(onError: (error: unknown) => void) {
    this.#onError = onError;
  }

  async acquire(name: string, ttlMs: number): Promise<Lease | undefined> {
    const length = leaseDurationMs(ttlMs);
    // Read before the take is sent, so the end the keeper counts from it is never later than the store's.
    const takenAt = Date.now();
    const token = await this.tryTake(name, takenAt, length);
    if (token === undefined) return undefined;
    const lease = new KeptLease(this, name, token, takenAt, length, this.#onError);
    this.#kept.add(lease);
    return lease;
  }

  /** Ends the leases held here without touching the store (the store is closing): they expire there. */
  close(): void {
    for (const lease of [...this.#kept]) lease.abandon();
  }

  /** Stops keeping a lease that ended here (released or lost); called by the lease. */
  forget(lease: KeptLease): void {
    this.#kept.delete(lease);
  }

  /**
   * Takes lease `name` for `ttlMs` from `now` when nobody holds it or its holder's lease expired: its fencing token,
   * larger than that of every earlier holder of the name; undefined when another holds it.
   */
  abstract tryTake(name: string, now: number, ttlMs: number): Promise<number | undefined>;

  /** Extends lease `name` to `ttlMs` from now when it is still the live one of `token`; false when it is not. */
  abstract renewHeld(name: string, token: number, ttlMs: number): Promise<boolean>;

  /** Deletes lease `name` when it is still the one of `token`. */
  abstract releaseHeld(name: string, token: number): Promise<void>;
}

/** A named lease taken through a {@link KeptLeases}, renewed by it until released or lost. */
export class KeptLease extends HeldLease implements Lease {
  readonly name: string;
  readonly #leases: KeptLeases;
  readonly #ttlMs: number;

  /** @param takenAt when the request that took it was sent (epoch ms) */
  constructor(
    leases: KeptLeases,
    name: string,
    token: number,
    takenAt: number,
    ttlMs: number,
    onError: (error: unknown) => void,
  ) {
    super(token, ttlMs, takenAt, onError);
    this.name = name;
    this.#leases = leases;
    this.#ttlMs = ttlMs;
  }

  release(): Promise<void> {
    return this.letGo(() => this.#leases.releaseHeld(this.name, this.token));
  }

  protected override renewInStore(): Promise<boolean> {
    return this.#leases.renewHeld(this.name, this.token, this.#ttlMs);
  }

  protected override ended(): void {
    this.#leases.forget(this);
  }
}
