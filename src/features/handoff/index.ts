import type { Turn } from "../../bridge/answer-step.js";
import type { Feature } from "../../bridge/feature.js";
import type { HandoffPayload } from "./handoff-action.js";
import { HandoffDesk } from "./handoff-desk.js";
import { handoffMetrics } from "./handoff-metrics.js";
import { HandoffRouting } from "./handoff-routing.js";
import { answeredStep, handOff, handoffStep } from "./handoff-step.js";

/** What the application and other features use of the handoff feature. */
export interface HandoffApi {
  /** The conversations handed to a person (the admin endpoints, `chatbridge handoff`). */
  desk: HandoffDesk;
  /**
   * Passes `batch` (saying `text`) to the person who has the conversation, as step `handoff` of the turn; false
   * when nobody has it (any more).
   */
  forward(turn: Turn, text: string, batch: Turn["batch"]): Promise<boolean>;
}

/**
 * Talking to a person: "talk to a human" (a command, a phrase, the offered button) mails the team with the
 * transcript and pauses the bot in the conversation; the user's messages are forwarded until /bot, an operator's
 * resume or the timeout (steps `handoff` and, after each answer, `answered`; its events are work of kind
 * `handoff`; its sweep a background pass).
 */
export const handoff: Feature<HandoffApi> = {
  name: "handoff",
  open(context) {
    const { store, config, log, outbox } = context;
    const metrics = handoffMetrics(context.metrics.registry);
    const desk = new HandoffDesk({
      keyv: store.keyv,
      sets: store.sets,
      outbox,
      timeoutMs: config.handoff.timeoutMs,
      log,
      metrics,
      notify: (place, text) => context.notify(place, { text, format: "plain" }),
      schedule: async (place, action, id) => {
        const { conversation, channel, botId, target } = place;
        const payload: HandoffPayload = { kind: "handoff", action, target, channel, botId };
        await context.enqueue(conversation, id, payload);
      },
    });
    const routing = new HandoffRouting(desk, context.transcript, config.handoff, metrics);
    return {
      api: { desk, forward: (turn, text, batch) => handOff(routing, turn, text, undefined, batch) },
      steps: { handoff: handoffStep(routing) },
      afterAnswer: { answered: answeredStep(routing) },
      jobs: {
        handoff: (job, payload) => desk.handle(job.conversation, (payload as HandoffPayload).action, job.fence),
      },
      passes: [{ start: () => desk.start(), stop: () => desk.stop() }],
      paused: async (conversation) => (await desk.active(conversation)) !== undefined,
      stop: () => desk.stop(),
    };
  },
};
