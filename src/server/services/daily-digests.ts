import type { Logger } from "../../common/log.js";
import { isTimeZone } from "../../common/zoned-time.js";
import { MailError, type Mailer } from "../../mail/smtp-mailer.js";
import type { Chatbot, Digest, DigestKind, StoredSettings } from "../domain.js";
import type { ApiStore, DigestOutcome } from "../store/api-store.js";
import { chatLogsMail, type DigestMail, leadsMail } from "./digest-mail.js";
import { addDays, dayStart, zonedDay } from "./zoned-time.js";

/** The setting that holds each digest's recipient; an empty one means the chatbot gets no such digest. */
const RECIPIENT_SETTING = {
  ChatLogs: "EmailForDailyChatLogs",
  Leads: "EmailForDailyLeads",
} as const satisfies Record<DigestKind, keyof StoredSettings>;
const KINDS = Object.keys(RECIPIENT_SETTING) as DigestKind[];

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
/** The wait after the 1st, 2nd, … failed attempt; the last one repeats. */
const RETRY_DELAYS_MS = [MINUTE_MS, 5 * MINUTE_MS, 15 * MINUTE_MS, HOUR_MS];
/** A digest still failing this long after it was opened is given up: by then the next day's is due. */
const GIVE_UP_AFTER_MS = 24 * HOUR_MS;
/**
 * How long an attempt holds its digest. Far longer than a send can take (the mailer gives up after 30 s), so no
 * other process takes over a live attempt; a process that died mid-attempt lets its digest go after this.
 */
const ATTEMPT_HOLD_MS = 5 * MINUTE_MS;
/** Digests attempted in one pass at most; the rest wait for the next pass. */
const DIGESTS_PER_PASS = 100;

/** What {@link DailyDigests} works with. */
export interface DailyDigestsDeps {
  store: ApiStore;
  mailer: Mailer;
  log: Logger;
  /** The clock that says which day has ended and what is due; tests move it instead of waiting. */
  now: () => Date;
}

/**
 * The daily mails of EmailForDailyChatLogs (the day's conversations) and EmailForDailyLeads (the day's handoff
 * requests and contact details), for the day that has just ended in each chatbot's TimeZone.
 *
 * - Once per chatbot, day and kind, across processes and restarts: each digest is a row of the store, opened
 *   by whichever process sees the day end first (a unique key settles races), and claimed by a conditional
 *   update before every attempt. The one case that can mail twice is a process dying between the mail
 *   server's acceptance and the row's update: its digest is attempted again once the hold lapses — rather
 *   than lost.
 * - Catch-up: every pass opens the digests of the last day that ended, so a process that was down at
 *   midnight sends yesterday's when it starts. Older days that were never opened are not sent: after a long
 *   outage the recipient gets one mail, not a backlog.
 * - Empty days send nothing: a daily "nothing today" trains the recipient to stop reading these mails, and
 *   silence says the same. The digest is recorded as skipped, so the log and the store still show the pass ran.
 * - Failures: a mail server's temporary refusal (4xx, unreachable) is retried after 1, 5, 15 minutes, then
 *   hourly, for up to 24 hours; a permanent one (5xx) is given up at once. Either way the reason is logged and
 *   kept with the digest.
 */
export class DailyDigests {
  readonly #deps: DailyDigestsDeps;
  /** Digests this process has opened for the current days, so a pass does not insert them again. */
  #opened = new Set<string>();

  constructor(deps: DailyDigestsDeps) {
    this.#deps = deps;
  }

  /** One pass: opens the digests of the day that last ended, then attempts those due; stops early on `signal`. */
  async run(signal?: AbortSignal): Promise<void> {
    const { store, now } = this.#deps;
    await this.#openEndedDays();
    for (const digest of await store.digests.due(now(), DIGESTS_PER_PASS)) {
      if (signal?.aborted) return;
      const started = now();
      const claimed = await store.digests.claim(digest.id, started, new Date(started.getTime() + ATTEMPT_HOLD_MS));
      if (!claimed) continue;
      try {
        await this.#attempt(claimed);
      } catch (error) {
        // The store failed mid-attempt: the hold lapses and a later pass tries again.
        this.#deps.log.error({ err: error, digest: describe(claimed) }, "a daily digest attempt failed");
      }
    }
  }

