import type Keyv from "keyv";
import type { Logger } from "../common/log.js";
import { MAIL_OUTBOX_CLAIM_PREFIX, MAIL_OUTBOX_ENTRY_PREFIX, MAIL_OUTBOX_INDEX_KEY } from "./outbox-keys.js";
import { type Mail, MailError, type Mailer } from "./smtp-mailer.js";

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;

/** How long an id is remembered: longer than any platform re-delivers an event, and than a mail is retried. */
const SUBMIT_CLAIM_TTL_MS = 8 * DAY_MS;

/** When the outbox tries a failed mail again, and when it gives up. */
export interface MailRetryPolicy {
  /** The wait after the 1st, 2nd, … failed attempt; the last one repeats. */
  delaysMs: readonly number[];
  /** A mail still failing this long after it was submitted is given up. */
  giveUpAfterMs: number;
  /** How often {@link MailOutbox.start} looks for mails that are due. */
  passIntervalMs: number;
}

/** 30 s, 2 min, 10 min, 30 min, then hourly, for 3 days, looking every 15 s: what a real mail server needs. */
export const DEFAULT_MAIL_RETRY: MailRetryPolicy = {
  delaysMs: [30_000, 2 * MINUTE_MS, 10 * MINUTE_MS, 30 * MINUTE_MS, HOUR_MS],
  giveUpAfterMs: 3 * DAY_MS,
  passIntervalMs: 15_000,
};

const INDEX_KEY = MAIL_OUTBOX_INDEX_KEY;
const entryKey = (id: string) => `${MAIL_OUTBOX_ENTRY_PREFIX}${id}`;
const claimKey = (id: string) => `${MAIL_OUTBOX_CLAIM_PREFIX}${id}`;

/**
 * What a submitter keeps with its mail to act on once the mail's fate is known (which conversation to tell, and
 * what): stored with the mail, so it outlives a restart, and handed back to the outbox's listener.
 */
export type MailNote = Readonly<Record<string, string>>;

/**
 * A mail whose fate a retry decided: accepted by the server (`sent`), or given up (`failed`, refused for good or
 * still failing at the deadline), with the note it was submitted with.
 */
export type SettledMail =
  | { id: string; outcome: "sent"; note: MailNote | undefined }
  | { id: string; outcome: "failed"; note: MailNote | undefined; error: MailError };

/** Hears about each mail a retry settled; see {@link MailOutbox.onSettled}. */
export type SettledMailListener = (settled: SettledMail) => Promise<void>;

/** A mail waiting in the outbox, as stored. */
interface OutboxEntry {
  id: string;
  mail: Mail;
  note?: MailNote | undefined;
  createdAt: number;
  /** Orders mails submitted in the same millisecond by one process. */
  seq?: number | undefined;
  /** Attempts made so far (0 while the first one is under way). */
  attempts: number;
  nextAttemptAt: number;
}

/** A mail waiting for another attempt, as {@link MailOutbox.pending} lists it. */
export interface PendingMail {
  id: string;
  to: string;
  subject: string;
  attempts: number;
  nextAttemptAt: number;
}

/**
 * What the outbox keeps its mails in (the bridge store, shared by every process): key/value state, the shared set
 * of pending ids, and claims of the ids submitted.
 */
export interface OutboxStore {
  readonly keyv: Keyv;
  readonly sets: {
    add(set: string, member: string): Promise<void>;
    remove(set: string, member: string): Promise<void>;
    members(set: string): Promise<string[]>;
  };
  claimOnce(key: string, ttlMs: number): Promise<boolean>;
  release(key: string): Promise<void>;
}

/** What the outbox counts: mails by outcome, and those waiting for a retry. */
export interface OutboxMetrics {
  readonly mails: { inc(labels: { outcome: "sent" | "failed" | "retry" }): void };
  readonly mailsPending: { set(value: number): void };
}

/** What {@link MailOutbox} works with. */
export interface MailOutboxDeps {
  store: OutboxStore;
  mailer: Mailer;
  log: Logger;
  metrics: OutboxMetrics;
  /** The clock, in epoch milliseconds (tests move it instead of waiting). */
  now?: () => number;
  /** Changes to {@link DEFAULT_MAIL_RETRY} (tests shorten the waits). */
  retry?: Partial<MailRetryPolicy> | undefined;
}

