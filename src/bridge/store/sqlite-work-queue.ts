import type SQLite from "better-sqlite3";
import {
  jsonText,
  KeptConversationLease,
  type LeasedConversation,
  type StoredWorkItem,
} from "./kept-conversation-lease.js";
import { type Taker, Takers, takerOf } from "./takers.js";
import { ConversationWatchers, wakeUp } from "./wake-up.js";
import type { ConversationLease, NewWorkItem, TakeOptions, WorkQueue, WorkStats } from "./work-queue.js";

/**
 * How often a waiting taker (or a holder waiting for more) looks at the file for what other processes did: work
 * they recorded or released, and leases that expired. Work recorded or released by this process wakes it at once.
 */
export const SQLITE_POLL_MS = 250;

/**
 * The tables, in the store's file. Items keep their arrival order in `seq` (AUTOINCREMENT, so a number is never
 * used twice and "recorded after" is "a larger seq"). A conversation's row holds its lease (holder, fencing token,
 * expiry), the marker of a lease taken and not released (`held`) and when its oldest item arrived
 * (`waiting_since`, NULL when it has none); the row goes once it has no items, lease or marker. Fencing tokens
 * come from one counter per namespace in `bridge_fences`, so they keep growing after a conversation's row went.
 */
const SCHEMA = `
CREATE TABLE IF NOT EXISTS bridge_work_items (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  ns TEXT NOT NULL,
  id TEXT NOT NULL,
  conversation TEXT NOT NULL,
  payload TEXT NOT NULL,
  enqueued_at INTEGER NOT NULL,
  UNIQUE (ns, id)
) STRICT;
CREATE INDEX IF NOT EXISTS bridge_work_items_by_conversation ON bridge_work_items (ns, conversation, seq);
CREATE TABLE IF NOT EXISTS bridge_work_conversations (
  ns TEXT NOT NULL,
  conversation TEXT NOT NULL,
  waiting_since INTEGER,
  holder TEXT,
  token INTEGER,
  expires INTEGER NOT NULL DEFAULT 0,
  held INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (ns, conversation)
) STRICT, WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS bridge_work_conversations_waiting
  ON bridge_work_conversations (ns, waiting_since) WHERE waiting_since IS NOT NULL;
CREATE INDEX IF NOT EXISTS bridge_work_conversations_free
  ON bridge_work_conversations (ns, waiting_since) WHERE waiting_since IS NOT NULL AND expires = 0;
CREATE INDEX IF NOT EXISTS bridge_work_conversations_lapsing
  ON bridge_work_conversations (ns, expires) WHERE waiting_since IS NOT NULL AND expires > 0;
CREATE TABLE IF NOT EXISTS bridge_work_ledger (
  ns TEXT NOT NULL,
  conversation TEXT NOT NULL,
  job TEXT NOT NULL,
  record TEXT NOT NULL,
  PRIMARY KEY (ns, conversation, job)
) STRICT, WITHOUT ROWID;
`;

/** Returns the next fencing token of counter `key` (one statement: atomic under the write lock). */
export function nextFence(db: SQLite.Database): (key: string) => number {
  db.exec(
    "CREATE TABLE IF NOT EXISTS bridge_fences (key TEXT PRIMARY KEY, last INTEGER NOT NULL) STRICT, WITHOUT ROWID",
  );
  const statement = db.prepare<[string], { last: number }>(
    `INSERT INTO bridge_fences (key, last) VALUES (?, 1)
     ON CONFLICT (key) DO UPDATE SET last = last + 1 RETURNING last`,
  );
  return (key) => (statement.get(key) as { last: number }).last;
}

/** An enqueue waiting for its group commit. */
interface PendingEnqueue {
  item: NewWorkItem;
  payload: string;
  dedupTtlMs: number;
  resolve: (recorded: boolean) => void;
  reject: (error: unknown) => void;
}

/** A conversation with work waiting and no live lease. */
interface Available {
  conversation: string;
  held: number;
  waiting_since: number;
}

interface Row {
  ns: string;
  conversation: string;
}

