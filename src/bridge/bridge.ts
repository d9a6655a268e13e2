import { setMaxListeners } from "node:events";
import { type AnswerEvent, type AnswerFinal, ChatbotApiError, type ChatbotClient } from "../client/index.js";
import type { BridgeConfig } from "../config.js";
import type { Logger } from "../log.js";
import type { MailOutbox } from "../mail/mail-outbox.js";
import { AlbumCollector } from "./album-collector.js";
import { askWithRecovery } from "./ask-with-recovery.js";
import type { Channel, OutgoingText } from "./channel.js";
import { ChatbotSettingsReader } from "./chatbot-settings.js";
import { commandIn } from "./commands.js";
import { conversationKey } from "./conversation-key.js";
import { ConversationQueue } from "./conversation-queue.js";
import { Greeter } from "./greeter.js";
import { HandoffDesk } from "./handoff/handoff-desk.js";
import { type HandoffBot, HandoffRouting } from "./handoff/handoff-routing.js";
import type { InboundMessage, ReplyTarget } from "./inbound.js";
import { refusalText } from "./media/refusals.js";
import { MediaPipeline, type MediaPlan, type MediaQuestion } from "./media.js";
import type { BridgeMetrics } from "./metrics.js";
import { Pacer } from "./reply/pacer.js";
import { streamReply } from "./reply/reply-streamer.js";
import { SessionDirectory } from "./sessions.js";
import type { BridgeStore } from "./store/bridge-store.js";
import { Transcript } from "./transcript.js";

/** The chatbot one bot of this deployment talks to. */
export interface ChatbotLink {
  botId: string;
  client: ChatbotClient;
  serialNumber: string;
  /** This bot's greeting when its chatbot's WelcomeMessage cannot be read; undefined = WELCOME_TEXT. */
  welcomeText?: string | undefined;
}

/** Everything the bridge works with. */
export interface BridgeDependencies {
  store: BridgeStore;
  config: BridgeConfig;
  chatbots: ChatbotLink[];
  log: Logger;
  metrics: BridgeMetrics;
  /** Where handoff mails go out; undefined when no SMTP server is configured. */
  outbox?: MailOutbox | undefined;
}

/** Longer than any platform's retry window (WhatsApp retries for up to 7 days). */
const DEDUP_TTL_MS = 8 * 24 * 60 * 60 * 1000;

/** Longest time the files of one question may take to download, convert and upload (a 100 MB video included). */
const MEDIA_TIMEOUT_MS = 120_000;

interface Attached {
  channel: Channel;
  pacer: Pacer;
}

interface BotState {
  link: ChatbotLink;
  settings: ChatbotSettingsReader;
  sessions: SessionDirectory;
  greeter: Greeter;
}

/**
 * The channel-agnostic core: every platform event at most once (atomic claim in the store), each
 * conversation answered in order while others run in parallel (an album's photos gathered first), one chatbot
 * session per conversation, files forwarded through the media pipeline, streamed answers paced within each
 * platform's limits, an apology instead of silence when the chatbot fails.
 */
export class Bridge {
  readonly #deps: BridgeDependencies;
  readonly #channels = new Map<string, Attached>();
  readonly #bots = new Map<string, BotState>();
  readonly #queue: ConversationQueue<InboundMessage>;
  readonly #albums: AlbumCollector;
  readonly #media: MediaPipeline;
  readonly #handoff: HandoffRouting;
  readonly #shutdown = new AbortController();
  /** The answer under way per conversation, so the user can stop it. */
  readonly #stoppers = new Map<string, AbortController>();
  #accepting = true;

