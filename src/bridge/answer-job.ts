import { ChatbotApiError } from "../client/index.js";
import type { AfterAnswerStep, AnswerStep } from "./answer-step.js";
import { Turn } from "./answer-step.js";
import type { BridgeParts } from "./bridge-parts.js";
import type { InboundMessage } from "./inbound.js";
import type { Job } from "./job-ledger.js";
import { isLimitRefusal, limitRefusalText } from "./limit-refusal.js";

/** The answer's steps, resolved from the step list: in order, and what follows each delivered answer. */
export interface ResolvedSteps {
  answer: readonly AnswerStep[];
  afterAnswer: readonly AfterAnswerStep[];
}

/**
 * Answers one batch of a conversation's messages: the steps of the list run in order until one answers them (see
 * `src/features/index.ts`), each recording its work in the job's ledger so that a holder resuming the job after a
 * crash skips what was done and continues what was under way. Anything that fails gets the user the apology (or,
 * when the chatbot's limits refused the question, the owner's words for it), never silence.
 */
export class AnswerJob {
  readonly #parts: BridgeParts;
  readonly #steps: ResolvedSteps;
  readonly #job: Job;
  readonly #batch: InboundMessage[];

  constructor(parts: BridgeParts, steps: ResolvedSteps, job: Job, batch: InboundMessage[]) {
    this.#parts = parts;
    this.#steps = steps;
    this.#job = job;
    this.#batch = batch;
  }

  async run(): Promise<void> {
    const { log, metrics, config } = this.#parts;
    const last = this.#batch.at(-1) as InboundMessage;
    const attached = this.#parts.attached(last.channel, last.botId);
    const bot = this.#parts.bot(last.botId);
    if (!attached || !bot) {
      log.error({ channel: last.channel, botId: last.botId }, "message for a channel or bot that is not set up");
      return;
    }
    const { conversation, fence } = this.#job;
    const turn = new Turn(this.#parts, this.#job, this.#batch, attached, bot, this.#steps.afterAnswer);
    try {
      for (const step of this.#steps.answer) {
        if ((await step.handle(turn)) === "handled") return;
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
      await turn.sendOnce("apology", { text, format: "plain", retryAt }).catch((failure: unknown) => {
        if (!fence.aborted) log.error({ err: failure, conversation }, "the apology could not be sent");
      });
    }
  }
}