/**
 * The work queue in the store's SQLite file, shared by every process that opens it. Each step that reads and then
 * writes is one `BEGIN IMMEDIATE` transaction (the write lock first, so two processes never both decide on what
 * they read).
 *
 * Durability: `enqueue` resolves once its transaction is committed with `synchronous = FULL` (the WAL synced to
 * disk), so an acknowledged event survives a power cut, not only a killed process; that sync also makes every
 * earlier commit durable. The store's other writes (ledger, leases, Keyv) keep the connection's `NORMAL`, which in
 * WAL mode survives `kill -9` but may lose the last commits in a power cut: then an answer may be repeated, but no
 * event is lost. Measured (bench/work-queue.ts, ext4 on a virtual disk): a FULL commit ~0.15 ms at the median
 * against ~0.03 ms for NORMAL on a quiet disk, but several milliseconds when the disk is busy, and each one blocks the
 * process. So enqueues group-commit: those asked for in one turn of the event loop (a burst of webhooks) are
 * committed together in one transaction, with one sync, once the turn's I/O is read; each still resolves only
 * after that commit, with its own outcome.
 *
 * Takers here are woken at once by work recorded or released in this process, and look for other processes'
 * work every {@link SQLITE_POLL_MS}.
 */
export class SqliteWorkQueue implements WorkQueue {
  readonly #ns: string;
  readonly #holder: string;
  readonly #onError: (error: unknown) => void;
  readonly #takers = new Takers();
  readonly #watchers = new ConversationWatchers();
  readonly #leases = new Set<KeptConversationLease>();
  readonly #nextFence: (key: string) => number;
  readonly #enqueueAll: SQLite.Transaction<(batch: PendingEnqueue[]) => boolean[]>;
  readonly #acquire: SQLite.Transaction<
    (taker: Taker) => { conversation: string; token: number; resumed: boolean } | undefined
  >;
  readonly #writeLedger: SQLite.Transaction<(row: Row, token: number, job: string, record: string) => boolean>;
  readonly #complete: SQLite.Transaction<(row: Row, token: number, itemIds: string[], jobIds: string[]) => boolean>;
  readonly #release: SQLite.Transaction<(row: Row, token: number, keepResumed: boolean) => void>;
  readonly #statements;
  readonly #db: SQLite.Database;
  /** The connection's own `PRAGMA synchronous`, restored after each enqueue's FULL commit. */
  readonly #ownSync: number;
  #pollTimer: NodeJS.Timeout | undefined;
  #closed = false;
  /** Enqueues waiting for the next group commit, in the order they were asked for. */
  #pending: PendingEnqueue[] = [];