  constructor(deps: BridgeDependencies) {
    this.#deps = deps;
    // Every answer under way listens to the shutdown signal: thousands at once are expected, not a leak.
    setMaxListeners(0, this.#shutdown.signal);
    const keyv = deps.store.keyv;
    for (const link of deps.chatbots) {
      const settings = new ChatbotSettingsReader(link, deps.log);
      this.#bots.set(link.botId, {
        link,
        settings,
        sessions: new SessionDirectory(keyv, link.client, link.serialNumber, deps.config.sessionIdleMs),
        greeter: new Greeter(keyv, settings, link.welcomeText ?? deps.config.welcomeText),
      });
    }
    this.#queue = new ConversationQueue(deps.config.queueMode, (key, batch) => this.#answer(key, batch));
    this.#albums = new AlbumCollector(deps.config.media.groupWindowMs, (key, message) =>
      this.#queue.push(key, message),
    );
    this.#media = new MediaPipeline(deps.config.media, deps.metrics, deps.log);
    const desk = new HandoffDesk({
      keyv,
      outbox: deps.outbox,
      timeoutMs: deps.config.handoff.timeoutMs,
      log: deps.log,
      metrics: deps.metrics,
      notify: (handoff, text) => {
        const attached = this.#channels.get(`${handoff.channel}:${handoff.botId}`);
        if (!attached) return Promise.reject(new Error(`channel ${handoff.channel} of bot ${handoff.botId} is gone`));
        return this.#sendFinal(attached, handoff.target, { text, format: "plain" });
      },
    });
    this.#handoff = new HandoffRouting(desk, new Transcript(keyv), deps.config.handoff, deps.metrics);
    desk.start();
  }

  /** The conversations handed to a person (for the CLI and the admin endpoint). */
  get handoffs(): HandoffDesk {
    return this.#handoff.desk;
  }

  /** Connects a channel's outbound side; its inbound side calls {@link accept}. */
  attach(channel: Channel): void {
    this.#channels.set(`${channel.name}:${channel.botId}`, { channel, pacer: new Pacer(channel) });
  }

  /** Conversations with an answer under way. */
  get activeConversations(): number {
    return this.#queue.active;
  }

  /**
   * Takes a message from an adapter and returns at once (the adapter acknowledges the webhook): a repeated
   * event is recognised and dropped, a new one is queued behind its conversation's earlier messages.
   */
  async accept(message: InboundMessage): Promise<"accepted" | "duplicate" | "stopping"> {
    if (!this.#accepting) return "stopping";
    const claimed = await this.#deps.store.claimOnce(
      `event:${message.channel}:${message.botId}:${message.eventId}`,
      DEDUP_TTL_MS,
    );
    if (!claimed) return "duplicate";
    this.#deps.metrics.messagesIn.inc({ channel: message.channel });
    this.#albums.add(conversationKey(message, this.#deps.config.groupSessionScope), message);
    return "accepted";
  }

  /** Stops the answer under way in the message's conversation, keeping what was shown. */
  cancel(message: Pick<InboundMessage, "channel" | "botId" | "target" | "user">): void {
    this.#stoppers.get(conversationKey(message, this.#deps.config.groupSessionScope))?.abort();
  }

  /**
   * Stops taking messages, lets answers under way finish for up to `graceMs`, then ends the rest cleanly
   * (the user keeps the text shown so far).
   */
  async stop(graceMs: number): Promise<void> {
    this.#accepting = false;
    this.#albums.flushAll();
    const timer = setTimeout(() => this.#shutdown.abort(), graceMs);
    await this.#queue.idle();
    clearTimeout(timer);
    await this.#handoff.desk.stop();
  }

  async #answer(conversation: string, batch: InboundMessage[]): Promise<void> {
    const last = batch.at(-1);
    if (!last) return;
    const attached = this.#channels.get(`${last.channel}:${last.botId}`);
    const bot = this.#bots.get(last.botId);
    if (!attached || !bot) {
      this.#deps.log.error(
        { channel: last.channel, botId: last.botId },
        "message for a channel or bot that is not set up",
      );
      return;
    }
    // Merged messages are asked as one question, in the order they came.
    const text = batch
      .map((message) => message.text.trim())
      .filter(Boolean)
      .join("\n");
    const command = commandIn(text, this.#deps.config.resetKeyword);
    const { channel } = attached;
    try {
      // The greeting goes out once per conversation unasked (first contact), and whenever /start or /reset asks.
      const firstContact = await bot.greeter.firstContact(conversation);
      if (command === "reset") await bot.sessions.renew(conversation, this.#shutdown.signal);
      if (command || firstContact) await this.#sendFinal(attached, last.target, await bot.greeter.greeting());
      if (command) return;
      const send = (reply: OutgoingText) => this.#sendFinal(attached, last.target, reply);
      if (await this.#handoff.handle(conversation, batch, text, this.#handoffBot(bot, conversation), send)) return;
      let { id: sessionId } = await bot.sessions.current(conversation, this.#shutdown.signal);
      const plan = batch.some((message) => message.media.length > 0)
        ? await this.#prepareMedia(attached, bot, batch)
        : { questions: [{ askType: "Text" as const, content: text, fileIds: [] }], refusals: [] };
      const { media, apologyText } = this.#deps.config;
      for (const refusal of plan.refusals) {
        await this.#sendFinal(attached, last.target, {
          text: refusalText(refusal, media, apologyText),
          format: "plain",
        });
      }
      for (const question of plan.questions) {
        sessionId = await this.#ask(attached, bot, conversation, sessionId, question, last);
      }
    } catch (error) {
      this.#deps.log.warn({ err: error, channel: channel.name, conversation }, "answer failed");
      if (error instanceof ChatbotApiError) this.#deps.metrics.upstreamErrors.inc({ kind: error.kind });
      if (this.#shutdown.signal.aborted) return;
      await this.#sendFinal(attached, last.target, { text: this.#deps.config.apologyText, format: "plain" }).catch(
        (failure: unknown) => this.#deps.log.error({ err: failure, conversation }, "the apology could not be sent"),
      );
    }
  }

  /** A bot as handoffs need it: its settings, and where a request for a person is recorded as a lead. */
  #handoffBot(bot: BotState, conversation: string): HandoffBot {
    const { link, sessions } = bot;
    return {
      settings: bot.settings,
      recordLead: async (lead) => {
        try {
          const session = await sessions.current(conversation, this.#shutdown.signal);
          await link.client.addLead({ ...lead, serialNumber: link.serialNumber, sessionID: session.id });
        } catch (error) {
          this.#deps.log.debug({ err: error, conversation }, "the handoff was not recorded as a lead");
        }
      },
    };
  }

  /** Downloads, converts and uploads the batch's files, showing the typing indicator meanwhile. */
  async #prepareMedia({ channel, pacer }: Attached, bot: BotState, batch: InboundMessage[]): Promise<MediaPlan> {
    const target = batch.at(-1)?.target;
    if (target) {
      pacer
        .schedule(target, "typing", () => channel.typing(target).then(() => true), undefined, { operation: "typing" })
        .catch(() => undefined);
    }
    const signal = AbortSignal.any([AbortSignal.timeout(MEDIA_TIMEOUT_MS), this.#shutdown.signal]);
    return this.#media.prepare(channel, bot.link.client, batch, signal);
  }

  /** Asks one question and streams its answer; returns the session it was asked in (renewed if it had expired). */
  async #ask(
    attached: Attached,
    bot: BotState,
    conversation: string,
    sessionId: number,
    question: MediaQuestion,
    message: InboundMessage,
  ): Promise<number> {
    const { metrics, config } = this.#deps;
    const stopper = new AbortController();
    this.#stoppers.set(conversation, stopper);
    // Stopped by the user or by shutdown: end quietly with the text so far. Timed out: the caller apologises.
    const ended = AbortSignal.any([stopper.signal, this.#shutdown.signal]);
    const signal = AbortSignal.any([AbortSignal.timeout(config.answerTimeoutMs), ended]);
    const started = message.receivedAt.getTime();
    metrics.activeStreams.inc();
    try {
      const source = await askWithRecovery(
        bot.link.client,
        { sessionId, content: question.content, chatAskType: question.askType, fileIds: question.fileIds },
        () => bot.sessions.renew(conversation, signal),
        signal,
      );
      let final: AnswerFinal | undefined;
      const result = await streamReply({
        channel: attached.channel,
        target: message.target,
        pacer: attached.pacer,
        events: tap(source.events, (event) => {
          if (event.type === "final") final = event;
        }),
        signal: ended,
        onFirstText: () =>
          metrics.firstTextSeconds.observe({ channel: message.channel }, (Date.now() - started) / 1000),
      });
      // An answer with no text at all would leave the user in silence.
      if (result.messages === 0 && !ended.aborted) throw new Error("the chatbot's answer was empty");
      metrics.messagesOut.inc({ channel: message.channel }, result.messages);
      metrics.answerSeconds.observe({ channel: message.channel }, (Date.now() - started) / 1000);
      await this.#handoff.answered(conversation, result.delivered, final?.noAnswer === true, bot.settings, (text) =>
        this.#sendFinal(attached, message.target, text),
      );
      return source.sessionId;
    } catch (error) {
      if (!stopper.signal.aborted) throw error;
      return sessionId;
    } finally {
      this.#stoppers.delete(conversation);
      metrics.activeStreams.dec();
    }
  }

  /** A message that must arrive: paced as a final, so it waits for capacity rather than being dropped. */
  async #sendFinal({ channel, pacer }: Attached, target: ReplyTarget, text: OutgoingText): Promise<void> {
    await pacer.schedule(target, "final", () => channel.send(target, text), undefined, { operation: "send" });
    this.#deps.metrics.messagesOut.inc({ channel: channel.name });
  }
}

/** The events as they come, each shown to `see` on its way. */
async function* tap(
  events: AsyncIterable<AnswerEvent>,
  see: (event: AnswerEvent) => void,
): AsyncGenerator<AnswerEvent> {
  for await (const event of events) {
    see(event);
    yield event;
  }
}
