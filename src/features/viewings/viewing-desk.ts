import type Keyv from "keyv";
import type { ChatbotSettingsReader } from "../../bridge/chatbot-settings.js";
import { contactLink, isContact } from "../../bridge/contact.js";
import type { InboundMessage } from "../../bridge/inbound.js";
import { phraseLanguage } from "../../bridge/phrase-language.js";
import type { Transcript } from "../../bridge/transcript.js";
import type { LeadInput } from "../../client/index.js";
import type { Logger } from "../../common/log.js";
import { knownZone } from "../../common/zoned-time.js";
import type { MailOutbox } from "../../mail/mail-outbox.js";
import { cardFromListing } from "../listings/card-from-listing.js";
import { cardTapOf } from "../listings/card-surface.js";
import type { ListingCard } from "../listings/listing-card.js";
import type { ListingCards } from "../listings/listing-cards.js";
import { VIEWING_MAIL_PREFIX, VIEWING_PREFIX } from "./viewing-keys.js";
import { listingName, viewingMail } from "./viewing-mail.js";
import { type ViewingTexts, viewingTexts } from "./viewing-texts.js";
import { describeTime, understandTime, type ZonedTime } from "./viewing-time.js";

/** How many of a conversation's last lines a viewing mail shows. */
const TRANSCRIPT_LINES = 20;
/** A flow nobody answered for this long ends silently. */
const DEFAULT_TIMEOUT_MS = 30 * 60_000;
/** What leaves the flow, sent as the whole message (in English or Spanish, whatever the chatbot's language). */
const CANCEL_WORDS = new Set(["cancel", "/cancel", "cancelar", "/cancelar", "stop"]);
/** An e-mail address or a phone number inside a sentence ("you can call me on +34 600 123 456"). */
const CONTACT_IN_TEXT = /[^\s@<>()]+@[^\s@<>()]+\.[^\s@<>().,;]+|\+?\d[\d\s().-]{5,18}\d/g;

/** What the bot says to one turn of the flow, and the lead to record when the request was passed on. */
export interface ViewingTurn {
  replies: string[];
  lead?: Omit<LeadInput, "serialNumber" | "sessionID"> | undefined;
}

/** A conversation's viewing request under way, as the bridge store keeps it. */
interface ViewingState {
  mlsNumber: string;
  listing: ListingCard | undefined;
  /** What the flow waits for. */
  step: "time" | "contact" | "done";
  /** The event of the tap: names the request (the mail's id, the calendar event's UID). */
  requestId: string;
  preferred?: string | undefined;
  understood?: ZonedTime | undefined;
  /** Epoch milliseconds of the last turn: the flow ends after {@link ViewingDeskOptions.timeoutMs} without one. */
  updatedAt: number;
  /** The last event handled and what it gave: a job run again after a crash gets the same turn, nothing redone. */
  last: { eventId: string; turn: ViewingTurn };
}

/** The bot a conversation belongs to, as the viewing flow needs it. */
export interface ViewingBot {
  settings: Pick<ChatbotSettingsReader, "read">;
  listings: Pick<ListingCards, "listing">;
}

/** What a {@link ViewingDesk} works with. */
export interface ViewingDeskOptions {
  keyv: Keyv;
  /** Undefined when no SMTP server is configured: the user is told honestly that no one can be reached. */
  outbox: Pick<MailOutbox, "submit"> | undefined;
  /** HANDOFF_EMAIL: where requests go when the chatbot has no TalkToHumanEmail. */
  email: string | undefined;
  transcript: Transcript;
  log: Logger;
  timeoutMs?: number | undefined;
  now?: () => number;
}

const key = (conversation: string) => `${VIEWING_PREFIX}${conversation}`;

/**
 * "Book a viewing" from a listing card, as a small state machine per conversation kept in the bridge store: the tap
 * asks for a preferred time; the next message is that time (a concrete date and time understood from it when it
 * names one, in the chatbot's TimeZone); then, unless the channel already says how to reach the user, their e-mail
 * address or phone number; then the agency (TalkToHumanEmail or HANDOFF_EMAIL) gets a mail through the durable
 * outbox — with a calendar file when a time was understood — and the user an honest confirmation. "cancel" leaves
 * the flow, any other command (or a request for a person, which the job passes as one) leaves it and is handled as
 * usual, and a flow idle for 30 minutes ends silently.
 *
 * Each turn is recorded with the event it answered, so a job run again after a crash gets the same turn without
 * redoing it; the mail is keyed by the event that completed the request, so the outbox sends it once whatever
 * happens.
 */
