import { Api } from "grammy/web";
import type { ConversationStart } from "../../src/plugin/channel-plugin.js";
import { botApiFetch } from "./bot-api-fetch.js";
import type { TelegramSettings } from "./settings.js";

/** grammy types its signals with a polyfill's type; Node's own is what it gets at run time. */
type GrammySignal = Parameters<Api["getMe"]>[0];

/**
 * `https://t.me/<bot>?start=<code>`: Telegram opens the chat with a Start button that sends `/start <code>`. The
 * bot's username is asked of the Bot API (getMe), as the running bridge learns it, so no setting can disagree with
 * the token.
 */
export async function telegramConversationLink(
  settings: TelegramSettings,
  start: ConversationStart,
): Promise<string | undefined> {
  if (!settings.botToken) return undefined;
  const api = new Api(settings.botToken, { apiRoot: settings.apiRoot, fetch: botApiFetch() });
  let username: string;
  try {
    ({ username } = await api.getMe(AbortSignal.timeout(10_000) as GrammySignal));
  } catch (error) {
    throw new Error(
      `Telegram's getMe failed at ${settings.apiRoot} (${(error as Error).message}); check TELEGRAM_BOT_TOKEN`,
    );
  }
  return `https://t.me/${username}?start=${start.code}`;
}
