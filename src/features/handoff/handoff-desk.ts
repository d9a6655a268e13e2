import type Keyv from "keyv";
import type { InboundMessage } from "../../bridge/inbound.js";
import type { MemberSets } from "../../bridge/store/leases.js";
import type { TranscriptEntry } from "../../bridge/transcript.js";
import type { Logger } from "../../common/log.js";
import type { MailOutbox } from "../../mail/mail-outbox.js";
import type { HandoffAction } from "./handoff-action.js";
import {
  HANDOFF_FOLLOW_UP_MAIL_PREFIX,
  HANDOFF_INDEX_KEY,
  HANDOFF_MAIL_PREFIX,
  UNANSWERED_PREFIX,
} from "./handoff-keys.js";
import { followUpMail, handoffMail } from "./handoff-mail.js";
import type { HandoffMetrics } from "./handoff-metrics.js";
import { type Handoff, type HandoffPlace, handoffKey } from "./handoff-record.js";
import { handoffTexts } from "./handoff-texts.js";
import { LateHandoffMail } from "./late-handoff-mail.js";

// The handoff record lives in handoff-record.ts, so that the late mail reads it without importing the desk; the
// desk's users keep naming it from here.
export type { Handoff, HandoffPlace } from "./handoff-record.js";

/** What became of a request for a person, and what the user is told. */
export interface HandoffOutcome {
  outcome: "sent" | "queued" | "failed" | "unavailable";
  reply: string;
}

/** Follow-ups written within this long of the first go out in one mail. */
const FOLLOW_UP_BATCH_MS = 60_000;
const INDEX_KEY = HANDOFF_INDEX_KEY;

/** What a {@link HandoffDesk} works with. */
export interface HandoffDeskOptions {
  keyv: Keyv;
  /** Where the conversations with a person are listed, shared by every process. */
  sets: MemberSets;
  /** Undefined when no SMTP server is configured: requests are then answered honestly that no one can be reached. */
  outbox: MailOutbox | undefined;
  timeoutMs: number;
  log: Logger;
  metrics: Pick<HandoffMetrics, "handoffNotices">;
  /**
   * Tells a user something in their conversation outside an answer (the bot is back after a timeout, the mail
   * went out late), through the channel and its pacer like any other message; rejects when that failed.
   */
  notify: (handoff: Handoff, text: string, fence?: AbortSignal) => Promise<void>;
  /**
   * Queues a handoff event in its conversation (at most once per `id`), to be {@link HandoffDesk.handle}d in turn
   * with the conversation's messages by whichever process holds it.
   */
  schedule: (handoff: HandoffPlace, action: HandoffAction, id: string) => Promise<void>;
  now?: () => number;
  followUpBatchMs?: number;
}

/**
 * The conversations handed to a person. A request mails the handoff address (through the durable outbox, so a
 * restart or a flaky SMTP server loses nothing, and the same event never mails twice) and, once the mail is
 * accepted or safely queued, puts the conversation in the `human` state; the user's further messages are collected
 * and mailed as one follow-up a minute; the conversation returns to the bot on /bot, an operator's resume, or the
 * timeout, and the user is told. State lives in the bridge store, shared by every process on it: what happens to a
 * handoff outside the conversation's messages — its timeout, follow-ups due, the mail settled late, an operator's
 * resume — is queued as an event of its conversation and {@link handle}d in turn by whichever process holds the
 * conversation, so it never races the user's messages; the sweep that finds timeouts and due follow-ups runs in
 * one process at a time (see BackgroundPasses). A request whose mail could only be queued is answered "it will be
 * sent as soon as possible", and what the user hears when a retry settles it is {@link LateHandoffMail}'s.
 */
export class HandoffDesk {
  readonly #options: HandoffDeskOptions;
  readonly #now: () => number;
  #timer: NodeJS.Timeout | undefined;
  #sweeping: Promise<void> | undefined;
  readonly #reported = new Set<string>();
  readonly #lateMail: LateHandoffMail;