  async #openEndedDays(): Promise<void> {
    const { store, now, log } = this.#deps;
    const at = now();
    const opened = new Set<string>();
    for (const chatbot of await store.chatbots.listAll()) {
      const kinds = KINDS.filter((kind) => chatbot.settings[RECIPIENT_SETTING[kind]] !== "");
      if (kinds.length === 0) continue;
      const timeZone = chatbot.settings.TimeZone;
      if (!isTimeZone(timeZone)) {
        log.warn({ chatbot: chatbot.serialNumber, timeZone }, "no daily digests: the chatbot's TimeZone is unknown");
        continue;
      }
      const day = addDays(zonedDay(at, timeZone), -1);
      for (const kind of kinds) {
        const key = `${chatbot.id}/${day}/${kind}`;
        if (!this.#opened.has(key)) await store.digests.open({ chatbotId: chatbot.id, day, kind }, at);
        opened.add(key);
      }
    }
    // Keys of days that are over drop out here, so the set stays as small as the number of chatbots.
    this.#opened = opened;
  }

  async #attempt(digest: Digest): Promise<void> {
    const { store, mailer, log } = this.#deps;
    const chatbot = await store.chatbots.byId(digest.chatbotId);
    // A chatbot removed meanwhile took its digests with it.
    if (!chatbot) return;
    const setting = RECIPIENT_SETTING[digest.kind];
    const to = chatbot.settings[setting];
    if (to === "") return this.#settle(digest, { state: "skipped", note: `${setting} was cleared` });
    const mail = await this.#compose(chatbot, digest);
    if (!mail) {
      log.info({ digest: describe(digest) }, "daily digest skipped: nothing to report");
      return this.#settle(digest, { state: "skipped", note: "nothing to report" });
    }
    try {
      await mailer.send({ to, ...mail });
    } catch (error) {
      return this.#failed(digest, error instanceof MailError ? error : new MailError(String(error), true));
    }
    log.info({ digest: describe(digest), to }, "daily digest sent");
    await this.#settle(digest, { state: "sent", note: "" });
  }

  async #compose(chatbot: Chatbot, digest: Digest): Promise<DigestMail | undefined> {
    const { store } = this.#deps;
    const timeZone = chatbot.settings.TimeZone;
    const range = { from: dayStart(digest.day, timeZone), to: dayStart(addDays(digest.day, 1), timeZone) };
    const about = { chatbotName: chatbot.settings.Name, day: digest.day, timeZone };
    if (digest.kind === "ChatLogs") {
      const transcripts = await store.messages.transcripts(chatbot.id, range);
      return transcripts.length > 0 ? chatLogsMail(about, transcripts) : undefined;
    }
    const leads = await store.leads.list(chatbot.id, range);
    return leads.length > 0 ? leadsMail(about, leads) : undefined;
  }

  async #failed(digest: Digest, failure: MailError): Promise<void> {
    const at = this.#deps.now();
    const about = { digest: describe(digest), err: failure };
    if (!failure.temporary || at.getTime() - digest.createdAt.getTime() >= GIVE_UP_AFTER_MS) {
      this.#deps.log.error(
        about,
        failure.temporary
          ? "gave up a daily digest still failing after 24 hours"
          : "the mail server refused a daily digest",
      );
      return this.#settle(digest, { state: "failed", note: failure.message });
    }
    const retryAt = new Date(at.getTime() + retryDelayMs(digest.attempts));
    this.#deps.log.warn({ ...about, retryAt }, "daily digest not sent yet: it will be retried");
    await this.#settle(digest, { state: "pending", retryAt, note: failure.message });
  }

  #settle(digest: Digest, outcome: DigestOutcome): Promise<void> {
    return this.#deps.store.digests.settle(digest.id, digest.attempts, outcome, this.#deps.now());
  }
}

/** The wait after the `attempts`th failed attempt. */
function retryDelayMs(attempts: number): number {
  return RETRY_DELAYS_MS[Math.min(attempts, RETRY_DELAYS_MS.length) - 1] ?? HOUR_MS;
}

const describe = (digest: Digest) => ({
  chatbotId: digest.chatbotId,
  day: digest.day,
  kind: digest.kind,
  attempts: digest.attempts,
});
