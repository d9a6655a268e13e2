import { randomUUID } from "node:crypto";
import { setMaxListeners } from "node:events";
import type { Logger } from "../common/log.js";
import type { BridgeConfig } from "../config/config.js";
import type { MailOutbox } from "../mail/mail-outbox.js";
import { AnswerJob, type ResolvedSteps } from "./answer-job.js";
import type { AfterAnswerStep, AnswerStep } from "./answer-step.js";
import { AnswerStops } from "./answer-stops.js";
import type { BackgroundDuty } from "./background-passes.js";
import { type Attached, type BotState, type BridgeParts, sendFinal } from "./bridge-parts.js";
import type { Channel } from "./channel.js";
import type { ChatbotLink, ChatbotView } from "./chatbot-link.js";
import { ChatbotPictures } from "./chatbot-pictures.js";
import { ChatbotSettingsReader } from "./chatbot-settings.js";
import { conversationKey } from "./conversation-key.js";
import { ConversationWorkers } from "./conversation-workers.js";
import type { AnswerSteps, Feature, FeatureContext, FeatureJob, OpenFeature } from "./feature.js";
import { FreeFormWindows } from "./free-form-windows.js";
import { Greeter } from "./greeter.js";
import type { InboundMessage } from "./inbound.js";
import { type Job, JobLedger } from "./job-ledger.js";
import { LinkedAbort } from "./linked-abort.js";
import { MediaPipeline } from "./media/media-pipeline.js";
import type { BridgeMetrics } from "./metrics.js";
import { nextBatch } from "./next-batch.js";
import { Pacer } from "./reply/pacer.js";
import { SessionDirectory } from "./sessions.js";
import type { BridgeStore } from "./store/bridge-store.js";
import { EVENT_CLAIM_PREFIX } from "./store/key-prefixes.js";
import type { SignalSubscription } from "./store/signals.js";
import type { ConversationLease, WorkItem } from "./store/work-queue.js";
import { Transcript } from "./transcript.js";
import { inboundMessage, isMessagePayload, messagePayload, readPayload } from "./work-payload.js";

/** Everything the bridge works with. */
export interface BridgeDependencies {
  store: BridgeStore;
  config: BridgeConfig;
  chatbots: ChatbotLink[];
  log: Logger;
  metrics: BridgeMetrics;
  /** Where handoff mails go out; undefined when no SMTP server is configured. */
  outbox?: MailOutbox | undefined;
  /** This process, as the leases it holds name it (default a random id). */
  instanceId?: string | undefined;
  /** The clock of features' schedules, alerts' hourly batching and quiet hours (default Date.now; tests move it). */
  now?: (() => number) | undefined;
  /** The step list: the answer's steps in order, and what follows a delivered answer (src/features/index.ts). */
  steps: AnswerSteps;
}

/** Longer than any platform's retry window (WhatsApp retries for up to 7 days). */
const DEDUP_TTL_MS = 8 * 24 * 60 * 60 * 1000;
/** A job that ended its holder this many times (a poison message) is given up with an apology. */
const MAX_ATTEMPTS = 3;

/**
 * The channel-agnostic core. Taking a message ({@link accept}) records it durably as work of its conversation, in
 * the same atomic step as its de-duplication claim, before the adapter acknowledges the platform: a crash after that
 * loses nothing, a re-delivery records nothing. Answering ({@link startWorking}) leases conversations that have
 * work — from this process's webhooks or any other's, or left by one that died — and answers each one's messages
 * in arrival order (an album's pieces together; in merge mode everything waiting as one question), recording every
 * step in the answer ledger so that whoever resumes a job continues it instead of answering twice.
 */
export class Bridge {
  readonly #deps: BridgeDependencies;
  readonly #channels = new Map<string, Attached>();
  readonly #bots = new Map<string, BotState>();
  readonly #parts: BridgeParts;
  readonly #instanceId: string;
  /** The features the step list names, in the order they were opened (a feature before those that use it). */
  readonly #features = new Map<Feature, OpenFeature>();
  /** The features' jobs, by the kind of work they run. */
  readonly #jobs = new Map<string, FeatureJob>();
  readonly #steps: ResolvedSteps;
  #workers: ConversationWorkers | undefined;
  /** The stops pressed in other processes, heard while this one answers. */
  #stops: SignalSubscription | undefined;
  #accepting = true;

