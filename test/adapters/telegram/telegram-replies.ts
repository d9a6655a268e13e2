import type { TelegramEmulator } from "../../emulators/telegram.js";
import { until } from "../../support/waiting.js";

/**
 * The texts the bot sent in a chat after its welcome, once there are `count` of them and the bridge has made no
 * call for 400 ms (so a reply that should not come would have come).
 */
export async function repliesIn(telegram: TelegramEmulator, chatId: number, count: number): Promise<string[]> {
  await until(() => (telegram.messagesIn(chatId).length >= count + 1 ? true : undefined), 15_000);
  await until(() => (performance.now() - (telegram.calls.at(-1)?.at ?? 0) > 400 ? true : undefined), 15_000);
  return telegram
    .messagesIn(chatId)
    .slice(1)
    .map((sent) => sent.text);
}
