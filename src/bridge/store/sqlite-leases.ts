import type SQLite from "better-sqlite3";
import { KeptLeases } from "./kept-lease.js";
import type { MemberSets } from "./leases.js";
import { nextFence } from "./sqlite-work-queue.js";

/**
 * Named leases in the store's SQLite file, one row per name (`<namespace>:<name>`) while held; fencing tokens
 * come from `bridge_fences` (`<namespace>:lease:<name>`), so they keep growing across holders.
 */
export class SqliteLeases extends KeptLeases {
  readonly #ns: string;
  readonly #holder: string;
  readonly #take: SQLite.Transaction<(name: string, now: number, ttlMs: number) => number | undefined>;
  readonly #renew: SQLite.Statement<{ key: string; token: number; now: number; expires: number }>;
  readonly #release: SQLite.Statement<{ key: string; token: number }>;

  constructor(db: SQLite.Database, namespace: string, holder: string, onError: (error: unknown) => void) {
    super(onError);
    this.#ns = namespace;
    this.#holder = holder;
    db.exec(
      `CREATE TABLE IF NOT EXISTS bridge_leases (
         key TEXT PRIMARY KEY, holder TEXT NOT NULL, token INTEGER NOT NULL, expires INTEGER NOT NULL
       ) STRICT, WITHOUT ROWID`,
    );
    const fence = nextFence(db);
    const live = db.prepare<[string, number]>("SELECT 1 FROM bridge_leases WHERE key = ? AND expires > ?");
    const upsert = db.prepare<{ key: string; holder: string; token: number; expires: number }>(
      `INSERT INTO bridge_leases (key, holder, token, expires) VALUES (@key, @holder, @token, @expires)
       ON CONFLICT (key) DO UPDATE SET holder = excluded.holder, token = excluded.token, expires = excluded.expires`,
    );
    this.#take = db.transaction((name: string, now: number, ttlMs: number) => {
      const key = this.#key(name);
      if (live.get(key, now)) return undefined;
      const token = fence(`${this.#ns}:lease:${name}`);
      upsert.run({ key, holder: this.#holder, token, expires: now + ttlMs });
      return token;
    });
    this.#renew = db.prepare(
      "UPDATE bridge_leases SET expires = @expires WHERE key = @key AND token = @token AND expires > @now",
    );
    this.#release = db.prepare("DELETE FROM bridge_leases WHERE key = @key AND token = @token");
  }

  async tryTake(name: string, now: number, ttlMs: number): Promise<number | undefined> {
    return this.#take.immediate(name, now, ttlMs);
  }

  async renewHeld(name: string, token: number, ttlMs: number): Promise<boolean> {
    const now = Date.now();
    return this.#renew.run({ key: this.#key(name), token, now, expires: now + ttlMs }).changes > 0;
  }

  async releaseHeld(name: string, token: number): Promise<void> {
    this.#release.run({ key: this.#key(name), token });
  }

  #key(name: string): string {
    return `${this.#ns}:${name}`;
  }
}

/** Member sets in the store's SQLite file: one row per member, so each add or remove is one atomic statement. */
export class SqliteSets implements MemberSets {
  readonly #ns: string;
  readonly #add: SQLite.Statement<[string, string]>;
  readonly #remove: SQLite.Statement<[string, string]>;
  readonly #members: SQLite.Statement<[string], string>;

  constructor(db: SQLite.Database, namespace: string) {
    this.#ns = namespace;
    db.exec(
      `CREATE TABLE IF NOT EXISTS bridge_sets (
         key TEXT NOT NULL, member TEXT NOT NULL, PRIMARY KEY (key, member)
       ) STRICT, WITHOUT ROWID`,
    );
    this.#add = db.prepare("INSERT INTO bridge_sets (key, member) VALUES (?, ?) ON CONFLICT DO NOTHING");
    this.#remove = db.prepare("DELETE FROM bridge_sets WHERE key = ? AND member = ?");
    this.#members = db.prepare<[string], string>("SELECT member FROM bridge_sets WHERE key = ?").pluck();
  }

  async add(set: string, member: string): Promise<void> {
    this.#add.run(this.#key(set), member);
  }

  async remove(set: string, member: string): Promise<void> {
    this.#remove.run(this.#key(set), member);
  }

  async members(set: string): Promise<string[]> {
    return this.#members.all(this.#key(set));
  }

  #key(set: string): string {
    return `${this.#ns}:${set}`;
  }
}
