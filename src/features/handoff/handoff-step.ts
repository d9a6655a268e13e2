import type { AfterAnswerStep, AnswerStep, Turn } from "../../bridge/answer-step.js";
import type { OutgoingText } from "../../bridge/channel.js";
import type { InboundMessage } from "../../bridge/inbound.js";
import type { HandoffRouting } from "./handoff-routing.js";

/**
 * The handoff desk's part of a turn, recorded as step `handoff`; true when the messages were handled (a request for
 * a person, /bot, or a message for the person who has the conversation) and are not to be asked. `text`: what the
 * messages say; `batch`: the messages as the desk passes them on (the turn's own by default); `before`: what goes
 * before the desk's first text (the greeting on first contact).
 */
export async function handOff(
  routing: HandoffRouting,
  turn: Turn,
  text: string,
  before: (() => Promise<void>) | undefined,
  batch: readonly InboundMessage[] = turn.batch,
): Promise<boolean> {
  const { ledger, conversation } = turn;
  const done = ledger.step<boolean>("handoff");
  if (done !== undefined) return done;
  let sends = 0;
  // Each of its texts is a step of its own: redone after a crash, the desk's work sends none of them twice.
  const send = async (reply: OutgoingText) => {
    await before?.();
    await turn.sendOnce(`handoff-send:${sends++}`, reply);
  };
  const bot = { settings: turn.bot.settings, recordLead: turn.recordLead.bind(turn) };
  const handled = await routing.handle(conversation, [...batch], text, bot, send);
  // A message the desk left alone changed nothing there: redone after a crash, it is left alone again.
  if (handled) await ledger.record("handoff", handled);
  else ledger.note("handoff", handled);
  return handled;
}

/**
 * While a person has the conversation the bot stays silent and forwards what the user writes (or hands back on
 * /bot); a request for a person is mailed to the team. A message the desk answers gets the greeting first, on its
 * own, at first contact.
 */
export function handoffStep(routing: HandoffRouting): AnswerStep {
  return {
    name: "handoff",
    async handle(turn) {
      const greet = turn.firstContact ? () => turn.greetFirst() : undefined;
      if (!(await handOff(routing, turn, turn.text, greet))) return "next";
      await greet?.();
      return "handled";
    },
  };
}

/**
 * After an answer: the transcript notes it and, after HANDOFF_OFFER_AFTER answers in a row the chatbot had none
 * for, the user is offered a person (see HandoffRouting.answered).
 */
export function answeredStep(routing: HandoffRouting): AfterAnswerStep {
  return {
    name: "answered",
    async handle(turn, answer, step) {
      if (turn.ledger.has(step)) return;
      await routing.answered(turn.conversation, answer.text, answer.noAnswer, turn.bot.settings, (text) =>
        turn.send(text),
      );
      await turn.ledger.record(step, true);
    },
  };
}
