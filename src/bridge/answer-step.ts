import type { LeadInput } from "../client/index.js";
import { type Attached, type BotState, type BridgeParts, sendFinal } from "./bridge-parts.js";
import type { OutgoingText } from "./channel.js";
import { type BridgeCommand, commandIn } from "./commands.js";
import type { InboundMessage } from "./inbound.js";
import type { Job, JobLedger } from "./job-ledger.js";

/** What a step made of a turn: it answered the messages (the job ends there), or it leaves them to the next step. */
export type StepOutcome = "handled" | "next";

/**
 * One rule of the answer. A job runs the steps of its bridge's list in order (see `src/features/index.ts`) until one
 * answers the messages; a step keeps what it did in the job's ledger under its name (or names made from it, such as
 * `viewing-send:0`) through the turn's helpers, so a job resumed after a crash redoes nothing it already did.
 */
export interface AnswerStep {
  /** Stable: the ledger records what the step did under it, and jobs in flight across an upgrade read it back. */
  readonly name: string;
  handle(turn: Turn): Promise<StepOutcome>;
}

/** An answer the chatbot gave and the platform shows, as the steps that follow it see it. */
export interface DeliveredAnswer {
  /** Which question of the batch it answers (a batch of files may ask several). */
  index: number;
  /** Its text as delivered. */
  text: string;
  /** The chatbot said it had no answer. */
  noAnswer: boolean;
  /** The user stopped it: only what was shown of it was delivered. */
  stopped: boolean;
}

/**
 * What follows a delivered answer (the listings it names as cards, an offer to talk to a person), in the order of
 * its list, after the text and never before it. Each run records itself as `<name>:<index>` of the answer.
 */
export interface AfterAnswerStep {
  readonly name: string;
  /** `step`: the ledger name of this run (`<name>:<index>`). */
  handle(turn: Turn, answer: DeliveredAnswer, step: string): Promise<void>;
}

/**
 * One job's batch of messages on its way through the answer's steps: the messages, the conversation, the channel
 * and bot they came through, the lease's fence, and the ledger helpers every step records its work with. A step
 * reads it and may leave something for the steps after it (the first contact, what card taps ask).
 */
export class Turn {
  /** The messages answered together, in the order they came. */
  readonly batch: readonly InboundMessage[];
  /** The batch's last message: where replies go. */
  readonly last: InboundMessage;
  /** The channel the messages came through, with its pacer. */
  readonly attached: Attached;
  readonly bot: BotState;
  readonly parts: BridgeParts;
  /** What follows each delivered answer, in order. */
  readonly afterAnswer: readonly AfterAnswerStep[];
  /** The bridge's own command in the messages (`/start`, `/reset` or the reset keyword), if any. */
  readonly command: BridgeCommand | undefined;
  /**
   * The messages' texts as one question, in the order they came; a step may put what they stand for instead (the
   * question a card's button asks).
   */
  text: string;
  /** True when the conversation is seen for the first time: the greeting goes first (set by `first-contact`). */
  firstContact = false;
  readonly #job: Job;

  constructor(
    parts: BridgeParts,
    job: Job,
    batch: InboundMessage[],
    attached: Attached,
    bot: BotState,
    after: readonly AfterAnswerStep[],
  ) {
    this.parts = parts;
    this.#job = job;
    this.batch = batch;
    this.last = batch.at(-1) as InboundMessage;
    this.attached = attached;
    this.bot = bot;
    this.afterAnswer = after;
    this.text = batch
      .map((message) => message.text.trim())
      .filter(Boolean)
      .join("\n");
    this.command = commandIn(this.text, parts.config.resetKeyword);
  }

  get conversation(): string {
    return this.#job.conversation;
  }

  /** Down when this process may no longer write to the conversation (the lease is lost, or handed over). */
  get fence(): AbortSignal {
    return this.#job.fence;
  }

  get ledger(): JobLedger {
    return this.#job.ledger;
  }

  /**
   * Runs `work` unless step `name` recorded its result before; records the result, at once where `durable` says
   * it must be (by default always), else along with the next write (see JobLedger.note).
   */
  async once<T>(name: string, work: () => Promise<T>, durable: (result: T) => boolean = () => true): Promise<T> {
    const { ledger } = this.#job;
    if (ledger.has(name)) return ledger.step<T>(name) as T;
    const result = await work();
    if (durable(result)) await ledger.record(name, result);
    else ledger.note(name, result);
    return result;
  }

  /** Sends a final message to the conversation unless step `name` sent it before. */
  async sendOnce(name: string, text: OutgoingText | Promise<OutgoingText>): Promise<void> {
    const { ledger } = this.#job;
    if (ledger.has(name)) return;
    await this.send(await text);
    await ledger.record(name, true);
  }

  /** Sends a message that must arrive to the conversation, unrecorded (the caller records that it went). */
  send(text: OutgoingText): Promise<void> {
    return sendFinal(this.parts, this.attached, this.last.target, text, this.#job.fence);
  }

  /** On first contact, the greeting, on its own and once; nothing otherwise. */
  async greetFirst(): Promise<void> {
    if (this.firstContact) await this.sendOnce("greeting", this.bot.greeter.greeting());
  }

  /**
   * Whether a person has the conversation (a feature paused the bot in it), decided once per job: a resumed job
   * decides the same way.
   */
  paused(): Promise<boolean> {
    return this.once("paused", () => this.parts.paused(this.conversation));
  }

  /**
   * Records `lead` with the chatbot API in the conversation's session (the embedded server's LeadAdd, which its
   * daily leads digest lists); best effort, never throws (the hosted platform has no such operation).
   */
  async recordLead(lead: Omit<LeadInput, "serialNumber" | "sessionID">): Promise<void> {
    const { link, sessions } = this.bot;
    try {
      const session = await sessions.current(this.conversation, this.fence);
      await link.client.addLead({ ...lead, serialNumber: link.serialNumber, sessionID: session.id });
    } catch (error) {
      this.parts.log.debug({ err: error, conversation: this.conversation }, "a lead was not recorded");
    }
  }

  /** Records `value` for step `name` without waiting; a write that fails (the lease is gone) puts the fence down. */
  keep(name: string, value: unknown): void {
    this.#job.ledger.record(name, value).catch((error: unknown) => this.#job.lose(error));
  }
}