/** What one attempt came to; `failed` means given up. */
type Attempt = { outcome: "sent" } | { outcome: "retry" } | { outcome: "failed"; error: MailError };

/**
 * Mails that must not be lost: each is stored in the bridge store before it is sent, stays there until the mail
 * server accepts it, and is retried with backoff ({@link DEFAULT_MAIL_RETRY}: 30 s, 2 min, 10 min, 30 min, then
 * hourly) for up to 3 days, by the retry pass of whichever process runs it (one at a time: see BackgroundPasses) —
 * also after a restart. A mail may carry a {@link MailNote}, stored with it, which the {@link onSettled} listener
 * gets back when a retry delivers the mail or gives it up.
 *
 * Storage: `mail-outbox:mail:<id>` in the store's Keyv holds each waiting mail, and the shared set
 * `mail-outbox:pending` their ids, which any process's pass reads to find them; the store's claims record every
 * submitted id for 8 days, so submitting an id again (a webhook re-delivered) sends nothing. A submitted mail is
 * stored as due only after the first retry delay, so that no pass sends it while its first attempt may still be
 * under way in the process that submitted it. Delivery is at least once: a process that dies after the server took
 * a mail but before the entry was removed has it sent again by the next pass.
 * The id is claimed before the mail is written, so that a re-delivery can never store it a second time; a process
 * dying between those two writes (one local SQLite statement apart) loses that one mail.
 */
export class MailOutbox {
  readonly #store: OutboxStore;
  readonly #mailer: Mailer;
  readonly #log: Logger;
  readonly #metrics: OutboxMetrics;
  readonly #now: () => number;
  readonly #retry: MailRetryPolicy;
  #listener: SettledMailListener | undefined;
  /** Ids being sent right now, which a retry pass leaves alone. */
  readonly #sending = new Set<string>();
  #submitted = 0;
  #pass: Promise<void> | undefined;
  #timer: NodeJS.Timeout | undefined;

  constructor(deps: MailOutboxDeps) {
    this.#store = deps.store;
    this.#mailer = deps.mailer;
    this.#log = deps.log;
    this.#metrics = deps.metrics;
    this.#now = deps.now ?? Date.now;
    this.#retry = { ...DEFAULT_MAIL_RETRY, ...deps.retry };
  }

  /**
   * Sets the one listener (replacing any earlier one) told about each mail a retry pass settles: delivered at
   * last, or given up. The outcome of a mail's first attempt is {@link submit}'s result instead, so the listener
   * hears only about mails that submit reported "queued" — or that a process died sending.
   *
   * The listener is awaited before the mail leaves the store, so what it records outlives a crash: a process
   * dying after the server accepted the mail but before the listener finished sends the mail again after the
   * restart, and tells the listener again (at least once, like the mail itself). A listener that rejects is
   * logged; the mail is not sent again for it.
   */
  onSettled(listener: SettledMailListener): void {
    this.#listener = listener;
  }

  /**
   * Stores the mail under the idempotency key `id` and sends it at once: "sent" when the server accepted it,
   * "queued" when it failed for now and will be retried (the {@link onSettled} listener then hears, with `note`,
   * how it ended), "duplicate" when `id` was submitted before (nothing is sent). Rejects with a permanent
   * {@link MailError} when the server refused it for good, and with the store's error when it could not be stored
   * (then the id is released, so a re-delivery may try again).
   */
  async submit(id: string, mail: Mail, note?: MailNote): Promise<"sent" | "queued" | "duplicate"> {
    if (!(await this.#store.claimOnce(claimKey(id), SUBMIT_CLAIM_TTL_MS))) return "duplicate";
    const now = this.#now();
    // Stored as if its first attempt had failed: the retry pass of another process (or of this one, after a crash
    // mid-send) leaves it alone while this attempt may still be under way.
    const entry: OutboxEntry = {
      id,
      mail,
      note,
      createdAt: now,
      seq: ++this.#submitted,
      attempts: 0,
      nextAttemptAt: now + this.#retryDelayMs(1),
    };
    this.#sending.add(id);
    try {
      await this.#keep(entry);
      const attempt = await this.#attempt(entry, false);
      if (attempt.outcome === "failed") throw attempt.error;
      return attempt.outcome === "sent" ? "sent" : "queued";
    } finally {
      this.#sending.delete(id);
    }
  }

  /** Sends the waiting mails that are due, one after another; joins the pass under way if there is one. */
  retryDue(): Promise<void> {
    this.#pass ??= this.#retryPass().finally(() => {
      this.#pass = undefined;
    });
    return this.#pass;
  }