  constructor(deps: BridgeDependencies) {
    this.#deps = deps;
    this.#instanceId = deps.instanceId ?? randomUUID();
    const keyv = deps.store.keyv;
    for (const link of deps.chatbots) {
      const settings = new ChatbotSettingsReader(link, deps.log);
      this.#bots.set(link.botId, {
        link,
        settings,
        pictures: new ChatbotPictures(link, settings, deps.log),
        sessions: new SessionDirectory(keyv, link.client, link.serialNumber, deps.config.sessionIdleMs),
        greeter: new Greeter(keyv, settings, link.welcomeText ?? deps.config.welcomeText),
      });
    }
    this.#parts = {
      config: deps.config,
      log: deps.log,
      metrics: deps.metrics,
      media: new MediaPipeline(deps.config.media, deps.metrics, deps.log),
      windows: new FreeFormWindows(keyv, deps.log),
      attached: (name, botId) => this.#channels.get(`${name}:${botId}`),
      bot: (botId) => this.#bots.get(botId),
      paused: (conversation) => this.#paused(conversation),
      stoppers: new AnswerStops(deps.store.signals),
    };
    const context = this.#featureContext(new Transcript(keyv));
    this.#steps = {
      answer: deps.steps.answer.map((entry): AnswerStep => {
        if ("handle" in entry) return entry;
        return this.#stepOf(context, entry.feature, entry.step, "steps");
      }),
      afterAnswer: deps.steps.afterAnswer.map((entry): AfterAnswerStep => {
        if ("handle" in entry) return entry;
        return this.#stepOf(context, entry.feature, entry.step, "afterAnswer");
      }),
    };
  }

  /** What feature `feature` offers the application (the handoff desk); undefined when the step list has it not. */
  api<Api>(feature: Feature<Api>): Api | undefined {
    return (this.#features.get(feature) as OpenFeature<Api> | undefined)?.api;
  }

  /** The features' background passes (sweeps, polls), to run in one process at a time. */
  get passes(): BackgroundDuty[] {
    return [...this.#features.values()].flatMap((feature) => feature.passes ?? []);
  }

  /** Connects a channel's outbound side; its inbound side calls {@link accept}. */
  attach(channel: Channel): void {
    const { metrics } = this.#deps;
    const pacer = new Pacer(channel, {
      budgets: this.#deps.store.budgets.forChannel(channel.name, channel.botId),
      // A scope of their own: drafts never meet the messages' budgets, nor their "finals waiting" mark.
      draftBudgets: this.#deps.store.budgets.forChannel(`${channel.name}-drafts`, channel.botId),
      onRateLimited: () => metrics.platformRateLimited.inc({ channel: channel.name }),
      onBudgetWait: ({ priority, waitedMs }) =>
        metrics.budgetWaitSeconds.observe({ channel: channel.name, priority }, waitedMs / 1000),
    });
    this.#channels.set(`${channel.name}:${channel.botId}`, { channel, pacer });
  }

  /**
   * The chatbot a bot of this deployment talks to: its serial number, and its settings as `Get` reads them (kept
   * `maxAgeMs`, a minute by default; undefined where the API has no such operation) and its pictures. Undefined
   * for an unknown bot.
   */
  chatbotOf(botId: string): ChatbotView | undefined {
    const bot = this.#bots.get(botId);
    if (!bot) return undefined;
    return {
      serialNumber: bot.link.serialNumber,
      settings: (maxAgeMs) => bot.settings.read(maxAgeMs),
      picture: (kind) => bot.pictures.read(kind),
    };
  }

  /** Conversations this process is answering now. */
  get activeConversations(): number {
    return this.#workers?.active ?? 0;
  }

  /**
   * Takes a message from an adapter and returns as soon as it is recorded (the adapter then acknowledges the
   * platform): a repeated event is recognised and dropped. Rejects when the store cannot record it, so that the
   * adapter answers with an error and the platform delivers it again.
   */
  async accept(message: InboundMessage): Promise<"accepted" | "duplicate" | "stopping"> {
    if (!this.#accepting) return "stopping";
    const recorded = await this.#deps.store.work.enqueue(
      {
        id: `${EVENT_CLAIM_PREFIX}${message.channel}:${message.botId}:${message.eventId}`,
        conversation: conversationKey(message, this.#deps.config.groupSessionScope),
        payload: messagePayload(message),
      },
      DEDUP_TTL_MS,
    );
    if (!recorded) return "duplicate";
    this.#deps.metrics.messagesIn.inc({ channel: message.channel });
    return "accepted";
  }

  /**
   * Stops the answer under way in the message's conversation, keeping what was shown: here, and through the store's
   * signals in whichever process streams it (an answer asked after the press is not stopped). Returns at once; a
   * store that cannot take the signal is logged.
   */
  cancel(message: Pick<InboundMessage, "channel" | "botId" | "target" | "user">): void {
    const conversation = conversationKey(message, this.#deps.config.groupSessionScope);
    this.#parts.stoppers.press(conversation, Date.now()).catch((error: unknown) => {
      this.#deps.log.warn({ err: error, conversation }, "the stop could not be passed to the other instances");
    });
  }

  /** Starts answering: this process takes its share of the conversations with work, and the background passes. */
  startWorking(): void {
    if (this.#workers) return;
    const { store, config, log, metrics } = this.#deps;
    this.#stops = this.#parts.stoppers.listen();
    this.#stops.live.catch((error: unknown) => log.warn({ err: error }, "stops pressed elsewhere will not be heard"));
    this.#workers = new ConversationWorkers({
      work: store.work,
      concurrency: config.work.concurrency,
      leaseMs: config.work.leaseMs,
      holder: this.#instanceId,
      serve: (lease, handover) => this.#serve(lease, handover),
      log,
      metrics,
    });
    this.#workers.start();
  }

  /**
   * Stops taking messages and work, lets the answers under way finish for up to `graceMs`, then hands the rest over
   * (another instance, or this one's next start, resumes them from the ledger).
   */
  async stop(graceMs: number): Promise<void> {
    this.#accepting = false;
    await this.#workers?.stop(graceMs);
    this.#stops?.unsubscribe();
    for (const feature of this.#features.values()) await feature.stop?.();
  }

  /** Answers a leased conversation's waiting work, job by job, until none is left or the holder must stop. */
  async #serve(lease: ConversationLease, handover: AbortSignal): Promise<void> {
    const { config, log } = this.#deps;
    // One fence for the lease's jobs: a job that loses it ends the lease's service here, as losing the lease does.
    const fencing = new LinkedAbort([lease.lost, handover]);
    const fence = fencing.signal;
    // Every step of an answer under way listens to it: many at once are expected, not a leak.
    setMaxListeners(0, fence);
    try {
      for (;;) {
        if (fence.aborted) return;
        const items = await lease.pending();
        const [head] = items;
        if (!head) return;
        const recorded = await JobLedger.recordedBatch(lease, head.id);
        let batch = recorded ? items.filter((item) => recorded.includes(item.id)) : undefined;
        if (!batch || batch.length === 0) {
          const choice = nextBatch(items, {
            mode: config.queueMode,
            albumWindowMs: config.media.groupWindowMs,
            now: Date.now(),
          });
          if (!choice) return;
          if (choice.kind === "wait") {
            await lease.waitForMore(choice.waitMs, fence);
            continue;
          }
          batch = choice.items;
        }
        const ledger = await JobLedger.open(
          lease,
          head.id,
          batch.map((item) => item.id),
        );
        const job: Job = { conversation: lease.conversation, ledger, fence, lose: (reason) => fencing.abort(reason) };
        try {
          await this.#run(job, batch);
        } catch (error) {
          if (!fence.aborted) log.error({ err: error, conversation: lease.conversation }, "a job failed");
        }
        if (fence.aborted) return;
        await ledger.flushed().catch(() => undefined);
        await lease.complete(ledger.batch as string[]);
      }
    } finally {
      fencing.unlink();
    }
  }

  /** Runs one job: a batch of messages answered together, a handoff event, or an alert. */
  async #run(job: Job, items: WorkItem[]): Promise<void> {
    const { log } = this.#deps;
    if (job.ledger.attempts > MAX_ATTEMPTS) {
      log.error(
        { conversation: job.conversation, job: job.ledger.jobId, attempts: job.ledger.attempts - 1 },
        "giving up a job that stopped its holder every time",
      );
      return;
    }
    const payloads = items.map((item) => readPayload(item.payload));
    const [first] = payloads;
    if (first && !isMessagePayload(first)) {
      const run = this.#jobs.get(first.kind);
      if (run) return run(job, first, this.#parts);
      log.warn(
        { conversation: job.conversation, job: job.ledger.jobId, kind: first.kind },
        "dropping work of no feature",
      );
      return;
    }
    const messages = payloads.flatMap((payload) =>
      isMessagePayload(payload) ? [inboundMessage(payload.message)] : [],
    );
    if (messages.length < items.length) {
      log.warn({ conversation: job.conversation, job: job.ledger.jobId }, "dropping work that cannot be read");
    }
    if (messages.length === 0) return;
    if (job.ledger.resumed) log.info({ conversation: job.conversation, job: job.ledger.jobId }, "resuming a job");
    const [{ channel, botId }] = messages as [InboundMessage];
    const attached = this.#parts.attached(channel, botId);
    // When the user last wrote, for a channel that allows free-form messages only for a while after (WhatsApp).
    if (attached) await this.#parts.windows.record(job.conversation, attached.channel, messages);
    // Handed on rather than awaited: this function's frame is not kept for the whole answer.
    return new AnswerJob(this.#parts, this.#steps, job, messages).run();
  }

  /** Whether a feature paused the bot in the conversation (a person has it). */
  async #paused(conversation: string): Promise<boolean> {
    for (const feature of this.#features.values()) {
      if (feature.paused && (await feature.paused(conversation))) return true;
    }
    return false;
  }

  /** Step `name` of `feature`'s steps of `kind`, the feature opened first if it was not yet. */
  #stepOf<Kind extends "steps" | "afterAnswer">(
    context: (opening: Set<Feature>) => FeatureContext,
    feature: Feature,
    name: string,
    kind: Kind,
  ): NonNullable<OpenFeature[Kind]>[string] {
    const step = this.#open(feature, context, new Set())[kind]?.[name];
    if (!step)
      throw new Error(
        `the step list names ${kind === "steps" ? "step" : "after-answer step"} ${name} of feature ${feature.name}, which has none such`,
      );
    return step as NonNullable<OpenFeature[Kind]>[string];
  }

  /** Feature `feature`, opened once; `opening`: the features being opened, which it may not use (a cycle). */
  #open<Api>(
    feature: Feature<Api>,
    context: (opening: Set<Feature>) => FeatureContext,
    opening: Set<Feature>,
  ): OpenFeature<Api> {
    const opened = this.#features.get(feature);
    if (opened) return opened as OpenFeature<Api>;
    if (opening.has(feature))
      throw new Error(`feature ${feature.name} uses itself through ${[...opening].map((f) => f.name).join(" → ")}`);
    const open = feature.open(context(new Set([...opening, feature])));
    this.#features.set(feature, open);
    for (const [kind, run] of Object.entries(open.jobs ?? {})) {
      if (kind === "message" || this.#jobs.has(kind))
        throw new Error(`feature ${feature.name}: work of kind ${kind} has a job already`);
      this.#jobs.set(kind, run);
    }
    return open;
  }

  /** What each feature is opened with; `opening` names the features being opened, for {@link FeatureContext.use}. */
  #featureContext(transcript: Transcript): (opening: Set<Feature>) => FeatureContext {
    const { store, config, chatbots, log, metrics, outbox } = this.#deps;
    const context = (opening: Set<Feature>): FeatureContext => ({
      store,
      config,
      chatbots,
      log,
      metrics,
      outbox,
      now: this.#deps.now ?? Date.now,
      transcript,
      dedupTtlMs: DEDUP_TTL_MS,
      bot: (botId) => this.#bots.get(botId),
      attached: this.#parts.attached,
      notify: (place, text) => {
        const attached = this.#channels.get(`${place.channel}:${place.botId}`);
        if (!attached) return Promise.reject(new Error(`channel ${place.channel} of bot ${place.botId} is gone`));
        return sendFinal(this.#deps, attached, place.target, text);
      },
      enqueue: (conversation, id, payload) => store.work.enqueue({ id, conversation, payload }, DEDUP_TTL_MS),
      use: (other) => this.#open(other, context, opening).api,
    });
    return context;
  }
}
