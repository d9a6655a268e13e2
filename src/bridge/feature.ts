import type { Logger } from "../common/log.js";
import type { BridgeConfig } from "../config/config.js";
import type { MailOutbox } from "../mail/mail-outbox.js";
import type { AfterAnswerStep, AnswerStep } from "./answer-step.js";
import type { BackgroundDuty } from "./background-passes.js";
import type { Attached, BotState, BridgeParts } from "./bridge-parts.js";
import type { OutgoingText } from "./channel.js";
import type { ChatbotLink } from "./chatbot-link.js";
import type { ReplyTarget } from "./inbound.js";
import type { Job } from "./job-ledger.js";
import type { BridgeMetrics } from "./metrics.js";
import type { BridgeStore } from "./store/bridge-store.js";
import type { Transcript } from "./transcript.js";
import type { FeaturePayload } from "./work-payload.js";

/**
 * A feature of the product beyond asking the chatbot (listing cards, viewings, alerts, talking to a person): one
 * folder of `src/features/`, whose steps the step list places in the answer. The core knows features only through
 * this contract; it opens each feature the list names once per bridge, and a feature may use another (see
 * {@link FeatureContext.use}).
 */
export interface Feature<Api = unknown> {
  /** Lower-case and stable: names the feature in logs and errors. */
  readonly name: string;
  open(context: FeatureContext): OpenFeature<Api>;
}

/** A feature opened for one bridge: its parts, each optional. */
export interface OpenFeature<Api = unknown> {
  /** What the application and other features use of it (the handoff desk, a bot's listings). */
  readonly api: Api;
  /** Its steps of the answer, by the names the step list gives them. */
  readonly steps?: Readonly<Record<string, AnswerStep>> | undefined;
  /** Its steps after a delivered answer, by name. */
  readonly afterAnswer?: Readonly<Record<string, AfterAnswerStep>> | undefined;
  /**
   * The work it queues in conversations (see {@link FeatureContext.enqueue}), by payload kind: each runs in its
   * conversation's turn, with the job's ledger.
   */
  readonly jobs?: Readonly<Record<string, FeatureJob>> | undefined;
  /** What it runs in the background, in one process at a time (sweeps, polls). */
  readonly passes?: readonly BackgroundDuty[] | undefined;
  /**
   * Whether the bot is paused in the conversation because a person has it: a message for the bot's own flows (a
   * tap on a card, a listing's link) then goes to that person instead.
   */
  paused?(conversation: string): Promise<boolean>;
  /** Ends what it started, when the bridge stops. */
  stop?(): Promise<void>;
}

/** Runs one job of a feature's work (a payload it queued). */
export type FeatureJob = (job: Job, payload: FeaturePayload, parts: BridgeParts) => Promise<void>;

/** What a feature is opened with: the bridge's state, and how to reach the conversations. */
export interface FeatureContext {
  store: BridgeStore;
  config: BridgeConfig;
  chatbots: readonly ChatbotLink[];
  log: Logger;
  metrics: BridgeMetrics;
  /** Where mails go out; undefined when no SMTP server is configured. */
  outbox: MailOutbox | undefined;
  /** The clock of schedules (alerts' hourly batching, quiet hours); tests move it. */
  now: () => number;
  /** The conversations' transcripts, for a mail to a person. */
  transcript: Transcript;
  /** How long a queued work item's id is claimed: an id queued again within it is recorded once. */
  dedupTtlMs: number;
  bot(botId: string): BotState | undefined;
  attached(channel: string, botId: string): Attached | undefined;
  /** Sends a message that must arrive to a conversation, outside any job (rejects when its channel is gone). */
  notify(place: ConversationPlace, text: OutgoingText): Promise<void>;
  /**
   * Queues `payload` as work of `conversation`, under `id` (recorded once): it is handled in the conversation's turn,
   * in order with its messages, by the feature's job of the payload's kind. False when `id` was queued before.
   */
  enqueue(conversation: string, id: string, payload: FeaturePayload): Promise<boolean>;
  /** The api of another feature, opened first if it was not yet (features depend on each other without cycles). */
  use<Api>(feature: Feature<Api>): Api;
}

/** Where a feature's message goes: the conversation's channel and bot, and its reply target. */
export interface ConversationPlace {
  channel: string;
  botId: string;
  target: ReplyTarget;
}

/** A feature's step as the step list names it: the feature, and the step's name among its steps. */
export interface FeatureStep {
  readonly feature: Feature;
  readonly step: string;
}

/** The step list: the answer's steps in the order they run, and what follows a delivered answer, in order. */
export interface AnswerSteps {
  answer: readonly (AnswerStep | FeatureStep)[];
  afterAnswer: readonly (AfterAnswerStep | FeatureStep)[];
}

/** Names step `step` of `feature` in a step list. */
export function stepOf(feature: Feature, step: string): FeatureStep {
  return { feature, step };
}
