import { type AnswerEvent, type AnswerFinal, ChatbotApiError } from "../client/index.js";
import { openedLater, tapped } from "../client/stream/pass-through.js";
import { askWithRecovery } from "./ask-with-recovery.js";
import { type Attached, type BotState, type BridgeParts, sendFinal } from "./bridge-parts.js";
import type { OutgoingText } from "./channel.js";
import { commandIn } from "./commands.js";
import { handoffIntent } from "../features/handoff/handoff-request.js";
import type { HandoffBot } from "../features/handoff/handoff-routing.js";
import type { InboundMessage, ReplyTarget } from "./inbound.js";
import type { Job } from "./job-ledger.js";
import { isLimitRefusal, limitRefusalText } from "./limit-refusal.js";
import { LinkedAbort } from "./linked-abort.js";
import type { ListingCard } from "../features/listings/listing-card.js";
import { linkAsMessage, listingLinkIn } from "../features/listings/listing-links.js";
import { listingReferences } from "../features/listings/listing-references.js";
import { cardAsText, cardLabelsOf, cardQuestions, lookUpCards, tapsViewing } from "../features/listings/listing-steps.js";
import { recordListingVisit, viewingQuestion } from "../features/listings/listing-visit.js";
import { sendCardsOnce } from "../features/listings/send-cards.js";
import type { MediaPlan, MediaQuestion } from "./media/media-pipeline.js";
import { refusalText } from "./media/refusals.js";
import { type AnswerProgress, streamReply } from "./reply/reply-streamer.js";

/** Longest time the files of one question may take to download, convert and upload (a 100 MB video included). */
const MEDIA_TIMEOUT_MS = 120_000;

/** What the ledger keeps of one question: how far its answer got. */
interface AskRecord {
  /** The session it was asked in. */
  sessionId: number;
  /** The question went upstream (set before it goes): a holder resuming without an answer asks again. */
  asked: boolean;
  /** The chatbot's complete answer, once its final event came: a resuming holder delivers it without asking. */
  final?: AnswerFinal | undefined;
  /** What the platform shows of the answer so far. */
  progress?: AnswerProgress | undefined;
  /** Set when the answer is delivered: the text, as the transcript takes it. */
  delivered?: string | undefined;
  /** The user stopped the answer: no cards follow what was shown of it. */
  stopped?: boolean | undefined;
  /** The chatbot had no answer (its final said so), kept once the answer is delivered and `final` is let go. */
  noAnswer?: boolean | undefined;
}

/**
 * Answers one batch of a conversation's messages, step by step, each step recorded in the job's ledger so that a
 * holder resuming the job after a crash skips what was done and continues what was under way: the first-contact
 * decision, /reset, the handoff desk, the session, the media plan (files uploaded once), each refusal, and each
 * question — asked once unless the answer was lost with its holder, delivered in the messages already sent.
 */
export class AnswerJob {
  readonly #parts: BridgeParts;
  readonly #job: Job;
  readonly #batch: InboundMessage[];
  readonly #last: InboundMessage;

  constructor(parts: BridgeParts, job: Job, batch: InboundMessage[]) {
    this.#parts = parts;
    this.#job = job;
    this.#batch = batch;
    this.#last = batch.at(-1) as InboundMessage;
  }

