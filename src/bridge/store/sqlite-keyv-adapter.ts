import { EventEmitter } from "node:events";
import type { Database, Statement } from "better-sqlite3";
import type { KeyvStoreAdapter, StoredData } from "keyv";

/** Rows read per iterator page: each page is one finished query, so no statement stays open across a yield. */
const PAGE_SIZE = 100;

interface Row {
  key: string;
  value: string;
}

/**
 * A Keyv 5 store adapter on a better-sqlite3 database (instead of @keyv/sqlite, which builds a second native
 * SQLite). One row per key — Keyv's namespaced key and its serialized value — with the expiry in its own column,
 * so an expired row reads as absent without parsing the value and {@link deleteExpired} removes them in one
 * statement. The caller owns the database: it sets the pragmas, sweeps, and closes it.
 */
export class SqliteKeyvAdapter extends EventEmitter implements KeyvStoreAdapter {
  /** Set by Keyv; {@link clear} and {@link iterator} keep to the keys it prefixes. */
  namespace?: string | undefined;
  /** Keyv only wires up `keyv.iterator()` for adapters whose `opts.dialect` it knows. */
  readonly opts: { dialect: "sqlite"; url: string };
  readonly #get: Statement<[string, number], Row>;
  readonly #getMany: Statement<[string, number], Row>;
  readonly #has: Statement<[string, number], unknown>;
  readonly #set: Statement<[string, string, number | null]>;
  readonly #delete: Statement<[string]>;
  readonly #deleteMany: Statement<[string]>;
  readonly #clearPrefix: Statement<{ prefix: string }>;
  readonly #clearAll: Statement<[]>;
  readonly #page: Statement<{ after: string; prefix: string; now: number; limit: number }, Row>;
  readonly #deleteExpired: Statement<[number]>;

  constructor(db: Database, url: string) {
    super();
    this.opts = { dialect: "sqlite", url };
    db.exec(`
      CREATE TABLE IF NOT EXISTS keyv_entries (key TEXT PRIMARY KEY, value TEXT NOT NULL, expires INTEGER) STRICT, WITHOUT ROWID;
      CREATE INDEX IF NOT EXISTS keyv_entries_expires ON keyv_entries (expires) WHERE expires IS NOT NULL;
    `);
    const live = "(expires IS NULL OR expires > ?)";
    this.#get = db.prepare(`SELECT key, value FROM keyv_entries WHERE key = ? AND ${live}`);
    // Several keys go in as one JSON array parameter, so one prepared statement serves any number of them.
    this.#getMany = db.prepare(
      `SELECT key, value FROM keyv_entries WHERE key IN (SELECT value FROM json_each(?)) AND ${live}`,
    );
    this.#has = db.prepare(`SELECT 1 FROM keyv_entries WHERE key = ? AND ${live}`);
    this.#set = db.prepare(
      `INSERT INTO keyv_entries (key, value, expires) VALUES (?, ?, ?)
       ON CONFLICT (key) DO UPDATE SET value = excluded.value, expires = excluded.expires`,
    );
    this.#delete = db.prepare("DELETE FROM keyv_entries WHERE key = ?");
    this.#deleteMany = db.prepare("DELETE FROM keyv_entries WHERE key IN (SELECT value FROM json_each(?))");
    this.#clearPrefix = db.prepare("DELETE FROM keyv_entries WHERE substr(key, 1, length(@prefix)) = @prefix");
    this.#clearAll = db.prepare("DELETE FROM keyv_entries");
    this.#page = db.prepare(
      `SELECT key, value FROM keyv_entries
       WHERE key > @after AND substr(key, 1, length(@prefix)) = @prefix AND (expires IS NULL OR expires > @now)
       ORDER BY key LIMIT @limit`,
    );
    this.#deleteExpired = db.prepare("DELETE FROM keyv_entries WHERE expires <= ?");
  }

  // Keyv hands over the string its serializer made and parses it back itself; the generic only mirrors its types.
  /** The stored (serialized) value, or undefined when absent or expired. */
  async get<Value>(key: string): Promise<StoredData<Value> | undefined> {
    return this.#get.get(key, Date.now())?.value as StoredData<Value> | undefined;
  }

  /** The stored values in the order of `keys`, undefined for absent or expired ones. */
  async getMany<Value>(keys: string[]): Promise<Array<StoredData<Value | undefined>>> {
    const found = new Map(this.#getMany.all(JSON.stringify(keys), Date.now()).map((row) => [row.key, row.value]));
    return keys.map((key) => found.get(key) as StoredData<Value | undefined>);
  }

  /** Whether `key` holds a value that has not expired. */
  async has(key: string): Promise<boolean> {
    return this.#has.get(key, Date.now()) !== undefined;
  }

  /** Stores the serialized value; `ttl` in milliseconds, none (or 0) for no expiry. */
  async set(key: string, value: string, ttl?: number): Promise<void> {
    this.#set.run(key, value, ttl !== undefined && ttl > 0 ? Date.now() + ttl : null);
  }

  /** Removes `key`; true when there was a row. */
  async delete(key: string): Promise<boolean> {
    return this.#delete.run(key).changes > 0;
  }

  /** Removes `keys`; true when any row was removed. */
  async deleteMany(keys: string[]): Promise<boolean> {
    return this.#deleteMany.run(JSON.stringify(keys)).changes > 0;
  }

  /** Removes every key of the namespace, or every key when there is no namespace. */
  async clear(): Promise<void> {
    if (this.namespace) this.#clearPrefix.run({ prefix: `${this.namespace}:` });
    else this.#clearAll.run();
  }

  /** Yields `[key, serialized value]` for the live keys of `namespace` (all keys without one), in key order. */
  async *iterator<Value>(namespace?: string): AsyncGenerator<Array<string | Awaited<Value> | undefined>, void> {
    const prefix = namespace ? `${namespace}:` : "";
    let after = "";
    for (;;) {
      const rows = this.#page.all({ after, prefix, now: Date.now(), limit: PAGE_SIZE });
      for (const row of rows) yield [row.key, row.value as Awaited<Value>];
      const last = rows.at(-1);
      if (!last || rows.length < PAGE_SIZE) return;
      after = last.key;
    }
  }

  /** Deletes the rows whose expiry has passed; returns how many. */
  deleteExpired(now = Date.now()): number {
    return this.#deleteExpired.run(now).changes;
  }
}
