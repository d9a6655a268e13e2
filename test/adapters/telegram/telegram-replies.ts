import type { TelegramEmulator } from "../../emulators/telegram.js";
import { until } from "../../support/waiting.js";

/**
 * The texts the bot sent in a chat, once there are `count` of them and the bridge has made no call for 400 ms (so
 * a message that should not come would have come). At first contact the greeting opens the first answer's message,
 * or comes alone after what was not a question.
 */
export async function textsIn(telegram: TelegramEmulator, chatId: number, count: number): Promise<string[]> {
  await until(() => (telegram.messagesIn(chatId).length >= count ? true : undefined), 15_000);
  await until(() => (performance.now() - (telegram.calls.at(-1)?.at ?? 0) > 400 ? true : undefined), 15_000);
  return telegram.messagesIn(chatId).map((sent) => sent.text);
}

/**
 * The texts the bot sent in a chat after its welcome — a greeting sent on its own: the answer to /start, or the
 * greeting that comes before the reply to a first message for a person — once there are `count` of them and the
 * bridge has gone quiet.
 */
export async function repliesIn(telegram: TelegramEmulator, chatId: number, count: number): Promise<string[]> {
  return (await textsIn(telegram, chatId, count + 1)).slice(1);
}
