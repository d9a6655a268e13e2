import type SQLite from "better-sqlite3";
import { SignalListeners } from "./signal-listeners.js";
import type { SignalListener, SignalSubscription, Signals } from "./signals.js";

/**
 * How often the file is checked for signals of other processes, while someone here listens. The check reads
 * `PRAGMA data_version` (which only moves when another connection commits), so an idle one costs next to nothing.
 */
const POLL_INTERVAL_MS = 250;
/** Signals are kept this long for the processes polling the file, then deleted by the next publish. */
const KEPT_MS = 60_000;

interface SignalRow {
  id: number;
  topic: string;
  message: string;
}

/**
 * Signals through the SQLite file, heard by the processes that open the same file: each publish is a row of
 * `bridge_signals` (deleting the rows older than {@link KEPT_MS} in the same transaction). This process's listeners
 * hear its own publishes at once; other processes', within {@link POLL_INTERVAL_MS}. Each process reads the rows
 * after the last one it delivered, so nothing published while it listens is skipped or heard twice (ids come from
 * AUTOINCREMENT: never reused, even after the newest rows were deleted).
 */
export class SqliteSignals implements Signals {
  readonly #db: SQLite.Database;
  readonly #namespace: string;
  readonly #listeners: SignalListeners;
  readonly #onError: (error: unknown) => void;
  readonly #publish: SQLite.Transaction<(topic: string, message: string) => void>;
  readonly #after: SQLite.Statement<{ namespace: string; after: number }, SignalRow>;
  readonly #lastId: SQLite.Statement<[], { id: number }>;
  /** The id up to which signals were delivered here, while someone listens. */
  #cursor: number | undefined;
  #poller: NodeJS.Timeout | undefined;
  /** `PRAGMA data_version` when the signals were last read. */
  #dataVersion = -1;
  #pollFailing = false;

  /** `onError` hears of background failures (a poll of the file, a listener that throws); a failing poll once. */
  constructor(db: SQLite.Database, namespace: string, onError: (error: unknown) => void) {
    this.#db = db;
    this.#namespace = namespace;
    this.#onError = onError;
    this.#listeners = new SignalListeners(onError);
    db.exec(`
      CREATE TABLE IF NOT EXISTS bridge_signals (
        id INTEGER PRIMARY KEY AUTOINCREMENT, namespace TEXT NOT NULL, topic TEXT NOT NULL, message TEXT NOT NULL,
        at INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX IF NOT EXISTS bridge_signals_at ON bridge_signals (at);
    `);
    const prune = db.prepare<[number]>("DELETE FROM bridge_signals WHERE at <= ?");
    const insert = db.prepare<{ namespace: string; topic: string; message: string; at: number }>(
      "INSERT INTO bridge_signals (namespace, topic, message, at) VALUES (@namespace, @topic, @message, @at)",
    );
    this.#publish = db.transaction((topic: string, message: string) => {
      const at = Date.now();
      prune.run(at - KEPT_MS);
      insert.run({ namespace, topic, message, at });
    });
    this.#after = db.prepare(
      "SELECT id, topic, message FROM bridge_signals WHERE id > @after AND namespace = @namespace ORDER BY id",
    );
    this.#lastId = db.prepare("SELECT coalesce(max(id), 0) AS id FROM bridge_signals");
  }

  async publish(topic: string, message: string): Promise<void> {
    this.#publish.immediate(topic, message);
    // Read back rather than delivered as is: another process may have published just before, and its signal comes
    // first. The signal is recorded either way, so a failed read leaves it to the next poll.
    if (this.#cursor === undefined) return;
    try {
      this.#catchUp();
    } catch (error) {
      this.#dataVersion = -1;
      this.#onError(error);
    }
  }

  subscribe(topic: string, listener: SignalListener): SignalSubscription {
    if (this.#cursor === undefined) {
      this.#cursor = this.#lastId.get()?.id ?? 0;
      this.#poller = setInterval(() => this.#poll(), POLL_INTERVAL_MS);
      // What listens keeps the process alive (or not); the poll alone must not.
      this.#poller.unref();
    } else {
      // Brings the others up to date first, so the newcomer hears only what comes after it subscribed.
      this.#catchUp();
    }
    const remove = this.#listeners.add(topic, listener);
    return {
      live: Promise.resolve(),
      unsubscribe: () => {
        remove();
        if (this.#listeners.empty) this.#stopPolling();
      },
    };
  }

  /** Stops the poll and forgets every listener; the caller closes the database. */
  close(): void {
    this.#stopPolling();
    this.#listeners.clear();
  }

  #poll(): void {
    try {
      const version = this.#db.pragma("data_version", { simple: true }) as number;
      if (version === this.#dataVersion) return;
      this.#catchUp();
      this.#dataVersion = version;
      this.#pollFailing = false;
    } catch (error) {
      // The file is busy or failing: nothing was delivered past the cursor, so the next tick catches up.
      if (!this.#pollFailing) this.#onError(error);
      this.#pollFailing = true;
    }
  }

  #catchUp(): void {
    if (this.#cursor === undefined) return;
    for (const row of this.#after.all({ namespace: this.#namespace, after: this.#cursor })) {
      // A listener may have been the last one and left: nothing is delivered past that.
      if (this.#cursor === undefined) return;
      this.#cursor = row.id;
      this.#listeners.deliver(row.topic, row.message);
    }
  }

  #stopPolling(): void {
    clearInterval(this.#poller);
    this.#poller = undefined;
    this.#cursor = undefined;
    this.#dataVersion = -1;
  }
}
