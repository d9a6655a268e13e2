import type { AnswerStep } from "../answer-step.js";

/**
 * Whether the conversation is seen for the first time, so that the greeting goes first. Recorded, as the greeter
 * remembers the conversation: a resumed job must neither greet again nor forget to. Only a first contact is written
 * at once: "seen before" is what the greeter answers again after a crash.
 */
export const firstContact: AnswerStep = {
  name: "first-contact",
  async handle(turn) {
    turn.firstContact = await turn.once(
      "first-contact",
      () => turn.bot.greeter.firstContact(turn.conversation),
      (first) => first,
    );
    return "next";
  },
};