  /**
   * @param claim the store's own claim statement (so `enqueue` and `claimOnce` agree on every id); it runs
   *   inside the enqueue transaction
   */
  constructor(
    db: SQLite.Database,
    namespace: string,
    claim: (key: string, ttlMs: number) => boolean,
    holder: string,
    onError: (error: unknown) => void,
  ) {
    this.#ns = namespace;
    this.#holder = holder;
    this.#onError = onError;
    db.exec(SCHEMA);
    this.#db = db;
    this.#ownSync = Number(db.pragma("synchronous", { simple: true }));
    this.#nextFence = nextFence(db);
    const s = {
      insertItem: db.prepare<{ ns: string; id: string; conversation: string; payload: string; at: number }>(
        `INSERT INTO bridge_work_items (ns, id, conversation, payload, enqueued_at)
         VALUES (@ns, @id, @conversation, @payload, @at) ON CONFLICT (ns, id) DO NOTHING`,
      ),
      markWaiting: db.prepare<{ ns: string; conversation: string; at: number }>(
        `INSERT INTO bridge_work_conversations (ns, conversation, waiting_since) VALUES (@ns, @conversation, @at)
         ON CONFLICT (ns, conversation) DO UPDATE SET waiting_since = coalesce(waiting_since, excluded.waiting_since)`,
      ),
      // The next conversation to lease is the longest waiting among those with no lease and those whose lease
      // lapsed. Two statements, each on its own partial index, so that finding it does not read past the
      // conversations held meanwhile (a burst of 1,000 held at once made one statement over the waiting rows read
      // them all on every take: 0.74 ms of CPU per take).
      free: db.prepare<[string], Available>(
        `SELECT conversation, held, waiting_since FROM bridge_work_conversations
         WHERE ns = ? AND waiting_since IS NOT NULL AND expires = 0 ORDER BY waiting_since LIMIT 1`,
      ),
      lapsed: db.prepare<[string, number], Available>(
        `SELECT conversation, held, waiting_since FROM bridge_work_conversations
         WHERE ns = ? AND waiting_since IS NOT NULL AND expires > 0 AND expires <= ?
         ORDER BY waiting_since LIMIT 1`,
      ),
      lease: db.prepare<Row & { holder: string; token: number; expires: number }>(
        `UPDATE bridge_work_conversations SET holder = @holder, token = @token, expires = @expires, held = 1
         WHERE ns = @ns AND conversation = @conversation`,
      ),
      renew: db.prepare<Row & { token: number; now: number; expires: number }>(
        `UPDATE bridge_work_conversations SET expires = @expires
         WHERE ns = @ns AND conversation = @conversation AND token = @token AND expires > @now`,
      ),
      live: db.prepare<Row & { token: number; now: number }>(
        `SELECT 1 FROM bridge_work_conversations
         WHERE ns = @ns AND conversation = @conversation AND token = @token AND expires > @now`,
      ),
      pending: db.prepare<Row & { limit: number }, { id: string; payload: string; enqueued_at: number }>(
        `SELECT id, payload, enqueued_at FROM bridge_work_items
         WHERE ns = @ns AND conversation = @conversation ORDER BY seq LIMIT @limit`,
      ),
      lastSeq: db.prepare<Row, { seq: number | null }>(
        "SELECT max(seq) AS seq FROM bridge_work_items WHERE ns = @ns AND conversation = @conversation",
      ),
      readLedger: db.prepare<Row & { job: string }, { record: string }>(
        "SELECT record FROM bridge_work_ledger WHERE ns = @ns AND conversation = @conversation AND job = @job",
      ),
      writeLedger: db.prepare<Row & { job: string; record: string }>(
        `INSERT INTO bridge_work_ledger (ns, conversation, job, record) VALUES (@ns, @conversation, @job, @record)
         ON CONFLICT (ns, conversation, job) DO UPDATE SET record = excluded.record`,
      ),
      deleteItem: db.prepare<Row & { id: string }>(
        "DELETE FROM bridge_work_items WHERE ns = @ns AND conversation = @conversation AND id = @id",
      ),
      deleteLedger: db.prepare<Row & { job: string }>(
        "DELETE FROM bridge_work_ledger WHERE ns = @ns AND conversation = @conversation AND job = @job",
      ),
      refreshWaiting: db.prepare<Row>(
        `UPDATE bridge_work_conversations SET waiting_since = (
           SELECT enqueued_at FROM bridge_work_items WHERE ns = @ns AND conversation = @conversation
           ORDER BY seq LIMIT 1)
         WHERE ns = @ns AND conversation = @conversation`,
      ),
      release: db.prepare<Row & { token: number; now: number; keep: number }>(
        `UPDATE bridge_work_conversations SET holder = NULL, token = NULL, expires = 0, held = held * @keep
         WHERE ns = @ns AND conversation = @conversation AND token = @token AND expires > @now`,
      ),
      forgetIdle: db.prepare<Row>(
        `DELETE FROM bridge_work_conversations WHERE ns = @ns AND conversation = @conversation
         AND waiting_since IS NULL AND held = 0 AND expires = 0`,
      ),
      itemCount: db.prepare<[string], { items: number }>(
        "SELECT count(*) AS items FROM bridge_work_items WHERE ns = ?",
      ),
      waitingStats: db.prepare<[string], { conversations: number; oldest: number | null }>(
        `SELECT count(*) AS conversations, min(waiting_since) AS oldest FROM bridge_work_conversations
         WHERE ns = ? AND waiting_since IS NOT NULL`,
      ),
    };
    this.#statements = s;
    const enqueueOne = ({ item, payload, dedupTtlMs }: PendingEnqueue, at: number): boolean => {
      if (!claim(item.id, dedupTtlMs)) return false;
      const row = { ns: this.#ns, conversation: item.conversation };
      // An id still waiting is a re-delivery even when its claim expired meanwhile.
      if (s.insertItem.run({ ...row, id: item.id, payload, at }).changes === 0) return false;
      s.markWaiting.run({ ...row, at });
      return true;
    };
    this.#enqueueAll = db.transaction((batch: PendingEnqueue[]) => {
      const at = Date.now();
      return batch.map((pending) => enqueueOne(pending, at));
    });
    this.#acquire = db.transaction((taker: Taker) => {
      const now = Date.now();
      const found = this.#available(now);
      if (!found) return undefined;
      const token = this.#nextFence(`${this.#ns}:work`);
      s.lease.run({
        ns: this.#ns,
        conversation: found.conversation,
        holder: taker.holder,
        token,
        expires: now + taker.leaseMs,
      });
      return { conversation: found.conversation, token, resumed: found.held === 1 };
    });
    this.#writeLedger = db.transaction((row: Row, token: number, job: string, record: string) => {
      if (!s.live.get({ ...row, token, now: Date.now() })) return false;
      s.writeLedger.run({ ...row, job, record });
      return true;
    });
    this.#complete = db.transaction((row: Row, token: number, itemIds: string[], jobIds: string[]) => {
      if (!s.live.get({ ...row, token, now: Date.now() })) return false;
      for (const id of itemIds) s.deleteItem.run({ ...row, id });
      for (const job of jobIds) s.deleteLedger.run({ ...row, job });
      s.refreshWaiting.run(row);
      return true;
    });
    this.#release = db.transaction((row: Row, token: number, keepResumed: boolean) => {
      if (s.release.run({ ...row, token, now: Date.now(), keep: keepResumed ? 1 : 0 }).changes > 0) {
        s.forgetIdle.run(row);
      }
    });
  }

  async enqueue(item: NewWorkItem, dedupTtlMs: number): Promise<boolean> {
    if (this.#closed) throw new Error("the SQLite store is closed");
    const payload = jsonText(item.payload, "a work item's payload");
    return new Promise<boolean>((resolve, reject) => {
      this.#pending.push({ item, payload, dedupTtlMs, resolve, reject });
      // After this turn's I/O callbacks: every webhook read in this turn joins the same commit.
      if (this.#pending.length === 1) setImmediate(() => this.#commitPending());
    });
  }

  /** Commits the enqueues waiting, in one transaction with one sync, then settles each with its outcome. */
  #commitPending(): void {
    const batch = this.#pending;
    this.#pending = [];
    if (batch.length === 0) return;
    let recorded: boolean[];
    try {
      if (this.#closed) throw new Error("the SQLite store is closed");
      // Safety levels change between transactions only, and take effect when the PRAGMA is compiled (so it is not a
      // reusable prepared statement). The three steps run without a break: no other write of this connection
      // commits under FULL by accident.
      this.#db.pragma("synchronous = FULL");
      try {
        recorded = this.#enqueueAll.immediate(batch);
      } finally {
        this.#db.pragma(`synchronous = ${this.#ownSync}`);
      }
    } catch (error) {
      for (const pending of batch) pending.reject(error);
      return;
    }
    for (const [k, pending] of batch.entries()) {
      if (recorded[k]) this.#watchers.notify(pending.item.conversation);
      pending.resolve(recorded[k] === true);
    }
    if (recorded.some(Boolean)) this.#offer();
  }

  async take(signal: AbortSignal, options?: TakeOptions): Promise<ConversationLease | undefined> {
    if (this.#closed) throw new Error("the SQLite store is closed");
    const waiting = this.#takers.wait(signal, takerOf(options, this.#holder));
    this.#offer();
    return waiting;
  }

  async stats(): Promise<WorkStats> {
    const { items } = this.#statements.itemCount.get(this.#ns) as { items: number };
    const { conversations, oldest } = this.#statements.waitingStats.get(this.#ns) as {
      conversations: number;
      oldest: number | null;
    };
    return { items, conversations, oldestEnqueuedAt: oldest ?? undefined };
  }

  /** Rejects the waiting takers and ends the leases held here, before the file is closed (they expire there). */
  close(): void {
    // Enqueues asked for before the close are committed with it (the file is still open), not refused.
    this.#commitPending();
    this.#closed = true;
    clearTimeout(this.#pollTimer);
    this.#takers.failAll(new Error("the SQLite store is closed"));
    for (const lease of [...this.#leases]) lease.abandon();
  }

  /** The conversation waiting longest among those with no live lease, if any. */
  #available(now: number): Available | undefined {
    const free = this.#statements.free.get(this.#ns);
    const lapsed = this.#statements.lapsed.get(this.#ns, now);
    if (!free || !lapsed) return free ?? lapsed;
    return lapsed.waiting_since < free.waiting_since ? lapsed : free;
  }

  /** Leases available conversations to the waiting takers; while some still wait, looks again after a poll. */
  #offer(): void {
    clearTimeout(this.#pollTimer);
    this.#pollTimer = undefined;
    if (this.#closed) return;
    try {
      for (let taker = this.#takers.first; taker; taker = this.#takers.first) {
        // A plain read first: an idle poll takes no write lock.
        if (!this.#available(Date.now())) break;
        const acquired = this.#acquire.immediate(taker);
        if (!acquired) break;
        this.#takers.serve(taker, this.#lease(acquired, taker, Date.now()));
      }
    } catch (error) {
      // A file locked past busy_timeout or a full disk: the next poll tries again.
      this.#onError(error);
    }
    if (this.#takers.size > 0) this.#pollTimer = setTimeout(() => this.#offer(), SQLITE_POLL_MS);
  }

  #lease(
    acquired: { conversation: string; token: number; resumed: boolean },
    taker: Taker,
    takenAt: number,
  ): KeptConversationLease {
    const s = this.#statements;
    const row: Row = { ns: this.#ns, conversation: acquired.conversation };
    const { token } = acquired;
    const leased: LeasedConversation = {
      ...acquired,
      takenAt,
      leaseMs: taker.leaseMs,
      renew: async () => {
        const now = Date.now();
        return s.renew.run({ ...row, token, now, expires: now + taker.leaseMs }).changes > 0;
      },
      pending: async (limit) =>
        s.pending.all({ ...row, limit: limit ?? -1 }).map(
          (item): StoredWorkItem => ({
            id: item.id,
            conversation: row.conversation,
            payload: item.payload,
            enqueuedAt: item.enqueued_at,
          }),
        ),
      waitForMore: (timeoutMs, signal) => this.#waitForMore(row, timeoutMs, signal),
      readLedger: async (job) => s.readLedger.get({ ...row, job })?.record,
      writeLedger: async (job, record) => this.#writeLedger.immediate(row, token, job, record),
      complete: async (itemIds, jobIds) => this.#complete.immediate(row, token, itemIds, jobIds),
      release: async (keepResumed) => {
        this.#release.immediate(row, token, keepResumed);
        this.#offer();
      },
    };
    const lease = new KeptConversationLease(leased, (ended) => this.#leases.delete(ended), this.#onError);
    this.#leases.add(lease);
    return lease;
  }

  /** Woken by this process's enqueue at once, and by another's at the next look at the file. */
  #waitForMore(row: Row, timeoutMs: number, signal: AbortSignal): Promise<void> {
    const lastSeq = () => this.#statements.lastSeq.get(row)?.seq ?? 0;
    const before = lastSeq();
    return wakeUp(timeoutMs, signal, (wake) => {
      const unwatch = this.#watchers.watch(row.conversation, wake);
      const poll = setInterval(() => {
        try {
          if (lastSeq() > before) wake();
        } catch (error) {
          this.#onError(error);
        }
      }, SQLITE_POLL_MS);
      return () => {
        clearInterval(poll);
        unwatch();
      };
    });
  }
}
