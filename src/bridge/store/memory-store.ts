import Keyv from "keyv";
import { LocalBudgets } from "../reply/budgets/local-budgets.js";
import type { BridgeStore } from "./bridge-store.js";
import { claimTtlMs } from "./claim-ttl.js";
import { MemoryLeases, MemorySets } from "./memory-leases.js";
import { MemorySignals } from "./memory-signals.js";
import { MemoryVisitorEvents } from "./memory-visitor-events.js";
import { MemoryWorkQueue } from "./memory-work-queue.js";
import { newHolderId } from "./takers.js";

/** Claims between two sweeps of the expired ones; reading a claim already ignores its expiry having passed. */
const CLAIMS_PER_SWEEP = 1_000;

/**
 * The bridge's state in this process only (STORE_URL=memory://), for tests: it is lost on exit and not shared
 * with a second process. Claims are atomic because JavaScript runs one claim to completion before the next.
 */
export function openMemoryStore(namespace: string): BridgeStore {
  return new MemoryBridgeStore(namespace);
}

/** Keyv's default Map store, except that it refuses use after close like the SQLite and Redis stores do. */
class ClosableMap extends Map<string, unknown> {
  closed = false;

  override get(key: string): unknown {
    this.#checkOpen();
    return super.get(key);
  }

  override set(key: string, value: unknown): this {
    this.#checkOpen();
    return super.set(key, value);
  }

  override has(key: string): boolean {
    this.#checkOpen();
    return super.has(key);
  }

  override delete(key: string): boolean {
    this.#checkOpen();
    return super.delete(key);
  }

  #checkOpen(): void {
    if (this.closed) throw new Error("the memory store is closed");
  }
}

class MemoryBridgeStore implements BridgeStore {
  readonly keyv: Keyv;
  readonly description = "memory";
  readonly kind = "memory";
  readonly work = new MemoryWorkQueue(
    (key, ttlMs) => this.#claim(key, ttlMs),
    newHolderId(),
    (error) => this.keyv.emit("error", error),
  );
  readonly leases = new MemoryLeases(
    () => this.#checkOpen(),
    (error) => this.keyv.emit("error", error),
  );
  readonly sets = new MemorySets(() => this.#checkOpen());
  readonly budgets = new LocalBudgets();
  readonly visitorEvents = new MemoryVisitorEvents();
  readonly signals = new MemorySignals((error) => this.keyv.emit("error", error));
  readonly #values = new ClosableMap();
  /** Claimed key → expiry in epoch milliseconds. */
  readonly #claims = new Map<string, number>();
  #claimsSinceSweep = 0;

  constructor(namespace: string) {
    this.keyv = new Keyv({ store: this.#values, namespace, throwOnErrors: true });
  }

  async claimOnce(key: string, ttlMs: number): Promise<boolean> {
    return this.#claim(key, ttlMs);
  }

  #claim(key: string, ttlMs: number): boolean {
    this.#checkOpen();
    const now = Date.now();
    const expires = now + claimTtlMs(ttlMs);
    if (++this.#claimsSinceSweep >= CLAIMS_PER_SWEEP) this.#sweep(now);
    const current = this.#claims.get(key);
    if (current !== undefined && current > now) return false;
    this.#claims.set(key, expires);
    return true;
  }

  async release(key: string): Promise<void> {
    this.#checkOpen();
    this.#claims.delete(key);
  }

  async ping(): Promise<void> {
    this.#checkOpen();
  }

  async close(): Promise<void> {
    this.visitorEvents.close();
    this.signals.close();
    this.work.close();
    this.leases.close();
    this.#values.clear();
    this.#values.closed = true;
    this.#claims.clear();
  }

  #checkOpen(): void {
    if (this.#values.closed) throw new Error("the memory store is closed");
  }

  #sweep(now: number): void {
    this.#claimsSinceSweep = 0;
    for (const [key, expires] of this.#claims) if (expires <= now) this.#claims.delete(key);
  }
}
