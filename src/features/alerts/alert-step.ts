import type { AnswerStep } from "../../bridge/answer-step.js";
import type { OutgoingText } from "../../bridge/channel.js";
import type { AlertDesk } from "./alert-desk.js";

/**
 * Alerts' commands (/alert, /alerts, /stop), a sentence asking for one and the /alert flow's answers are the
 * bridge's, whatever the handoff. Recorded as step `alerts` only when it is about alerts: for any other message the
 * desk changed nothing, and asking it again on a resumed job gives the same answer, so most messages cost no ledger
 * write here.
 */
export function alertStep(desk: AlertDesk): AnswerStep {
  return {
    name: "alerts",
    async handle(turn) {
      const { ledger, last } = turn;
      let reply = ledger.step<OutgoingText>("alerts");
      if (!reply) {
        const origin = { channel: last.channel, botId: last.botId, target: last.target };
        reply = await desk.handle(turn.conversation, origin, turn.text, last.eventId);
        if (reply) await ledger.record("alerts", reply);
      }
      if (!reply) return "next";
      await turn.greetFirst();
      await turn.sendOnce("alerts-reply", reply);
      return "handled";
    },
  };
}
