import type { TelegramEmulator } from "../emulators/telegram.js";

/**
 * How long after Telegram accepted a message a `kill -9` may still have stopped the ledger from recording it: the
 * answer's way back to the process and one store write, with margin for a loaded machine. A message sent again
 * whose first copy was accepted this close to a kill is the documented worst case ("one message twice"), not a
 * fault of the ledger.
 */
export const IN_FLIGHT_MS = 200;

/** How the answers came out over a set of chats. */
export interface AnswerTally {
  chats: number;
  /** Expected answers shown whole (repetitions are counted apart). */
  whole: number;
  /** Expected answers that no message shows. */
  lost: number;
  /**
   * Messages that show an expected answer an earlier message of the chat already showed, when that earlier one was
   * not in flight at a kill: answered twice.
   */
  duplicated: number;
  /** Messages that repeat an answer whose first copy Telegram accepted within {@link IN_FLIGHT_MS} of a kill. */
  repeatedInFlight: number;
  /** Messages that show none of the chat's expected answers: a part of one, an apology, anything else. */
  halfFinished: number;
  /** Chats whose expected answers were first shown in another order than the questions'. */
  outOfOrder: number;
  /** A few chats that went wrong, in words, for a failure message. */
  examples: string[];
}

/**
 * Tallies what each chat of the Telegram emulator shows against the answers it should show, in order: `expected`
 * maps each chat to its answers' whole texts, as the user must see them (a first contact's answer opens with the
 * greeting). Only messages count (sendMessage, in their final text): drafts are the stream's intermediate states.
 * `kills` are the moments (performance.now()) processes were killed.
 */
export function tallyAnswers(
  telegram: TelegramEmulator,
  expected: ReadonlyMap<number, readonly string[]>,
  kills: readonly number[] = [],
): AnswerTally {
  const tally: AnswerTally = {
    chats: expected.size,
    whole: 0,
    lost: 0,
    duplicated: 0,
    repeatedInFlight: 0,
    halfFinished: 0,
    outOfOrder: 0,
    examples: [],
  };
  const inFlight = (at: number) => kills.some((kill) => at >= kill - IN_FLIGHT_MS && at <= kill + IN_FLIGHT_MS);
  for (const [chat, answers] of expected) {
    const messages = telegram.messagesIn(chat);
    const first = new Map<string, number>();
    const order: number[] = [];
    let wrong = false;
    for (const message of messages) {
      const earlier = first.get(message.text);
      if (!answers.includes(message.text)) {
        tally.halfFinished += 1;
        wrong = true;
      } else if (earlier === undefined) {
        first.set(message.text, message.sentAt);
        order.push(answers.indexOf(message.text));
        tally.whole += 1;
      } else if (inFlight(earlier)) {
        tally.repeatedInFlight += 1;
      } else {
        tally.duplicated += 1;
        wrong = true;
      }
    }
    const lost = answers.filter((answer) => !first.has(answer)).length;
    tally.lost += lost;
    const ordered = order.every((position, index) => index === 0 || position > (order[index - 1] as number));
    if (!ordered) tally.outOfOrder += 1;
    if ((wrong || lost > 0 || !ordered) && tally.examples.length < 5) {
      const shown = messages.map((message) => message.text);
      tally.examples.push(`chat ${chat}: expected ${JSON.stringify(answers)}, shows ${JSON.stringify(shown)}`);
    }
  }
  return tally;
}

/** The tally in one line. */
export function describeTally(tally: AnswerTally): string {
  return (
    `${tally.chats} chats: ${tally.whole} answers whole, ${tally.lost} lost, ${tally.duplicated} duplicated, ` +
    `${tally.halfFinished} half-finished, ${tally.outOfOrder} chats out of order; ` +
    `${tally.repeatedInFlight} sent again after being in flight at a kill`
  );
}
