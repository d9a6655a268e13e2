import type { AnswerStep } from "../answer-step.js";

/** `/reset` (or the reset keyword) starts a new session, once; the greeting answers it (see {@link commands}). */
export const reset: AnswerStep = {
  name: "reset",
  async handle(turn) {
    if (turn.command === "reset" && !turn.ledger.has("reset")) {
      await turn.bot.sessions.renew(turn.conversation, turn.fence);
      await turn.ledger.record("reset", true);
    }
    return "next";
  },
};

/** `/start` and `/reset` are answered with the greeting alone. */
export const commands: AnswerStep = {
  name: "commands",
  async handle(turn) {
    if (!turn.command) return "next";
    await turn.sendOnce("greeting", turn.bot.greeter.greeting());
    return "handled";
  },
};