  /**
   * Runs a retry pass now — sending what a previous process left — and then every `intervalMs` (the policy's
   * passIntervalMs, 15 s by default). The timer does not keep the process alive. Set the {@link onSettled}
   * listener first, and start once whatever it reaches (the channels) is ready: the first pass may settle mails.
   */
  start(intervalMs = this.#retry.passIntervalMs): void {
    if (this.#timer) return;
    this.#timer = setInterval(() => this.#runPass(), intervalMs);
    this.#timer.unref();
    this.#runPass();
  }

  /** Stops the timer and waits for the pass under way; waiting mails stay stored for the next start. */
  async stop(): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#pass?.catch(() => {});
  }

  /** The mails in the outbox (waiting for another attempt, or being sent now), oldest first. */
  async pending(): Promise<PendingMail[]> {
    const ids = await this.#pendingIds();
    if (ids.length === 0) return [];
    const entries = await this.#store.keyv.getMany<OutboxEntry>(ids.map(entryKey));
    return entries
      .filter((entry) => entry !== undefined)
      .sort(bySubmission)
      .map(({ id, mail, attempts, nextAttemptAt }) => ({
        id,
        to: mail.to,
        subject: mail.subject,
        attempts,
        nextAttemptAt,
      }));
  }

  #runPass(): void {
    this.retryDue().catch((error: unknown) =>
      this.#log.error({ err: error }, "the mail outbox could not be read; waiting mails are tried at the next pass"),
    );
  }

  async #retryPass(): Promise<void> {
    const ids = await this.#pendingIds();
    this.#metrics.mailsPending.set(ids.length);
    // Oldest first, as they were submitted.
    const stored = await this.#store.keyv.getMany<OutboxEntry>(ids.map(entryKey));
    const entries = new Map(ids.map((id, k) => [id, stored[k]]));
    ids.sort((a, b) =>
      bySubmission(entries.get(a) ?? { id: a, createdAt: 0 }, entries.get(b) ?? { id: b, createdAt: 0 }),
    );
    for (const id of ids) {
      if (this.#sending.has(id)) continue;
      this.#sending.add(id);
      try {
        const entry = await this.#store.keyv.get<OutboxEntry>(entryKey(id));
        if (!entry) {
          await this.#store.sets.remove(INDEX_KEY, id);
          await this.#countPending();
        } else if (entry.nextAttemptAt <= this.#now()) await this.#attempt(entry, true);
      } catch (error) {
        // One unreadable entry must not hold back the others.
        this.#log.error({ err: error, mailId: id }, "a waiting mail could not be read from the store");
      } finally {
        this.#sending.delete(id);
      }
    }
  }

  /** Writes the entry, then lists its id; undoes both and releases the id when either fails. */
  async #keep(entry: OutboxEntry): Promise<void> {
    try {
      await this.#store.keyv.set(entryKey(entry.id), entry);
      await this.#store.sets.add(INDEX_KEY, entry.id);
      await this.#countPending();
    } catch (error) {
      await this.#forget(entry.id).catch(() => {});
      await this.#store.release(claimKey(entry.id)).catch(() => {});
      throw error;
    }
  }

  /**
   * Sends a stored mail once and records what came of it, telling the listener first when `report` (a retry)
   * and the mail is settled. Never rejects: the mail is on its way or stored whatever the store does afterwards,
   * so a failure to update the entry is logged, not reported as unsent.
   */
  async #attempt(entry: OutboxEntry, report: boolean): Promise<Attempt> {
    const attempts = entry.attempts + 1;
    const about = { mailId: entry.id, to: entry.mail.to, attempts };
    let failure: MailError | undefined;
    try {
      await this.#mailer.send(entry.mail);
    } catch (error) {
      // A mailer failing in some other way is retried too, rather than losing the mail.
      failure = error instanceof MailError ? error : new MailError(String(error), true);
    }
    if (!failure) {
      this.#metrics.mails.inc({ outcome: "sent" });
      this.#log.info(about, "mail sent");
      if (report) await this.#report({ id: entry.id, outcome: "sent", note: entry.note });
      await this.#forget(entry.id).catch((error: unknown) =>
        this.#log.error(
          { ...about, err: error },
          "a sent mail could not be removed from the outbox: it will be sent again",
        ),
      );
      return { outcome: "sent" };
    }
    const now = this.#now();
    if (!failure.temporary || now - entry.createdAt >= this.#retry.giveUpAfterMs) {
      this.#metrics.mails.inc({ outcome: "failed" });
      this.#log.error(
        { ...about, subject: entry.mail.subject, err: failure, failingForMs: now - entry.createdAt },
        failure.temporary
          ? "gave up a mail still failing at the end of its retries"
          : "the mail server refused a mail for good",
      );
      if (report) await this.#report({ id: entry.id, outcome: "failed", note: entry.note, error: failure });
      await this.#forget(entry.id).catch((error: unknown) =>
        this.#log.error({ ...about, err: error }, "a failed mail could not be removed from the outbox"),
      );
      return { outcome: "failed", error: failure };
    }
    const nextAttemptAt = now + this.#retryDelayMs(attempts);
    this.#metrics.mails.inc({ outcome: "retry" });
    this.#log.warn({ ...about, nextAttemptAt, err: failure }, "mail not sent yet: it will be retried");
    // If this write fails the stored entry is still due, so the next pass tries again early rather than never.
    await this.#store.keyv
      .set(entryKey(entry.id), { ...entry, attempts, nextAttemptAt })
      .catch((error: unknown) =>
        this.#log.error({ ...about, err: error }, "the mail's next attempt could not be stored"),
      );
    return { outcome: "retry" };
  }

  /** Tells the listener, if any, what became of a mail; its failure is logged, never passed on. */
  async #report(settled: SettledMail): Promise<void> {
    try {
      await this.#listener?.(settled);
    } catch (error) {
      this.#log.error(
        { err: error, mailId: settled.id, outcome: settled.outcome },
        "what follows a settled mail failed; the mail is not sent again for it",
      );
    }
  }

  /** The wait after the `attempts`th failed attempt. */
  #retryDelayMs(attempts: number): number {
    const delays = this.#retry.delaysMs;
    return delays[Math.min(attempts, delays.length) - 1] ?? HOUR_MS;
  }

  /** Unlists the id, then deletes the entry, so a failure in between leaves no listed id without its mail. */
  async #forget(id: string): Promise<void> {
    await this.#store.sets.remove(INDEX_KEY, id);
    await this.#store.keyv.delete(entryKey(id));
    await this.#countPending();
  }

  /** Shows how many mails wait, in every process's metrics (each reads the shared set). */
  async #countPending(): Promise<void> {
    this.#metrics.mailsPending.set((await this.#store.sets.members(INDEX_KEY)).length);
  }

  /** The ids of the waiting mails, in the set every process shares. */
  async #pendingIds(): Promise<string[]> {
    const { keyv, sets } = this.#store;
    // Versions before several instances kept the ids as one list value; they move to the shared set once.
    const legacy = await keyv.get<string[]>(INDEX_KEY);
    if (Array.isArray(legacy)) {
      for (const id of legacy) await sets.add(INDEX_KEY, id);
      await keyv.delete(INDEX_KEY);
    }
    return sets.members(INDEX_KEY);
  }
}

/**
 * Oldest first; mails of one millisecond in the order one process submitted them, else by id (numbers in it
 * compared as numbers), so that every process reads the same order.
 */
function bySubmission(
  a: Pick<OutboxEntry, "createdAt" | "seq" | "id">,
  b: Pick<OutboxEntry, "createdAt" | "seq" | "id">,
): number {
  return a.createdAt - b.createdAt || (a.seq ?? 0) - (b.seq ?? 0) || a.id.localeCompare(b.id, "en", { numeric: true });
}
