import type { Update } from "grammy/types";
import { type RunningBridge, startBridge } from "../../../src/app/bridge-app.js";
import { createLogger, type Logger } from "../../../src/common/log.js";
import { loadConfig } from "../../../src/config/config.js";
import { type EmulatedMessage, TelegramEmulator } from "../../emulators/telegram.js";
import { listingPolls, morePolls } from "../../support/listing-polls.js";
import { freePort, until } from "../../support/waiting.js";
import { ScriptedChatbot } from "../../upstream/scripted-chatbot.js";

const TOKEN = "123456789:AAtest-token-of-the-alerts-bot_01";
const SECRET = "alerts-secret_42";

/**
 * A Telegram bot's alerts under test: the emulator, a scripted chatbot in UTC whose listings the tests change, and
 * bridges polling them every 300 ms with the alerts' clock at {@link clock} (noon UTC until a test moves it).
 */
export class AlertsScene {
  clock = Date.parse("2026-11-28T12:00:00Z");
  #nextUpdate = 50_000;

  private constructor(
    readonly telegram: TelegramEmulator,
    readonly chatbot: ScriptedChatbot,
  ) {}

  static async open(): Promise<AlertsScene> {
    const [telegram, chatbot] = await Promise.all([
      TelegramEmulator.start({ token: TOKEN, bot: { id: 4243, username: "homes_alerts_bot" } }),
      ScriptedChatbot.start(),
    ]);
    chatbot.welcome = { ...chatbot.welcome, TimeZone: "UTC" };
    return new AlertsScene(telegram, chatbot);
  }

  /**
   * A bridge on the store that `store` names (STORE_URL, DATA_DIR, STORE_NAMESPACE), logging to `log` (silent by
   * default); `env` changes the rest (an undefined value removes the variable: no CHATBOT_API_URL is the embedded API).
   */
  async start(
    store: Record<string, string>,
    options: { log?: Logger; env?: Record<string, string | undefined> } = {},
  ): Promise<RunningBridge> {
    const port = await freePort();
    const env: Record<string, string | undefined> = {
      PORT: String(port),
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      CHATBOT_API_URL: this.chatbot.url,
      CHATBOT_API_KEY: "sk-test",
      CHATBOT_SESSION_KEY: "session-key-test",
      CHATBOT_SERIAL_NUMBER: "homes-chatbot",
      TELEGRAM_BOT_TOKEN: TOKEN,
      TELEGRAM_WEBHOOK_SECRET: SECRET,
      TELEGRAM_API_ROOT: this.telegram.url,
      ALERTS_POLL_MINUTES: "0.005",
      ...store,
      ...options.env,
    };
    const defined = Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined);
    const config = loadConfig(Object.fromEntries(defined), { envFile: undefined });
    return startBridge(config, options.log ?? createLogger("silent"), {
      host: "127.0.0.1",
      alertsClock: () => this.clock,
    });
  }

  close(): Promise<unknown> {
    return Promise.all([this.telegram.close(), this.chatbot.close()]);
  }

  /** The polls of the listings so far. */
  polls(): number {
    return listingPolls(this.chatbot);
  }

  /** Waits for `count` more polls: whatever they queue is on its way by then. */
  pollsPass(count = 3): Promise<void> {
    return morePolls(this.chatbot, count);
  }

  /** The messages in `chat`. */
  messages(chat: number): EmulatedMessage[] {
    return this.telegram.messagesIn(chat);
  }

  /** Sends `text` in private chat `chat` and returns the bot's reply to it. */
  async say(chat: number, text: string): Promise<EmulatedMessage> {
    const before = this.messages(chat).length;
    const id = ++this.#nextUpdate;
    await this.telegram.deliver({
      update_id: id,
      message: {
        message_id: id,
        date: 1767225000,
        chat: { id: chat, type: "private", first_name: "Ana" },
        from: { id: chat, is_bot: false, first_name: "Ana" },
        text,
      },
    } as Update);
    await until(() => (this.messages(chat).length > before ? true : undefined), 20_000);
    return this.messages(chat)[before] as EmulatedMessage;
  }

  /** The messages of `chat` after the first `from`, once `count` of them came and two more polls passed. */
  async messagesAfter(chat: number, from: number, count: number): Promise<EmulatedMessage[]> {
    await until(() => (this.messages(chat).length >= from + count ? true : undefined), 20_000);
    await this.pollsPass(2);
    return this.messages(chat).slice(from);
  }

  /** Greets `chat` and saves "3+ bedrooms for sale in Austin up to $600,000" through /alert; returns the last reply. */
  async saveAustinSearch(chat: number): Promise<string | undefined> {
    await this.say(chat, "/start");
    for (const answer of ["/alert", "Austin", "for sale", "3"]) await this.say(chat, answer);
    return (await this.say(chat, "600k")).text;
  }
}
