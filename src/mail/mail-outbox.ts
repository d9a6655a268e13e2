import type { BridgeMetrics } from "../bridge/metrics.js";
import type { BridgeStore } from "../bridge/store/bridge-store.js";
import type { Logger } from "../log.js";
import { type Mail, MailError, type Mailer } from "./smtp-mailer.js";

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;

/** How long an id is remembered: longer than any platform re-delivers an event, and than a mail is retried. */
const SUBMIT_CLAIM_TTL_MS = 8 * DAY_MS;
/** The wait after the 1st, 2nd, … failed attempt; the last one repeats. */
const RETRY_DELAYS_MS = [30_000, 2 * MINUTE_MS, 10 * MINUTE_MS, 30 * MINUTE_MS, HOUR_MS];
/** A mail still failing this long after it was submitted is given up. */
const GIVE_UP_AFTER_MS = 3 * DAY_MS;

const INDEX_KEY = "mail-outbox:pending";
const entryKey = (id: string) => `mail-outbox:mail:${id}`;
const claimKey = (id: string) => `mail-outbox:${id}`;

/** A mail waiting in the outbox, as stored. */
interface OutboxEntry {
  id: string;
  mail: Mail;
  createdAt: number;
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

/** What {@link MailOutbox} works with. */
export interface MailOutboxDeps {
  store: BridgeStore;
  mailer: Mailer;
  log: Logger;
  metrics: BridgeMetrics;
  /** The clock, in epoch milliseconds (tests move it instead of waiting). */
  now?: () => number;
}

/** What one attempt came to; `failed` means given up. */
type Attempt = { outcome: "sent" } | { outcome: "retry" } | { outcome: "failed"; error: MailError };

/**
 * Mails that must not be lost: each is stored in the bridge store before it is sent, stays there until the mail
 * server accepts it, and is retried with backoff (30 s, 2 min, 10 min, 30 min, then hourly) for up to 3 days, by
 * this process or — after a restart — the next one on the same store.
 *
 * Storage, in the store's Keyv: `mail-outbox:mail:<id>` holds each waiting mail and `mail-outbox:pending` the
 * list of their ids, which a new outbox reads to find them; the store's claims record every submitted id for
 * 8 days, so submitting an id again (a webhook re-delivered) sends nothing.
 *
 * One bridge process per store: the list of ids is read, changed and written back, serialised within this
 * process only, and two outboxes on one store would send the same waiting mail. Delivery is at least once: a
 * process that dies after the server took a mail but before the entry was removed sends it again on restart.
 * The id is claimed before the mail is written, so that a re-delivery can never store it a second time; a process
 * dying between those two writes (one local SQLite statement apart) loses that one mail.
 */
export class MailOutbox {
  readonly #store: BridgeStore;
  readonly #mailer: Mailer;
  readonly #log: Logger;
  readonly #metrics: BridgeMetrics;
  readonly #now: () => number;
  /** Ids being sent right now, which a retry pass leaves alone. */
  readonly #sending = new Set<string>();
  #indexWrites: Promise<unknown> = Promise.resolve();
  #pass: Promise<void> | undefined;
  #timer: NodeJS.Timeout | undefined;

  constructor(deps: MailOutboxDeps) {
    this.#store = deps.store;
    this.#mailer = deps.mailer;
    this.#log = deps.log;
    this.#metrics = deps.metrics;
    this.#now = deps.now ?? Date.now;
  }

  /**
   * Stores the mail under the idempotency key `id` and sends it at once: "sent" when the server accepted it,
   * "queued" when it failed for now and will be retried, "duplicate" when `id` was submitted before (nothing is
   * sent). Rejects with a permanent {@link MailError} when the server refused it for good, and with the store's
   * error when it could not be stored (then the id is released, so a re-delivery may try again).
   */
  async submit(id: string, mail: Mail): Promise<"sent" | "queued" | "duplicate"> {
    if (!(await this.#store.claimOnce(claimKey(id), SUBMIT_CLAIM_TTL_MS))) return "duplicate";
    const now = this.#now();
    const entry: OutboxEntry = { id, mail, createdAt: now, attempts: 0, nextAttemptAt: now };
    this.#sending.add(id);
    try {
      await this.#keep(entry);
      const attempt = await this.#attempt(entry);
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
   * Runs a retry pass now — sending what a previous process left — and then every `intervalMs`. The timer does
   * not keep the process alive.
   */
  start(intervalMs = 15_000): void {
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
    for (const id of ids) {
      if (this.#sending.has(id)) continue;
      this.#sending.add(id);
      try {
        const entry = await this.#store.keyv.get<OutboxEntry>(entryKey(id));
        if (!entry) await this.#changeIndex((pending) => pending.filter((other) => other !== id));
        else if (entry.nextAttemptAt <= this.#now()) await this.#attempt(entry);
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
      await this.#changeIndex((pending) => (pending.includes(entry.id) ? pending : [...pending, entry.id]));
    } catch (error) {
      await this.#forget(entry.id).catch(() => {});
      await this.#store.release(claimKey(entry.id)).catch(() => {});
      throw error;
    }
  }

  /**
   * Sends a stored mail once and records what came of it. Never rejects: the mail is on its way or stored
   * whatever the store does afterwards, so a failure to update the entry is logged, not reported as unsent.
   */
  async #attempt(entry: OutboxEntry): Promise<Attempt> {
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
      await this.#forget(entry.id).catch((error: unknown) =>
        this.#log.error(
          { ...about, err: error },
          "a sent mail could not be removed from the outbox: it will be sent again",
        ),
      );
      return { outcome: "sent" };
    }
    const now = this.#now();
    if (!failure.temporary || now - entry.createdAt >= GIVE_UP_AFTER_MS) {
      this.#metrics.mails.inc({ outcome: "failed" });
      this.#log.error(
        { ...about, subject: entry.mail.subject, err: failure },
        failure.temporary ? "gave up a mail still failing after 3 days" : "the mail server refused a mail for good",
      );
      await this.#forget(entry.id).catch((error: unknown) =>
        this.#log.error({ ...about, err: error }, "a failed mail could not be removed from the outbox"),
      );
      return { outcome: "failed", error: failure };
    }
    const nextAttemptAt = now + retryDelayMs(attempts);
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

  /** Unlists the id, then deletes the entry, so a failure in between leaves no listed id without its mail. */
  async #forget(id: string): Promise<void> {
    await this.#changeIndex((pending) => pending.filter((other) => other !== id));
    await this.#store.keyv.delete(entryKey(id));
  }

  async #pendingIds(): Promise<string[]> {
    return (await this.#store.keyv.get<string[]>(INDEX_KEY)) ?? [];
  }

  /** Read-modify-write of the list of waiting ids, one at a time within this process. */
  #changeIndex(change: (pending: string[]) => string[]): Promise<void> {
    const write = this.#indexWrites.then(async () => {
      const pending = change(await this.#pendingIds());
      await this.#store.keyv.set(INDEX_KEY, pending);
      this.#metrics.mailsPending.set(pending.length);
    });
    this.#indexWrites = write.catch(() => {});
    return write;
  }
}

/** The wait after the `attempts`th failed attempt. */
function retryDelayMs(attempts: number): number {
  return RETRY_DELAYS_MS[Math.min(attempts, RETRY_DELAYS_MS.length) - 1] ?? HOUR_MS;
}
