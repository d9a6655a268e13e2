import type { RedisClientType } from "@keyv/redis";
import type Keyv from "keyv";
import type { BudgetStore } from "../reply/budgets/budget-store.js";
import type { Leases, MemberSets } from "./leases.js";
import type { Signals } from "./signals.js";
import type { VisitorEvents } from "./visitor-events.js";
import type { WorkQueue } from "./work-queue.js";

/**
 * Where the bridge keeps its state, shared by every process on the same store: small values in Keyv (sessions,
 * greetings, transcripts, handoffs), the at-most-once record of platform events, the durable per-conversation work
 * with its leases and answer ledger, named leases and named sets. One interface over SQLite, Redis and memory; the
 * core's key prefixes are listed in `key-prefixes.ts`, each other user's in a keys file of its own.
 * `open-bridge-store.ts` opens one.
 */
export interface BridgeStore {
  /** Which backend this is, for /readyz and the banner. */
  readonly kind: "sqlite" | "redis" | "memory";
  /** The durable work: every acknowledged event until it is answered. */
  readonly work: WorkQueue;
  /** Leases of what runs in one process at a time. */
  readonly leases: Leases;
  /** Sets shared by every process. */
  readonly sets: MemberSets;
  /** The platform budgets the pacers spend from: shared by every process on Redis, this process's otherwise. */
  readonly budgets: BudgetStore;
  /** The web chat's events per visitor, replayed to reconnecting pages and delivered to every process. */
  readonly visitorEvents: VisitorEvents;
  /** A broadcast every process on the store hears (the user's stop of an answer under way). */
  readonly signals: Signals;
  /**
   * Keyv for plain key/value state (sessions etc.), namespaced. Its operations reject when the backend fails;
   * background failures (a Redis reconnect, a failed SQLite sweep) are emitted as its "error" event.
   */
  readonly keyv: Keyv;
  /**
   * On Redis only: the store's client and the prefix of its keys (`<namespace>:`), for state that a library keeps in
   * Redis by itself (the web chat's rate limits) and that must be shared like the rest. Such keys start with the
   * prefix and one of the user's keys (adapters/web/store-keys.ts). Undefined on SQLite and memory, whose state one
   * process owns.
   */
  readonly redis?: { readonly client: RedisClientType; readonly keyPrefix: string } | undefined;
  /** Atomically records `key` unless present; true when this call recorded it (first time). */
  claimOnce(key: string, ttlMs: number): Promise<boolean>;
  /** Releases a claim (e.g. when processing failed before anything was sent and a retry should be allowed). */
  release(key: string): Promise<void>;
  /** Cheap round trip for readiness checks. */
  ping(): Promise<void>;
  /**
   * Flushes and closes connections/files. Waiting `work.take` calls reject; leases held through this store end here
   * (their `lost` aborts) without being released, so they expire in the store and others take over after them.
   */
  close(): Promise<void>;
  /** Human description without secrets, e.g. "sqlite:/data/bridge.db", "redis://127.0.0.1:6379", "memory". */
  readonly description: string;
}
