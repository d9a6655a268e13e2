import type SQLite from "better-sqlite3";
import Keyv from "keyv";
import { openSqliteFile } from "../../common/sqlite-file.js";
import type { PathSetting } from "../../common/writable-folder.js";
import { LocalBudgets } from "../reply/budgets/local-budgets.js";
import type { BridgeStore } from "./bridge-store.js";
import { claimTtlMs } from "./claim-ttl.js";
import { SqliteKeyvAdapter } from "./sqlite-keyv-adapter.js";
import { SqliteLeases, SqliteSets } from "./sqlite-leases.js";
import { SqliteSignals } from "./sqlite-signals.js";
import { SqliteVisitorEvents } from "./sqlite-visitor-events.js";
import { SqliteWorkQueue } from "./sqlite-work-queue.js";
import { newHolderId } from "./takers.js";

/** How often expired rows are deleted; until then they already read as absent, so this only bounds the file. */
const SWEEP_INTERVAL_MS = 10 * 60_000;

/**
 * The bridge's state in a SQLite file (created with its directory if missing); `setting` is the variable naming the
 * file, for the error when it cannot be used. Several processes may open the same file: claims are single
 * statements under SQLite's write lock, so exactly one of them wins.
 */
export function openSqliteStore(file: string, namespace: string, setting: PathSetting): BridgeStore {
  const db = openSqliteFile(file, setting);
  try {
    return new SqliteBridgeStore(db, `sqlite:${file}`, namespace);
  } catch (error) {
    db.close();
    throw error;
  }
}

class SqliteBridgeStore implements BridgeStore {
  readonly keyv: Keyv;
  readonly description: string;
  readonly kind = "sqlite";
  readonly work: SqliteWorkQueue;
  readonly leases: SqliteLeases;
  readonly sets: SqliteSets;
  readonly visitorEvents: SqliteVisitorEvents;
  readonly signals: SqliteSignals;
  /** Budgets stay in the process: a SQLite deployment is one process per bot. */
  readonly budgets = new LocalBudgets();
  readonly #db: SQLite.Database;
  readonly #adapter: SqliteKeyvAdapter;
  readonly #namespace: string;
  readonly #claim: SQLite.Statement<{ key: string; expires: number; now: number }>;
  readonly #release: SQLite.Statement<[string]>;
  readonly #deleteExpiredClaims: SQLite.Statement<[number]>;
  readonly #ping: SQLite.Statement<[]>;
  readonly #sweeper: NodeJS.Timeout;

  constructor(db: SQLite.Database, description: string, namespace: string) {
    this.#db = db;
    this.description = description;
    this.#namespace = namespace;
    // The file is opened in WAL mode (see openSqliteFile); NORMAL syncs at checkpoints only, which WAL keeps consistent.
    // Recording work (store.work.enqueue) commits with FULL, so an acknowledged event also survives a power cut.
    db.pragma("synchronous = NORMAL");
    // Another process holding the write lock (a second bridge on the same file) is waited for instead of failing.
    db.pragma("busy_timeout = 5000");
    this.#adapter = new SqliteKeyvAdapter(db, description);
    // Store errors reject the caller's promise: a lost session or a failed write must not look like "no value".
    this.keyv = new Keyv({ store: this.#adapter, namespace, throwOnErrors: true });
    db.exec(
      "CREATE TABLE IF NOT EXISTS bridge_claims (key TEXT PRIMARY KEY, expires INTEGER NOT NULL) STRICT, WITHOUT ROWID",
    );
    // One statement, so atomic: it inserts a new claim or takes over an expired one, and changes nothing (0 rows)
    // while a live claim exists.
    this.#claim = db.prepare(
      `INSERT INTO bridge_claims (key, expires) VALUES (@key, @expires)
       ON CONFLICT (key) DO UPDATE SET expires = excluded.expires WHERE bridge_claims.expires <= @now`,
    );
    this.#release = db.prepare("DELETE FROM bridge_claims WHERE key = ?");
    this.#deleteExpiredClaims = db.prepare("DELETE FROM bridge_claims WHERE expires <= ?");
    this.#ping = db.prepare("SELECT 1");
    const holder = newHolderId();
    const reportError = (error: unknown) => this.keyv.emit("error", error);
    this.work = new SqliteWorkQueue(db, namespace, (key, ttlMs) => this.#claimNow(key, ttlMs), holder, reportError);
    this.leases = new SqliteLeases(db, namespace, holder, reportError);
    this.sets = new SqliteSets(db, namespace);
    this.visitorEvents = new SqliteVisitorEvents(db, namespace, (error) => this.keyv.emit("error", error));
    this.signals = new SqliteSignals(db, namespace, reportError);
    // Sweeping at open removes what expired while the bridge was down.
    this.#sweep();
    this.#sweeper = setInterval(() => this.#sweep(), SWEEP_INTERVAL_MS);
    // The sweep never keeps the process alive on its own.
    this.#sweeper.unref();
  }

  async claimOnce(key: string, ttlMs: number): Promise<boolean> {
    return this.#claimNow(key, ttlMs);
  }

  /** The claim as one statement, also run inside the work queue's enqueue transaction. */
  #claimNow(key: string, ttlMs: number): boolean {
    const now = Date.now();
    return this.#claim.run({ key: this.#claimKey(key), expires: now + claimTtlMs(ttlMs), now }).changes > 0;
  }

  async release(key: string): Promise<void> {
    this.#release.run(this.#claimKey(key));
  }

  async ping(): Promise<void> {
    this.#ping.get();
  }

  async close(): Promise<void> {
    clearInterval(this.#sweeper);
    this.work.close();
    this.leases.close();
    this.visitorEvents.close();
    this.signals.close();
    // Closing the last connection checkpoints the WAL into the database file.
    if (this.#db.open) this.#db.close();
  }

  #claimKey(key: string): string {
    return `${this.#namespace}:${key}`;
  }

  #sweep(): void {
    // A failed sweep (the file is locked for long, the disk is full) is reported and retried at the next
    // interval; reads skip expired rows meanwhile.
    try {
      const now = Date.now();
      this.#adapter.deleteExpired(now);
      this.#deleteExpiredClaims.run(now);
    } catch (error) {
      this.keyv.emit("error", error);
    }
  }
}
