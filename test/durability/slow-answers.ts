import type { TelegramEmulator } from "../emulators/telegram.js";
import type { AnswerScript } from "../upstream/scripted-chatbot.js";

/** What a first contact's answer opens with: the scripted chatbot's WelcomeMessage as Telegram shows it. */
export const GREETING = "Welcome to Homes!\n\n";

/** The shape of the answers of a durability test: how long they are and how slowly they stream. */
export interface SlowAnswers {
  chars: number;
  fragments: number;
  streamMs: number;
}

/** The whole answer to `question`: names it, then plain text (nothing markdown would change) up to `chars`. */
export function answerText(question: string, shape: SlowAnswers): string {
  return `Answer to ${question}: ${"Bright flat near the park with three rooms. ".repeat(Math.ceil(shape.chars / 44))}`
    .slice(0, shape.chars)
    .trim();
}

/** The scripted chatbot's answer to `question`: {@link answerText} in `fragments` pieces over `streamMs`. */
export function slowAnswer(question: string, shape: SlowAnswers): AnswerScript {
  const text = answerText(question, shape);
  const size = Math.ceil(text.length / shape.fragments);
  const fragments = Array.from({ length: shape.fragments }, (_, i) => text.slice(i * size, (i + 1) * size));
  return { fragments, pauseMs: shape.streamMs / shape.fragments };
}

/**
 * Chats with no message yet whose latest draft shows part of an answer (more than the greeting): first answers
 * visibly streaming.
 */
export function streamingChats(telegram: TelegramEmulator, chats: readonly number[]): number[] {
  return chats.filter((chat) => {
    const draft = telegram.draftsIn(chat).at(-1);
    return draft !== undefined && draft.text.length > GREETING.trim().length && telegram.messagesIn(chat).length === 0;
  });
}

/** How many questions the chatbot was asked more than once (an answer lost with its holder is asked again). */
export function askedTwice(asks: readonly { content: string }[]): number {
  const counts = new Map<string, number>();
  for (const ask of asks) counts.set(ask.content, (counts.get(ask.content) ?? 0) + 1);
  return [...counts.values()].filter((count) => count > 1).length;
}
