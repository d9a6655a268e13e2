import type SQLite from "better-sqlite3";
import {
  checkRetention,
  type LoggedVisitorEvent,
  nextVisitorEventId,
  type VisitorEvent,
  type VisitorEventRetention,
  type VisitorEvents,
  type VisitorSubscription,
} from "./visitor-events.js";
import { VisitorListeners } from "./visitor-listeners.js";

/**
 * How often the file is checked for events other processes appended, while a visitor's stream is open here. The
 * check reads `PRAGMA data_version` (which only moves when another connection commits), so an idle one costs
 * next to nothing.
 */
const POLL_INTERVAL_MS = 250;
/** How often expired logs are deleted; until then they already read as absent, so this only bounds the file. */
const SWEEP_INTERVAL_MS = 10 * 60_000;
/** The message column of the one transient (typing) row a visitor has: message ids are never empty. */
const TRANSIENT = "";

interface EventRow {
  id: number;
  message: string;
  data: string;
}

/**
 * The web chat's event log in the SQLite file, shared by the processes that open the same file. One row per kept
 * message holding its latest event, plus one row for the latest transient event, and one row per visitor with its
 * last id and expiry. An append is one IMMEDIATE transaction, so ids are handed out in commit order across
 * processes. This process's subscribers get an append of this process at once; those of other processes, within
 * {@link POLL_INTERVAL_MS} (several changes of one message in that time arrive as its latest state).
 */
export class SqliteVisitorEvents implements VisitorEvents {
  readonly #db: SQLite.Database;
  readonly #namespace: string;
  readonly #listeners = new VisitorListeners();
  /** Per visitor listened to here: the id up to which its events were delivered. */
  readonly #cursors = new Map<string, number>();
  readonly #append: SQLite.Transaction<
    (visitor: string, event: VisitorEvent, retention: VisitorEventRetention) => number
  >;
  readonly #since: SQLite.Statement<{ visitor: string; after: number; now: number }, EventRow>;
  readonly #after: SQLite.Statement<{ visitor: string; after: number }, EventRow>;
  readonly #lastId: SQLite.Statement<[string], { lastId: number }>;
  readonly #sweepExpired: () => void;
  readonly #onError: (error: unknown) => void;
  readonly #sweeper: NodeJS.Timeout;
  #poller: NodeJS.Timeout | undefined;
  /** `PRAGMA data_version` when the subscribed visitors were last read. */
  #dataVersion = -1;
  #pollFailing = false;

