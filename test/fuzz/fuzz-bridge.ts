import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { type RunningBridge, startBridge } from "../../src/app/bridge-app.js";
import { createLogger } from "../../src/common/log.js";
import { loadConfig } from "../../src/config/config.js";
import { SlackEmulator } from "../emulators/slack.js";
import { TelegramEmulator } from "../emulators/telegram.js";
import { WhatsAppEmulator } from "../emulators/whatsapp.js";
import { freePort } from "../support/waiting.js";
import { ScriptedChatbot } from "../upstream/scripted-chatbot.js";
import type { FuzzSecrets } from "./webhook-fuzz.js";
import { FUZZ_WEB_CHAT_SECRET, SLACK_BOT_USER, TELEGRAM_BOT, WHATSAPP_PHONE_NUMBER_ID } from "./webhook-seeds.js";

const TELEGRAM_TOKEN = "123456789:AAfuzz-token-of-the-emulator_01";

/** chatbridge start with every channel on, against the emulators and a scripted chatbot, all in this process. */
export interface FuzzBridge {
  running: RunningBridge;
  telegram: TelegramEmulator;
  whatsapp: WhatsAppEmulator;
  slack: SlackEmulator;
  chatbot: ScriptedChatbot;
  secrets: FuzzSecrets;
  /** Requests the chatbot API and the platforms received so far, all together. */
  outgoing(): { upstream: number; telegram: number; whatsapp: number; slack: number };
  close(): Promise<void>;
}

/** Starts the emulators, the chatbot and the bridge (Telegram webhook, WhatsApp, Slack over HTTP, web chat). */
export async function startFuzzBridge(): Promise<FuzzBridge> {
  const secrets: FuzzSecrets = {
    telegramSecret: "fuzz-webhook-secret_42",
    whatsappAppSecret: "fuzz-app-secret",
    slackSigningSecret: "8f742231b10e8888abcd99fuzzzz85a5",
  };
  const [telegram, whatsapp, slack, chatbot] = await Promise.all([
    TelegramEmulator.start({ token: TELEGRAM_TOKEN, bot: { id: TELEGRAM_BOT.id, username: TELEGRAM_BOT.username } }),
    WhatsAppEmulator.start({ phoneNumberId: WHATSAPP_PHONE_NUMBER_ID, appSecret: secrets.whatsappAppSecret }),
    SlackEmulator.start({ token: "xoxb-fuzz-token", botUserId: SLACK_BOT_USER, teamId: "T00FAKE00AA" }),
    ScriptedChatbot.start(),
  ]);
  const port = await freePort();
  const config = loadConfig(
    {
      PORT: String(port),
      DATA_DIR: mkdtempSync(path.join(tmpdir(), "chatbridge-fuzz-")),
      STORE_URL: "memory://",
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      CHATBOT_API_URL: chatbot.url,
      CHATBOT_API_KEY: "sk-test",
      CHATBOT_SERIAL_NUMBER: "homes-chatbot",
      ANSWER_TIMEOUT_MS: "3000",
      TELEGRAM_BOT_TOKEN: TELEGRAM_TOKEN,
      TELEGRAM_WEBHOOK_SECRET: secrets.telegramSecret,
      TELEGRAM_API_ROOT: telegram.url,
      WHATSAPP_ACCESS_TOKEN: whatsapp.accessToken,
      WHATSAPP_PHONE_NUMBER_ID: whatsapp.phoneNumberId,
      WHATSAPP_APP_SECRET: whatsapp.appSecret,
      WHATSAPP_VERIFY_TOKEN: "fuzz-verify",
      WHATSAPP_API_URL: whatsapp.url,
      WHATSAPP_API_VERSION: whatsapp.version,
      SLACK_BOT_TOKEN: "xoxb-fuzz-token",
      SLACK_SIGNING_SECRET: secrets.slackSigningSecret,
      SLACK_API_URL: slack.url,
      WEB_CHAT_SECRET: FUZZ_WEB_CHAT_SECRET,
      // Thousands of web chat posts come from this one address: the limits (web-limits.test.ts) would refuse them.
      WEB_CHAT_LIMITS: "messages=off,off identities=off",
    },
    { envFile: undefined },
  );
  const running = await startBridge(config, createLogger("silent"), { host: "127.0.0.1" });
  return {
    running,
    telegram,
    whatsapp,
    slack,
    chatbot,
    secrets,
    outgoing: () => ({
      upstream: chatbot.api.requests.length,
      telegram: telegram.calls.length,
      whatsapp: whatsapp.calls.length,
      slack: slack.calls.length,
    }),
    close: async () => {
      await running.close(1000);
      await Promise.all([telegram.close(), whatsapp.close(), slack.close(), chatbot.close()]);
    },
  };
}