  async run(): Promise<void> {
    const { log, metrics, config } = this.#parts;
    const last = this.#last;
    const attached = this.#parts.attached(last.channel, last.botId);
    const bot = this.#parts.bot(last.botId);
    if (!attached || !bot) {
      log.error({ channel: last.channel, botId: last.botId }, "message for a channel or bot that is not set up");
      return;
    }
    const { conversation, ledger, fence } = this.#job;
    // Merged messages are asked as one question, in the order they came.
    let text = this.#batch
      .map((message) => message.text.trim())
      .filter(Boolean)
      .join("\n");
    const command = commandIn(text, config.resetKeyword);
    try {
      // Recorded, as the greeter remembers the conversation: a resumed job must neither greet again nor forget to.
      // Only a first contact is written at once: "seen before" is what the greeter answers again after a crash.
      const firstContact = await this.#once(
        "first-contact",
        () => bot.greeter.firstContact(conversation),
        (first) => first,
      );
      if (command === "reset" && !ledger.has("reset")) {
        await bot.sessions.renew(conversation, fence);
        await ledger.record("reset", true);
      }
      // A conversation opened from a listing's link (Telegram's /start <code> included) starts with that listing;
      // like a command, it leaves a viewing flow under way.
      const visited = command === "reset" ? undefined : listingLinkIn(text);
      // A tap on "Book a viewing" and the messages that answer its questions are the viewing flow's; a command, or
      // a request for a person ("talk to a human" is no preferred time), leaves the flow and is handled as usual.
      const leaves =
        command !== undefined ||
        text.startsWith("/") ||
        visited !== undefined ||
        handoffIntent(text, config.handoff.keywords) !== undefined;
      // A first message that starts a flow or opens a listing gets the greeting first, on its own.
      const greet = () => this.#sendOnce("greeting", attached, last.target, bot.greeter.greeting());
      const paused = await this.#paused(visited !== undefined);
      if (!paused && (await this.#viewing(attached, bot, leaves, firstContact ? greet : undefined))) return;
      if (visited !== undefined) {
        // While a person has the conversation, the link is a message for them, naming the listing (the visit counts).
        const forwarded = paused ? this.#namingListings() : undefined;
        if (forwarded && (await this.#handoff(attached, bot, linkAsMessage(text, visited), undefined, forwarded))) {
          await this.#visit(bot, visited);
          return;
        }
        if (firstContact) await greet();
        await this.#listingVisit(attached, bot, visited);
        return;
      }
      // /start and /reset are answered with the greeting alone.
      if (command) {
        await this.#sendOnce("greeting", attached, last.target, await bot.greeter.greeting());
        return;
      }
      // Alerts' commands, a sentence asking for one and the /alert flow's answers are the bridge's, whatever the handoff.
      // Recorded only when it is about alerts: for any other message the desk changed nothing, and asking it again
      // on a resumed job gives the same answer, so most messages cost no ledger write here.
      let alertReply = ledger.step<OutgoingText>("alerts");
      if (!alertReply) {
        const origin = { channel: last.channel, botId: last.botId, target: last.target };
        alertReply = await this.#parts.alerts.handle(conversation, origin, text, last.eventId);
        if (alertReply) await ledger.record("alerts", alertReply);
      }
      if (alertReply) {
        if (firstContact) await greet();
        await this.#sendOnce("alerts-reply", attached, last.target, alertReply);
        return;
      }
      // A tap on a listing card's button asks the question it stands for, built once from the listing.
      if (this.#batch.some((message) => message.cardAction)) {
        text = await this.#once("card-questions", () => cardQuestions(this.#batch, bot));
      }
      // A message the handoff desk answers (a request for a person) gets the greeting first, on its own.
      const greetFirst = firstContact ? greet : undefined;
      if (await this.#handoff(attached, bot, text, greetFirst)) {
        if (greetFirst) await greetFirst();
        return;
      }
      // The session in use is the store's until the question's own record (written before it is asked) keeps it; a
      // plan without files uploaded nothing.
      let sessionId = await this.#once(
        "session",
        async () => (await bot.sessions.current(conversation, fence)).id,
        () => false,
      );
      const plan = await this.#once(
        "plan",
        () => this.#plan(attached, bot, text),
        (planned) => planned.refusals.length > 0 || planned.questions.some((question) => question.fileIds.length > 0),
      );
      for (const [index, refusal] of plan.refusals.entries()) {
        const reply = refusalText(refusal, config.media, config.apologyText);
        await this.#sendOnce(`refusal:${index}`, attached, last.target, { text: reply, format: "plain" });
      }
      // At first contact the greeting opens the first answer, in the same message, so that it never delays it.
      const greeting = firstContact ? await bot.greeter.greeting() : undefined;
      if (greeting && plan.questions.length === 0) await this.#sendOnce("greeting", attached, last.target, greeting);
      for (const [index, question] of plan.questions.entries()) {
        // Its suggestions (the chatbot's SuggestedMessage) are offered with the end of that answer.
        const opening = index === 0 && greeting ? greeting : undefined;
        sessionId = await this.#ask(attached, bot, sessionId, question, index, opening);
      }
    } catch (error) {
      if (fence.aborted) throw error;
      log.warn({ err: error, channel: last.channel, conversation }, "answer failed");
      if (error instanceof ChatbotApiError) metrics.upstreamErrors.inc({ kind: error.kind });
      // The chatbot's limits refused the question: the owner's words, not an apology for a failure.
      const limited = isLimitRefusal(error);
      const text = limited
        ? limitRefusalText(error, await bot.settings.read().catch(() => undefined))
        : config.apologyText;
      const after = limited ? error.retryAfterMs : undefined;
      const retryAt = after !== undefined && after > 0 ? new Date(Date.now() + after) : undefined;
      await this.#sendOnce("apology", attached, last.target, { text, format: "plain", retryAt }).catch(
        (failure: unknown) => {
          if (!fence.aborted) log.error({ err: failure, conversation }, "the apology could not be sent");
        },
      );
    }
  }

  /**
   * The handoff desk's part; true when the messages were handled and are not to be asked. `batch`: the messages as
   * the desk passes them on (the job's own by default).
   */
  async #handoff(
    attached: Attached,
    bot: BotState,
    text: string,
    before: (() => Promise<void>) | undefined,
    batch: InboundMessage[] = this.#batch,
  ): Promise<boolean> {
    const { ledger, conversation } = this.#job;
    const done = ledger.step<boolean>("handoff");
    if (done !== undefined) return done;
    let sends = 0;
    // Each of its texts is a step of its own: redone after a crash, the desk's work sends none of them twice.
    const send = async (reply: OutgoingText) => {
      await before?.();
      await this.#sendOnce(`handoff-send:${sends++}`, attached, this.#last.target, reply);
    };
    const handled = await this.#parts.handoff.handle(conversation, batch, text, this.#handoffBot(bot), send);
    // A message the desk left alone changed nothing there: redone after a crash, it is left alone again.
    if (handled) await ledger.record("handoff", handled);
    else ledger.note("handoff", handled);
    return handled;
  }

  /** A bot as handoffs need it: its settings, and where a request for a person is recorded as a lead. */
  #handoffBot(bot: BotState): HandoffBot {
    const { link, sessions } = bot;
    const { conversation, fence } = this.#job;
    return {
      settings: bot.settings,
      recordLead: async (lead) => {
        try {
          const session = await sessions.current(conversation, fence);
          await link.client.addLead({ ...lead, serialNumber: link.serialNumber, sessionID: session.id });
        } catch (error) {
          this.#parts.log.debug({ err: error, conversation }, "the handoff was not recorded as a lead");
        }
      },
    };
  }

  /**
   * The viewing flow's part, recorded as a step (the flow keeps its own state with the event each turn answered, so
   * its work is not redone either); its replies are sent once each and its lead recorded once. True when the
   * messages were the flow's and are not to be asked.
   */
  async #viewing(
    attached: Attached,
    bot: BotState,
    isCommand: boolean,
    greet: (() => Promise<void>) | undefined,
  ): Promise<boolean> {
    const { conversation } = this.#job;
    // Not a turn of the viewing flow: nothing changed, and asking again after a crash answers the same.
    const turn = await this.#once(
      "viewing",
      async () => (await this.#parts.viewings.handle(conversation, this.#batch, isCommand, bot)) ?? null,
      (found) => found !== null,
    );
    if (!turn) return false;
    await greet?.();
    for (const [index, text] of turn.replies.entries()) {
      await this.#sendOnce(`viewing-send:${index}`, attached, this.#last.target, { text, format: "plain" });
    }
    const lead = turn.lead;
    if (lead)
      await this.#once("viewing-lead", () =>
        this.#handoffBot(bot)
          .recordLead(lead)
          .then(() => true),
      );
    return true;
  }

  /**
   * Whether a person has the conversation when the batch taps "Book a viewing" or opens a listing's link: the bot is
   * paused, so the tap or link is a message for that person (the handoff desk forwards it, naming the listing), not
   * the bot's flow or card. Recorded, so a resumed job decides the same way.
   */
  async #paused(opensListing: boolean): Promise<boolean> {
    if (!opensListing && !tapsViewing(this.#batch)) return false;
    const { conversation } = this.#job;
    return this.#once("paused", async () => (await this.#parts.handoff.desk.active(conversation)) !== undefined);
  }

  /**
   * A conversation opened from the link of listing `mlsNumber` (`chatbridge links`): the listing's card and the
   * viewing question, each a step of the ledger (after the greeting on first contact); the visit counted once, with
   * the lookup. A listing that is gone gets the greeting.
   */
  async #listingVisit(attached: Attached, bot: BotState, mlsNumber: string): Promise<void> {
    const target = this.#last.target;
    const cards = await this.#visit(bot, mlsNumber);
    const card = cards[0];
    if (!card) {
      await this.#sendOnce("greeting", attached, target, bot.greeter.greeting());
      return;
    }
    if (attached.channel.cards)
      await sendCardsOnce(
        this.#parts,
        attached,
        target,
        this.#job,
        "visit-card",
        async () => cards,
        await cardLabelsOf(bot),
      );
    else await this.#sendOnce("visit-card", attached, target, { text: cardAsText(card), format: "plain" });
    const question = viewingQuestion((await bot.settings.read().catch(() => undefined))?.AIResponseLanguage);
    await this.#sendOnce("visit-question", attached, target, { text: question, format: "plain" });
  }

  /** The batch with each listing's link named as its listing, as a person reads it. */
  #namingListings(): InboundMessage[] {
    return this.#batch.map((message) => {
      const mlsNumber = listingLinkIn(message.text);
      return mlsNumber === undefined ? message : { ...message, text: linkAsMessage(message.text, mlsNumber) };
    });
  }

  /** The visit of listing `mlsNumber`'s link, counted once with its lookup: the listing's card, when it still exists. */
  #visit(bot: BotState, mlsNumber: string): Promise<ListingCard[]> {
    const { metrics, log } = this.#parts;
    const { conversation, fence } = this.#job;
    const channel = this.#last.channel;
    return this.#once("visit", async () => {
      const found = await lookUpCards(bot, [{ kind: "mls", mlsNumber }], 1);
      const visited = found[0]?.mlsNumber ?? mlsNumber;
      await recordListingVisit({ bot, conversation, channel, mlsNumber: visited, fence }, metrics, log);
      return found;
    });
  }

  /** The questions to ask: the text, or what the files became (downloaded, converted and uploaded once). */
  async #plan(attached: Attached, bot: BotState, text: string): Promise<MediaPlan> {
    if (!this.#batch.some((message) => message.media.length > 0)) {
      return { questions: [{ askType: "Text", content: text, fileIds: [] }], refusals: [] };
    }
    const { channel, pacer } = attached;
    const target = this.#last.target;
    pacer
      .schedule(target, "typing", () => channel.typing(target).then(() => true), undefined, { operation: "typing" })
      .catch(() => undefined);
    const preparing = new LinkedAbort([this.#job.fence], MEDIA_TIMEOUT_MS);
    try {
      return await this.#parts.media.prepare(channel, bot.link.client, this.#batch, preparing.signal);
    } finally {
      preparing.unlink();
    }
  }

  /**
   * Asks question `index` and streams its answer; returns the session it was asked in (renewed if it had expired).
   * Resumed: a delivered answer is skipped, a complete one delivered from the ledger without asking, one whose
   * answer was lost with its holder asked again (the chatbot's second answer finishing the same messages).
   */
  async #ask(
    attached: Attached,
    bot: BotState,
    sessionId: number,
    question: MediaQuestion,
    index: number,
    greeting: OutgoingText | undefined,
  ): Promise<number> {
    const { metrics, config, log } = this.#parts;
    const { conversation, ledger, fence } = this.#job;
    const message = this.#last;
    const step = `ask:${index}`;
    const stored = ledger.step<AskRecord>(step);
    if (stored?.delivered !== undefined) {
      // Delivered by an earlier holder: what follows the text (cards, the handoff's follow-up) continues.
      await this.#afterDelivery(attached, bot, stored, index);
      return stored.sessionId;
    }
    const record: AskRecord = stored ?? { sessionId, asked: false };
    const stopper = this.#parts.stoppers.begin(conversation);
    // Stopped by the user: end quietly with the text so far. Timed out: the apology follows.
    const asking = new LinkedAbort([stopper.signal, fence], config.answerTimeoutMs);
    const signal = asking.signal;
    const started = message.receivedAt.getTime();
    metrics.activeStreams.inc();
    try {
      let events: AsyncIterable<AnswerEvent>;
      if (record.final) {
        metrics.ledgerResumes.inc({ kind: "answered" });
        events = replay(record.final);
      } else {
        if (record.asked) {
          metrics.ledgerResumes.inc({ kind: "asked_again" });
          log.info({ conversation, step }, "the answer was lost with its holder: asking again");
        }
        record.asked = true;
        await ledger.record(step, record);
        // The reply starts at once (typing, the greeting), while the chatbot thinks.
        events = this.#answerOf(bot, record, question, signal, () => this.#keep(step, record));
      }
      const result = await streamReply({
        channel: attached.channel,
        target: message.target,
        pacer: attached.pacer,
        // Split on the rendered length: markup can make a piece several times longer on the platform.
        measure: attached.channel.measure?.bind(attached.channel),
        events,
        signal: stopper.signal,
        fence,
        preface: greeting ? `${asMarkdown(greeting)}\n\n` : undefined,
        quickReplies: greeting?.quickReplies,
        resume: record.progress,
        answerId: `${conversation}|${ledger.jobId}|${step}`,
        onProgress: (progress) => {
          record.progress = progress;
          this.#keep(step, record);
        },
        onDiverged: () => metrics.ledgerResumes.inc({ kind: "diverged" }),
        onFirstText: () =>
          metrics.firstTextSeconds.observe({ channel: message.channel }, (Date.now() - started) / 1000),
      });
      // An answer with no text at all would leave the user in silence.
      if (result.messages === 0 && !stopper.signal.aborted) throw new Error("the chatbot's answer was empty");
      record.delivered = result.delivered;
      // Delivered, the answer's text is in `delivered`: the final and the progress (two more copies of it, in each
      // of the job's next writes) are of no more use.
      record.noAnswer = record.final?.noAnswer === true;
      record.final = undefined;
      record.progress = undefined;
      if (stopper.signal.aborted) record.stopped = true;
      await ledger.record(step, record);
      metrics.messagesOut.inc({ channel: message.channel }, result.messages);
      metrics.answerSeconds.observe({ channel: message.channel }, (Date.now() - started) / 1000);
      await this.#afterDelivery(attached, bot, record, index);
      return record.sessionId;
    } catch (error) {
      if (fence.aborted || !stopper.signal.aborted) throw error;
      return record.sessionId;
    } finally {
      asking.unlink();
      stopper.end();
      metrics.activeStreams.dec();
    }
  }

  /**
   * What follows a delivered answer, each a step of its own: the listing cards it names (after the text, never
   * before it), then the handoff desk's follow-up.
   */
  async #afterDelivery(attached: Attached, bot: BotState, record: AskRecord, index: number): Promise<void> {
    const { conversation, ledger, fence } = this.#job;
    const delivered = record.delivered ?? "";
    const max = this.#parts.config.listingCardsMax;
    if (!record.stopped && max > 0) {
      const lookUp = async () => {
        const references = listingReferences(delivered);
        return references.length === 0 ? [] : lookUpCards(bot, references, max);
      };
      const labels = await cardLabelsOf(bot);
      await sendCardsOnce(this.#parts, attached, this.#last.target, this.#job, `cards:${index}`, lookUp, labels);
    }
    if (ledger.has(`answered:${index}`)) return;
    await this.#parts.handoff.answered(
      conversation,
      delivered,
      (record.noAnswer ?? record.final?.noAnswer) === true,
      bot.settings,
      (text) => sendFinal(this.#parts, attached, this.#last.target, text, fence),
    );
    await ledger.record(`answered:${index}`, true);
  }

  /**
   * The chatbot's answer to `question`, asked in the record's session (renewed once if unknown upstream) when its
   * first event is asked for; the session it came from and its final event go into the record, `kept` each time.
   */
  #answerOf(
    bot: BotState,
    record: AskRecord,
    question: MediaQuestion,
    signal: AbortSignal,
    kept: () => void,
  ): AsyncIterableIterator<AnswerEvent> {
    const { conversation } = this.#job;
    return openedLater(async () => {
      const source = await askWithRecovery(
        bot.link.client,
        {
          sessionId: record.sessionId,
          content: question.content,
          chatAskType: question.askType,
          fileIds: question.fileIds,
        },
        () => bot.sessions.renew(conversation, signal),
        signal,
      );
      if (source.sessionId !== record.sessionId) {
        record.sessionId = source.sessionId;
        kept();
      }
      return tapped(source.events, (event) => {
        if (event.type === "final") {
          record.final = event;
          kept();
        }
      });
    });
  }

  /** Records `record` for `step` without waiting; a write that fails (the lease is gone) puts the fence down. */
  #keep(step: string, record: AskRecord): void {
    this.#job.ledger.record(step, record).catch((error: unknown) => this.#job.lose(error));
  }

  /**
   * Runs `work` unless step `name` recorded its result before; records the result, at once where `durable` says
   * it must be (by default always), else along with the next write (see JobLedger.note).
   */
  async #once<T>(name: string, work: () => Promise<T>, durable: (result: T) => boolean = () => true): Promise<T> {
    const { ledger } = this.#job;
    if (ledger.has(name)) return ledger.step<T>(name) as T;
    const result = await work();
    if (durable(result)) await ledger.record(name, result);
    else ledger.note(name, result);
    return result;
  }

  /** Sends a final message unless step `name` sent it before. */
  async #sendOnce(
    name: string,
    attached: Attached,
    target: ReplyTarget,
    text: OutgoingText | Promise<OutgoingText>,
  ): Promise<void> {
    const { ledger, fence } = this.#job;
    if (ledger.has(name)) return;
    await sendFinal(this.#parts, attached, target, await text, fence);
    await ledger.record(name, true);
  }
}

/** A greeting as markdown to open an answer with: plain text has the characters markdown would read escaped. */
function asMarkdown(text: OutgoingText): string {
  return text.format === "markdown" ? text.text : text.text.replace(/([\\`*_[\]<>#~|])/g, "\\$1");
}

/** A complete answer from the ledger, as the stream it came in would end. */
async function* replay(final: AnswerFinal): AsyncGenerator<AnswerEvent> {
  yield final;
}
