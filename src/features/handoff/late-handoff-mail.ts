import type Keyv from "keyv";
import type { InboundMessage, ReplyTarget } from "../../bridge/inbound.js";
import type { Logger } from "../../common/log.js";
import type { MailNote, SettledMail } from "../../mail/mail-outbox.js";
import type { HandoffAction } from "./handoff-action.js";
import { HANDOFF_CONFIRMED_PREFIX } from "./handoff-keys.js";
import { type Handoff, type HandoffPlace, handoffKey } from "./handoff-record.js";

/** How long a confirmation given is remembered: longer than the outbox keeps retrying, or re-sending, its mail. */
const CONFIRMED_TTL_MS = 8 * 24 * 60 * 60 * 1000;

/**
 * What a handoff mail carries in the outbox: whose conversation it is, the confirmation to give there, and where to
 * give it (`target` as JSON; notes stored by earlier versions lack the place, which their handoff record has).
 */
export interface HandoffNote extends MailNote {
  conversation: string;
  confirmation: string;
  channel: string;
  botId: string;
  target: string;
}

/** A handoff note as read back: the place when it carries one. */
type ReadNote = { conversation: string; confirmation: string } & (
  | { channel: string; botId: string; target: ReplyTarget }
  | { channel?: undefined; botId?: undefined; target?: undefined }
);

/** What a {@link LateHandoffMail} works with: the desk's store, log and clock, and what the desk does to a handoff. */
export interface LateHandoffMailOptions {
  keyv: Keyv;
  log: Logger;
  now: () => number;
  /** Queues the news as an event of the handoff's conversation (at most once per `id`), handled in its turn. */
  schedule: (handoff: HandoffPlace, action: HandoffAction, id: string) => Promise<void>;
  /** Ends the handoff whose request never reached the team, and tells the user so. */
  giveUp: (handoff: Handoff, fence: AbortSignal) => Promise<void>;
  /** Tells the user the confirmation; true when the platform took it. */
  confirm: (handoff: Handoff, confirmation: string, fence: AbortSignal) => Promise<boolean>;
}

/**
 * What becomes of a handoff mail that could only be queued (the request was answered "it will be sent as soon as
 * possible"): the outbox keeps, with the mail, which conversation it is for and the confirmation to give, and says
 * when a retry settles it — also in the next process after a restart. Then, only while that same handoff lasts:
 * - delivered: the user gets the confirmation (TalkToHumanResponseMessage / HANDOFF_MESSAGE) once, through the
 *   channel and its pacer like any message. That it was given is recorded in the store right after the platform
 *   took it, and the outbox drops the mail only after that; a process dying in between sends the mail again after
 *   the restart and, only when it died between the platform taking the confirmation and the record (one local
 *   store write), the confirmation too. So the worst case is the confirmation twice; a crash never loses it.
 *   A platform refusing it (the user blocked the bot) is logged and counted, not retried.
 * - given up (refused for good, or still failing at the outbox's deadline): the handoff ends and the user is told
 *   honestly that the request never reached the team and the assistant is back; their unmailed follow-ups are
 *   dropped, as there is no request for them to follow.
 * When the handoff is over by then (/bot, an operator's resume, the timeout — or a new handoff since), the user
 * hears nothing more about that mail: they were told the assistant is back, which a late "a person will reply
 * here soon" would contradict, and no person is waiting to reply in the conversation any more. The mail itself
 * still reaches the team, with the link to reach the user; the log says so.
 */
export class LateHandoffMail {
  readonly #options: LateHandoffMailOptions;

  constructor(options: LateHandoffMailOptions) {
    this.#options = options;
  }

  /** The note a handoff mail is submitted with: what the news of it needs, should a retry settle it. */
  note(message: InboundMessage, conversation: string, confirmation: string): HandoffNote {
    const { channel, botId } = message;
    return { conversation, confirmation, channel, botId, target: JSON.stringify(message.target) };
  }

  /**
   * A retry settled a mail (the outbox's listener): for a handoff mail, queues the news in its conversation, to be
   * told in turn while the handoff lasts. Queued durably before the outbox lets the mail go; at most once per mail.
   */
  async settled(settled: SettledMail): Promise<void> {
    const note = handoffNote(settled.note);
    if (!note) return;
    const place = note.target ? { ...note, target: note.target } : await this.#placeOf(note.conversation);
    if (!place) {
      this.#options.log.info(
        { conversation: note.conversation, mailId: settled.id, outcome: settled.outcome },
        "a handoff mail settled after its handoff was over: the user is not told",
      );
      return;
    }
    const action: HandoffAction = {
      type: "mail-settled",
      mailId: settled.id,
      outcome: settled.outcome,
      confirmation: note.confirmation,
    };
    await this.#options.schedule(place, action, `handoff-settled:${settled.id}`);
  }

  /** The news that a retry settled a handoff mail, in its turn: told only while that same handoff lasts. */
  async handle(
    conversation: string,
    handoff: Handoff | undefined,
    action: Extract<HandoffAction, { type: "mail-settled" }>,
    fence: AbortSignal,
  ): Promise<void> {
    const { keyv, log } = this.#options;
    const about = { conversation, mailId: action.mailId, outcome: action.outcome };
    // An expired handoff is left to its timeout, which ends it and says the bot is back, so that is said once.
    if (!handoff || handoff.mailId !== action.mailId || handoff.until <= this.#options.now()) {
      log.info(about, "a handoff mail settled after its handoff was over: the user is not told");
      return;
    }
    if (action.outcome === "failed") {
      await this.#options.giveUp(handoff, fence);
      return;
    }
    if (await keyv.get(confirmedKey(action.mailId))) return;
    log.info(about, "the handoff mail went out late: confirming to the user");
    if (await this.#options.confirm(handoff, action.confirmation, fence)) await this.confirmed(action.mailId);
  }

  /**
   * Notes that the user has the confirmation for this mail, so that a settlement of it later is not confirmed again;
   * a store failure only risks saying it twice.
   */
  async confirmed(mailId: string): Promise<void> {
    await this.#options.keyv.set(confirmedKey(mailId), true, CONFIRMED_TTL_MS).catch((error: unknown) => {
      this.#options.log.warn({ err: error, mailId }, "could not record that the handoff was confirmed");
    });
  }

  /** Where a conversation's handoff happens, from its record (for notes stored before they carried it). */
  async #placeOf(conversation: string): Promise<HandoffPlace | undefined> {
    return (await this.#options.keyv.get(handoffKey(conversation))) as Handoff | undefined;
  }
}

function confirmedKey(mailId: string): string {
  return `${HANDOFF_CONFIRMED_PREFIX}${mailId}`;
}

/** The note as a handoff mail's; undefined for other mails (follow-ups carry none). */
function handoffNote(note: MailNote | undefined): ReadNote | undefined {
  if (typeof note?.conversation !== "string" || typeof note.confirmation !== "string") return undefined;
  const { conversation, confirmation, channel, botId, target } = note;
  const place = typeof target === "string" ? (JSON.parse(target) as ReplyTarget) : undefined;
  return typeof channel === "string" && typeof botId === "string" && place
    ? { conversation, confirmation, channel, botId, target: place }
    : { conversation, confirmation };
}