export class ViewingDesk {
  readonly #options: ViewingDeskOptions;
  readonly #now: () => number;
  readonly #timeoutMs: number;

  constructor(options: ViewingDeskOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  }

  /**
   * The flow's turn for a batch of the conversation's messages: a tap on "Book a viewing" starts (or restarts) it;
   * while it waits, the messages answer it. Undefined when the flow has nothing to do with them (none under way, or
   * a command, which leaves it): they are answered as usual.
   */
  async handle(
    conversation: string,
    batch: InboundMessage[],
    isCommand: boolean,
    bot: ViewingBot,
  ): Promise<ViewingTurn | undefined> {
    const last = batch.at(-1) as InboundMessage;
    const state = (await this.#options.keyv.get(key(conversation))) as ViewingState | undefined;
    if (state?.last.eventId === last.eventId) return state.last.turn;
    const tap = batch.findLast((message) => cardTapOf(message)?.action === "viewing");
    const tapped = tap && cardTapOf(tap);
    if (tap && tapped) return this.#start(conversation, tap, tapped.mlsNumber, bot);
    if (!state || state.step === "done" || state.updatedAt + this.#timeoutMs <= this.#now()) return undefined;
    const texts = await textsOf(bot);
    const text = batch
      .map((message) => message.text.trim())
      .filter(Boolean)
      .join("\n");
    if (CANCEL_WORDS.has(text.toLowerCase())) {
      return this.#turn(conversation, { ...state, step: "done" }, last, text, { replies: [texts.cancelled] });
    }
    if (isCommand) {
      await this.#options.keyv.delete(key(conversation));
      return undefined;
    }
    if (state.step === "time") {
      if (text === "") {
        return this.#turn(conversation, state, last, text, { replies: [texts.askTime(listingName(state))] });
      }
      const settings = await bot.settings.read();
      const understood = understandTime(text, new Date(this.#now()), knownZone(settings?.TimeZone));
      const next: ViewingState = { ...state, preferred: text, understood };
      if (!reachable(last.user)) {
        return this.#turn(conversation, { ...next, step: "contact" }, last, text, {
          replies: [texts.askContact],
        });
      }
      return this.#finish(conversation, next, last, text, bot, undefined);
    }
    const given = contactIn(text);
    if (!given) return this.#turn(conversation, state, last, text, { replies: [texts.contactAgain] });
    return this.#finish(conversation, state, last, text, bot, given);
  }

  /** A tap: the listing looked up for the mail, and the question about the time. */
  async #start(conversation: string, tap: InboundMessage, mlsNumber: string, bot: ViewingBot): Promise<ViewingTurn> {
    const item = await bot.listings.listing(mlsNumber).catch(() => undefined);
    const state: ViewingState = {
      mlsNumber,
      listing: item ? cardFromListing(item) : undefined,
      step: "time",
      requestId: `${tap.channel}:${tap.botId}:${tap.eventId}`,
      updatedAt: this.#now(),
      last: { eventId: tap.eventId, turn: { replies: [] } },
    };
    const texts = await textsOf(bot);
    return this.#turn(conversation, state, tap, tap.text, { replies: [texts.askTime(listingName(state))] });
  }

  /** Mails the agency and says honestly what became of it; the lead is recorded only for a request passed on. */
  async #finish(
    conversation: string,
    state: ViewingState,
    message: InboundMessage,
    text: string,
    bot: ViewingBot,
    given: string | undefined,
  ): Promise<ViewingTurn> {
    const { outbox, log, transcript } = this.#options;
    await transcript.add(conversation, { from: "user", text, at: this.#now() });
    const settings = await bot.settings.read();
    const language = phraseLanguage(settings?.AIResponseLanguage);
    const texts = viewingTexts(settings?.AIResponseLanguage);
    const mailTo = settings?.TalkToHumanEmail?.trim() || this.#options.email;
    const preferred = state.preferred ?? text;
    // The user's confirmation says the time in their language; the agency's mail and the lead in English.
    const when = state.understood ? describeTime(state.understood, language) : `"${preferred}"`;
    const agencyWhen = state.understood ? describeTime(state.understood) : `"${preferred}"`;
    const contact = given ? `${given} (${contactLink(given)})` : describeReach(message.user);
    let reply: string = texts.unreachable;
    let passed = false;
    if (!outbox || !mailTo) {
      log.warn(
        { conversation },
        outbox
          ? "a viewing was requested but there is no address: set the chatbot's TalkToHumanEmail or HANDOFF_EMAIL"
          : "a viewing was requested but no mail can be sent: set SMTP_URL and MAIL_FROM",
      );
    } else {
      const mail = viewingMail(
        mailTo,
        {
          conversation,
          channel: message.channel,
          user: message.user,
          requestedAt: this.#now(),
          timeZone: settings?.TimeZone,
          mlsNumber: state.mlsNumber,
          listing: state.listing,
          preferred,
          understood: state.understood,
          contact,
          requestId: state.requestId,
        },
        await transcript.recent(conversation, TRANSCRIPT_LINES),
      );
      try {
        const mailId = `${VIEWING_MAIL_PREFIX}${message.channel}:${message.botId}:${message.eventId}`;
        const submitted = await outbox.submit(mailId, mail);
        reply = submitted === "queued" ? texts.queued(when) : texts.sent(when);
        passed = true;
        log.info({ conversation, mls: state.mlsNumber, outcome: submitted }, "viewing requested");
      } catch (error) {
        log.error({ err: error, conversation }, "the viewing mail could not be sent or queued");
      }
    }
    const reach = given ?? message.user.handle;
    const lead = passed
      ? {
          Type: "Viewing" as const,
          Name: message.user.name ?? message.user.handle,
          Email: reach?.includes("@") ? reach : undefined,
          Phone: reach && isContact(reach) && !reach.includes("@") ? reach : undefined,
          Content: `Viewing of ${listingName(state)} (MLS ${state.mlsNumber}): "${preferred}"${
            state.understood ? `, understood as ${agencyWhen} (${state.understood.timeZone})` : ""
          }`,
        }
      : undefined;
    return this.#turn(conversation, { ...state, step: "done" }, message, undefined, { replies: [reply], lead });
  }

  /** Keeps the state with the turn it gave, and notes the user's message (unless noted) and the replies. */
  async #turn(
    conversation: string,
    state: ViewingState,
    message: InboundMessage,
    said: string | undefined,
    turn: ViewingTurn,
  ): Promise<ViewingTurn> {
    const { keyv, transcript } = this.#options;
    const now = this.#now();
    if (said) await transcript.add(conversation, { from: "user", text: said, at: now });
    for (const reply of turn.replies) await transcript.add(conversation, { from: "bot", text: reply, at: now });
    const kept: ViewingState = { ...state, updatedAt: now, last: { eventId: message.eventId, turn } };
    await keyv.set(key(conversation), kept, this.#timeoutMs);
    return turn;
  }
}

/** Whether the channel says how to reach the user (a Telegram @username, a WhatsApp number, a Slack link). */
function reachable(user: InboundMessage["user"]): boolean {
  return Boolean(user.handle || user.link);
}

/** "@ana — https://t.me/ana": what the channel says of how to reach the user. */
function describeReach(user: InboundMessage["user"]): string {
  return [user.handle, user.link].filter(Boolean).join(" — ");
}

/** The e-mail address or phone number written in `text` (alone or in a sentence), if any. */
function contactIn(text: string): string | undefined {
  if (isContact(text)) return text.trim();
  return [...text.matchAll(CONTACT_IN_TEXT)].map((match) => match[0].trim()).find(isContact);
}

/** The flow's words in the bot's chatbot's AIResponseLanguage (English when its settings cannot be read). */
async function textsOf(bot: ViewingBot): Promise<ViewingTexts> {
  const settings = await bot.settings.read().catch(() => undefined);
  return viewingTexts(settings?.AIResponseLanguage);
}