  constructor(options: HandoffDeskOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
    this.#lateMail = new LateHandoffMail({
      keyv: options.keyv,
      log: options.log,
      now: this.#now,
      schedule: options.schedule,
      giveUp: (handoff, fence) => this.#end(handoff, "undelivered", fence),
      confirm: (handoff, confirmation, fence) => this.#tell(handoff, confirmation, "confirmation", fence),
    });
    options.outbox?.onSettled((settled) => this.#lateMail.settled(settled));
  }

  /** The conversation's handoff while it lasts; an expired one is ended (and the user told) first. */
  async active(conversation: string): Promise<Handoff | undefined> {
    const handoff = (await this.#options.keyv.get(handoffKey(conversation))) as Handoff | undefined;
    if (!handoff || handoff.until > this.#now()) return handoff;
    await this.#end(handoff, "timeout");
    return undefined;
  }

  /**
   * Mails the request with the conversation so far. "sent" or "queued" put the conversation in the `human` state;
   * "failed" (the SMTP server refused it for good, or it could not be stored) and "unavailable" (no SMTP or no
   * address) leave it with the bot, and the operator sees why in the log.
   */
  async request(
    message: InboundMessage,
    conversation: string,
    context: {
      mailTo: string | undefined;
      confirmation: string;
      timeZone: string | undefined;
      language?: string | undefined;
      transcript: TranscriptEntry[];
    },
  ): Promise<HandoffOutcome> {
    const { outbox, log } = this.#options;
    const texts = handoffTexts(context.language);
    if (!outbox || !context.mailTo) {
      this.#reportOnce(
        outbox ? "address" : "smtp",
        outbox
          ? "a user asked for a person but there is no address: set the chatbot's TalkToHumanEmail or HANDOFF_EMAIL"
          : "a user asked for a person but no mail can be sent: set SMTP_URL and MAIL_FROM",
      );
      return { outcome: "unavailable", reply: texts.unavailable };
    }
    const now = this.#now();
    const mailId = `${HANDOFF_MAIL_PREFIX}${message.channel}:${message.botId}:${message.eventId}`;
    const handoff: Handoff = {
      conversation,
      channel: message.channel,
      botId: message.botId,
      user: message.user,
      target: message.target,
      requestedAt: now,
      timeZone: context.timeZone,
      until: now + this.#options.timeoutMs,
      mailTo: context.mailTo,
      followUps: [],
      language: context.language,
      mailId,
    };
    let submitted: "sent" | "queued" | "duplicate";
    try {
      const note = this.#lateMail.note(message, conversation, context.confirmation);
      submitted = await outbox.submit(mailId, handoffMail(context.mailTo, handoff, context.transcript), note);
    } catch (error) {
      log.error({ err: error, conversation, channel: message.channel }, "the handoff mail could not be sent or queued");
      return { outcome: "failed", reply: texts.failed };
    }
    await this.#options.keyv.set(handoffKey(conversation), handoff);
    await this.#options.sets.add(INDEX_KEY, conversation);
    log.info({ conversation, channel: message.channel, outcome: submitted }, "conversation handed to a person");
    if (submitted === "queued") return { outcome: "queued", reply: texts.delayed };
    // The caller gives the confirmation now; should the outbox ever settle this mail again, it is not repeated.
    await this.#lateMail.confirmed(mailId);
    return { outcome: "sent", reply: context.confirmation };
  }

  /** Keeps a message the user wrote during the handoff, for the next follow-up mail. */
  async followUp(handoff: Handoff, message: InboundMessage, text: string): Promise<void> {
    handoff.followUps.push({ from: "user", text, at: this.#now() });
    handoff.followUpKey ??= message.eventId;
    await this.#options.keyv.set(handoffKey(handoff.conversation), handoff);
  }

  /**
   * Ends a handoff, its unmailed follow-ups going out first: asked by the user (/bot, who is answered by the
   * caller) or by an operator (the user is told the bot is back). Undefined when there was none.
   */
  async resume(conversation: string, by: "user" | "operator"): Promise<Handoff | undefined> {
    const handoff = (await this.#options.keyv.get(handoffKey(conversation))) as Handoff | undefined;
    if (!handoff) return undefined;
    await this.#end(handoff, by);
    return handoff;
  }

  /**
   * Counts the answers in a row the chatbot had none for; true when this one makes `offerAfter` (then the count
   * starts again), so the user is offered a person after that many misses, and again after as many more.
   */
  async noteAnswer(conversation: string, noAnswer: boolean, offerAfter: number): Promise<boolean> {
    const counter = `${UNANSWERED_PREFIX}${conversation}`;
    if (!noAnswer || offerAfter === 0) {
      if (!noAnswer) await this.#options.keyv.delete(counter);
      return false;
    }
    const misses = (((await this.#options.keyv.get(counter)) as number | undefined) ?? 0) + 1;
    if (misses < offerAfter) {
      await this.#options.keyv.set(counter, misses, this.#options.timeoutMs);
      return false;
    }
    await this.#options.keyv.delete(counter);
    return true;
  }

  /** Whether a request could be mailed at all: an SMTP server is configured. */
  get canMail(): boolean {
    return this.#options.outbox !== undefined;
  }

  /** Every conversation in the `human` state. */
  async list(): Promise<Handoff[]> {
    const { keyv, sets } = this.#options;
    // Versions before several instances kept the list as one value; it moves to the shared set once.
    const legacy = (await keyv.get(INDEX_KEY)) as string[] | undefined;
    if (Array.isArray(legacy)) {
      for (const conversation of legacy) await sets.add(INDEX_KEY, conversation);
      await keyv.delete(INDEX_KEY);
    }
    const conversations = await sets.members(INDEX_KEY);
    const handoffs = await Promise.all(
      conversations.map((c) => keyv.get(handoffKey(c)) as Promise<Handoff | undefined>),
    );
    return handoffs.filter((handoff) => handoff !== undefined);
  }

  /**
   * Asks for the conversation to be given back to the bot, as an operator does: queued as an event of the
   * conversation, so that whichever process holds it ends the handoff in turn and tells the user. Undefined when
   * the conversation is not with a person.
   */
  async requestResume(conversation: string): Promise<Handoff | undefined> {
    const handoff = (await this.#options.keyv.get(handoffKey(conversation))) as Handoff | undefined;
    if (!handoff) return undefined;
    await this.#options.schedule(handoff, { type: "resume" }, `handoff-resume:${conversation}:${handoff.requestedAt}`);
    return handoff;
  }

  /**
   * Handles a handoff event of `conversation` in its turn (the holder of the conversation calls it): a timeout or
   * due follow-ups of the handoff the event was queued for, a mail settled late, an operator's resume. Events of a
   * handoff that has ended since change nothing. `fence` guards the notices sent to the user.
   */
  async handle(conversation: string, action: HandoffAction, fence: AbortSignal): Promise<void> {
    const handoff = (await this.#options.keyv.get(handoffKey(conversation))) as Handoff | undefined;
    switch (action.type) {
      case "timeout":
        if (handoff && handoff.until === action.until && handoff.until <= this.#now()) {
          await this.#end(handoff, "timeout", fence);
        }
        return;
      case "follow-ups":
        if (handoff && handoff.followUpKey === action.followUpKey) await this.#mailFollowUps(handoff);
        return;
      case "resume":
        if (handoff) await this.#end(handoff, "operator", fence);
        return;
      case "mail-settled":
        await this.#lateMail.handle(conversation, handoff, action, fence);
        return;
    }
  }

  /** Mails follow-ups that waited a minute and ends handoffs whose time is up. */
  async sweep(): Promise<void> {
    this.#sweeping ??= this.#sweep().finally(() => {
      this.#sweeping = undefined;
    });
    return this.#sweeping;
  }

  /** Sweeps every `intervalMs` until {@link stop}. */
  start(intervalMs = 15_000): void {
    this.#timer = setInterval(() => {
      this.sweep().catch((error: unknown) => this.#options.log.error({ err: error }, "handoff sweep failed"));
    }, intervalMs);
    this.#timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.#timer);
    await this.#sweeping;
  }

  /** Queues each handoff's timeout and due follow-ups as events of its conversation (each at most once). */
  async #sweep(): Promise<void> {
    const batch = this.#options.followUpBatchMs ?? FOLLOW_UP_BATCH_MS;
    const { schedule } = this.#options;
    for (const handoff of await this.list()) {
      const { conversation, until, followUps, followUpKey } = handoff;
      if (until <= this.#now())
        await schedule(handoff, { type: "timeout", until }, `handoff-timeout:${conversation}:${until}`);
      else if (followUpKey && followUps[0] && followUps[0].at + batch <= this.#now()) {
        await schedule(
          handoff,
          { type: "follow-ups", followUpKey },
          `handoff-follow-ups:${conversation}:${followUpKey}`,
        );
      }
    }
  }

  /**
   * Gives the conversation back to the bot and tells the user, unless they asked for it themselves (the caller
   * answers them). Follow-ups go out first, except when the request itself was given up ("undelivered").
   */
  async #end(
    handoff: Handoff,
    reason: "timeout" | "user" | "operator" | "undelivered",
    fence?: AbortSignal,
  ): Promise<void> {
    if (reason !== "undelivered") await this.#mailFollowUps(handoff);
    await this.#options.keyv.delete(handoffKey(handoff.conversation));
    await this.#options.sets.remove(INDEX_KEY, handoff.conversation);
    this.#options.log.info({ conversation: handoff.conversation, reason }, "conversation back with the bot");
    const texts = handoffTexts(handoff.language);
    if (reason === "undelivered") await this.#tell(handoff, texts.undelivered, "undelivered", fence);
    else if (reason !== "user") await this.#tell(handoff, texts.botBack, "bot_back", fence);
  }

  /** Sends the user a notice through the channel; true when it went out. A failure is logged and counted. */
  async #tell(
    handoff: Handoff,
    text: string,
    notice: "confirmation" | "undelivered" | "bot_back",
    fence?: AbortSignal,
  ): Promise<boolean> {
    const counted = { channel: handoff.channel, notice };
    try {
      await this.#options.notify(handoff, text, fence);
      this.#options.metrics.handoffNotices.inc({ ...counted, outcome: "sent" });
      return true;
    } catch (error) {
      this.#options.metrics.handoffNotices.inc({ ...counted, outcome: "failed" });
      this.#options.log.warn(
        { err: error, conversation: handoff.conversation, notice },
        "could not tell the user what became of their handoff",
      );
      return false;
    }
  }

  async #mailFollowUps(handoff: Handoff): Promise<void> {
    const { outbox } = this.#options;
    if (!outbox || handoff.followUps.length === 0) return;
    try {
      await outbox.submit(
        `${HANDOFF_FOLLOW_UP_MAIL_PREFIX}${handoff.conversation}:${handoff.followUpKey}`,
        followUpMail(handoff.mailTo, handoff, handoff.followUps),
      );
    } catch (error) {
      this.#options.log.error({ err: error, conversation: handoff.conversation }, "a follow-up mail failed");
      return;
    }
    handoff.followUps = [];
    handoff.followUpKey = undefined;
    if ((await this.#options.keyv.get(handoffKey(handoff.conversation))) !== undefined) {
      await this.#options.keyv.set(handoffKey(handoff.conversation), handoff);
    }
  }

  #reportOnce(problem: string, message: string): void {
    if (this.#reported.has(problem)) return;
    this.#reported.add(problem);
    this.#options.log.error(message);
  }
}