  /**
   * `onError` hears of background failures (a sweep, a poll of the file), which are retried; a series of failed
   * polls is reported once.
   */
  constructor(db: SQLite.Database, namespace: string, onError: (error: unknown) => void) {
    this.#db = db;
    this.#namespace = namespace;
    this.#onError = onError;
    db.exec(`
      CREATE TABLE IF NOT EXISTS bridge_visitors (
        visitor TEXT PRIMARY KEY, last_id INTEGER NOT NULL, expires INTEGER NOT NULL
      ) STRICT, WITHOUT ROWID;
      CREATE INDEX IF NOT EXISTS bridge_visitors_expires ON bridge_visitors (expires);
      CREATE TABLE IF NOT EXISTS bridge_visitor_events (
        visitor TEXT NOT NULL, message TEXT NOT NULL, id INTEGER NOT NULL, data TEXT NOT NULL,
        PRIMARY KEY (visitor, message)
      ) STRICT, WITHOUT ROWID;
      CREATE INDEX IF NOT EXISTS bridge_visitor_events_id ON bridge_visitor_events (visitor, id);
    `);
    const visitorRow = db.prepare<[string], { lastId: number; expires: number }>(
      "SELECT last_id AS lastId, expires FROM bridge_visitors WHERE visitor = ?",
    );
    const forgetEvents = db.prepare<[string]>("DELETE FROM bridge_visitor_events WHERE visitor = ?");
    const touchVisitor = db.prepare<{ visitor: string; id: number; expires: number }>(
      `INSERT INTO bridge_visitors (visitor, last_id, expires) VALUES (@visitor, @id, @expires)
       ON CONFLICT (visitor) DO UPDATE SET last_id = excluded.last_id, expires = excluded.expires`,
    );
    const putEvent = db.prepare<EventRow & { visitor: string }>(
      `INSERT INTO bridge_visitor_events (visitor, message, id, data) VALUES (@visitor, @message, @id, @data)
       ON CONFLICT (visitor, message) DO UPDATE SET id = excluded.id, data = excluded.data`,
    );
    // Drops the messages older than the newest `keep`: the subquery is the id of the first one too many, if any.
    const trim = db.prepare<{ visitor: string; keep: number }>(
      `DELETE FROM bridge_visitor_events WHERE visitor = @visitor AND message <> '' AND id <= (
         SELECT id FROM bridge_visitor_events WHERE visitor = @visitor AND message <> ''
         ORDER BY id DESC LIMIT 1 OFFSET @keep)`,
    );
    this.#append = db.transaction((visitor: string, event: VisitorEvent, retention: VisitorEventRetention) => {
      const now = Date.now();
      const previous = visitorRow.get(visitor);
      // An expired log is forgotten before the new event starts a fresh one; its last id still bounds the next.
      if (previous && previous.expires <= now) forgetEvents.run(visitor);
      const id = nextVisitorEventId(previous?.lastId, now);
      touchVisitor.run({ visitor, id, expires: now + retention.idleMs });
      putEvent.run({ visitor, message: event.message ?? TRANSIENT, id, data: JSON.stringify(event.data) });
      if (event.message !== undefined) trim.run({ visitor, keep: retention.messages });
      return id;
    });
    this.#since = db.prepare(
      `SELECT e.id, e.message, e.data FROM bridge_visitor_events e JOIN bridge_visitors v USING (visitor)
       WHERE e.visitor = @visitor AND e.message <> '' AND e.id > @after AND v.expires > @now ORDER BY e.id`,
    );
    this.#after = db.prepare(
      "SELECT id, message, data FROM bridge_visitor_events WHERE visitor = @visitor AND id > @after ORDER BY id",
    );
    this.#lastId = db.prepare("SELECT last_id AS lastId FROM bridge_visitors WHERE visitor = ?");
    const deleteExpiredEvents = db.prepare<[number]>(
      "DELETE FROM bridge_visitor_events WHERE visitor IN (SELECT visitor FROM bridge_visitors WHERE expires <= ?)",
    );
    const deleteExpiredVisitors = db.prepare<[number]>("DELETE FROM bridge_visitors WHERE expires <= ?");
    this.#sweepExpired = db.transaction(() => {
      const now = Date.now();
      deleteExpiredEvents.run(now);
      deleteExpiredVisitors.run(now);
    });
    this.#sweep();
    this.#sweeper = setInterval(() => this.#sweep(), SWEEP_INTERVAL_MS);
    this.#sweeper.unref();
  }

  async append(visitor: string, event: VisitorEvent, retention: VisitorEventRetention): Promise<number> {
    checkRetention(retention);
    // IMMEDIATE takes the write lock before reading the last id, so two processes never hand out the same one.
    const id = this.#append.immediate(this.#key(visitor), event, retention);
    // Read back rather than delivered as is: another process may have committed an event just before this one.
    // The event is recorded either way, so a failed read leaves it to the next poll instead of failing the append.
    if (this.#listeners.has(visitor)) {
      try {
        this.#catchUp(visitor);
      } catch (error) {
        this.#dataVersion = -1;
        this.#onError(error);
      }
    }
    return id;
  }

  async since(visitor: string, afterId: number | undefined): Promise<LoggedVisitorEvent[]> {
    return this.#since.all({ visitor: this.#key(visitor), after: afterId ?? 0, now: Date.now() }).map(logged);
  }

  async subscribe(visitor: string, listener: (event: LoggedVisitorEvent) => void): Promise<VisitorSubscription> {
    if (this.#listeners.has(visitor)) {
      // Brings the others up to date first, so the newcomer gets only what comes after it subscribed.
      this.#catchUp(visitor);
    } else {
      this.#cursors.set(visitor, this.#lastId.get(this.#key(visitor))?.lastId ?? 0);
    }
    const subscription = this.#listeners.add(visitor, listener, () => {
      this.#cursors.delete(visitor);
      if (this.#cursors.size === 0) this.#stopPolling();
    });
    if (!this.#poller) {
      this.#poller = setInterval(() => this.#poll(), POLL_INTERVAL_MS);
      // The open event streams keep the process alive; the poll alone must not.
      this.#poller.unref();
    }
    return subscription;
  }

  /** Stops the timers and ends every subscription; the caller closes the database. */
  close(): void {
    clearInterval(this.#sweeper);
    this.#stopPolling();
    this.#cursors.clear();
    this.#listeners.loseAll(new Error("the store closed"));
  }

  #poll(): void {
    try {
      const version = this.#db.pragma("data_version", { simple: true }) as number;
      if (version === this.#dataVersion) return;
      for (const visitor of this.#listeners.visitors()) this.#catchUp(visitor);
      // Only once every visitor was read: a failed read is tried again at the next tick.
      this.#dataVersion = version;
      this.#pollFailing = false;
    } catch (error) {
      // The file is busy or failing: nothing was delivered past the cursors, so the next tick catches up.
      if (!this.#pollFailing) this.#onError(error);
      this.#pollFailing = true;
    }
  }

  #catchUp(visitor: string): void {
    const cursor = this.#cursors.get(visitor);
    if (cursor === undefined) return;
    for (const row of this.#after.all({ visitor: this.#key(visitor), after: cursor })) {
      this.#cursors.set(visitor, row.id);
      this.#listeners.deliver(visitor, logged(row));
    }
  }

  #stopPolling(): void {
    clearInterval(this.#poller);
    this.#poller = undefined;
    this.#dataVersion = -1;
  }

  #sweep(): void {
    try {
      this.#sweepExpired();
    } catch (error) {
      // Retried at the next interval; reads skip expired logs meanwhile.
      this.#onError(error);
    }
  }

  #key(visitor: string): string {
    return `${this.#namespace}:${visitor}`;
  }
}

function logged(row: EventRow): LoggedVisitorEvent {
  return { id: row.id, message: row.message === TRANSIENT ? undefined : row.message, data: JSON.parse(row.data) };
}
