import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startBridge } from "../../../src/app/bridge-app.js";
import { createLogger } from "../../../src/common/log.js";
import { ConfigError, loadConfig } from "../../../src/config/config.js";
import { TelegramEmulator } from "../../emulators/telegram.js";
import { freePort, until } from "../../support/waiting.js";
import { ScriptedChatbot } from "../../upstream/scripted-chatbot.js";

const TOKEN = "123456789:AAtest-token-of-the-emulator_01";

let telegram: TelegramEmulator;
let chatbot: ScriptedChatbot;

beforeAll(async () => {
  [telegram, chatbot] = await Promise.all([TelegramEmulator.start({ token: TOKEN }), ScriptedChatbot.start()]);
});
afterAll(async () => {
  await Promise.all([telegram.close(), chatbot.close()]);
});

async function configWith(env: Record<string, string>) {
  return loadConfig(
    {
      PORT: String(await freePort()),
      DATA_DIR: mkdtempSync(path.join(tmpdir(), "chatbridge-tg-start-")),
      STORE_URL: "memory://",
      CHATBOT_API_URL: chatbot.url,
      CHATBOT_API_KEY: "sk-test",
      CHATBOT_SERIAL_NUMBER: "homes",
      TELEGRAM_BOT_TOKEN: TOKEN,
      TELEGRAM_API_ROOT: telegram.url,
      ...env,
    },
    { envFile: undefined },
  );
}

describe("chatbridge start with Telegram", () => {
  it("long-polls in polling mode: no webhook, updates answered, polling stopped on close", async () => {
    const running = await startBridge(await configWith({ TELEGRAM_MODE: "polling" }), createLogger("silent"), {
      host: "127.0.0.1",
    });
    try {
      expect(running.channels.find((channel) => channel.name === "Telegram")).toMatchObject({
        enabled: true,
        detail: `@vercelchatsdkbot, long polling ${telegram.url}`,
      });
      telegram.enqueue({
        message: {
          message_id: 1,
          date: 1,
          chat: { id: 31, type: "private" },
          from: { id: 31, is_bot: false, first_name: "Po" },
          text: "polled",
        },
      });
      // A first contact: the greeting opens the answer.
      await until(() => (telegram.messagesIn(31).length >= 1 ? true : undefined));
      await until(() =>
        telegram.messagesIn(31)[0]?.text === "Welcome to Homes!\n\nAnswer to polled" ? true : undefined,
      );
      expect(telegram.webhook).toBeUndefined();
    } finally {
      await running.close(1000);
    }
    const polls = telegram.callsTo("getUpdates").length;
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(telegram.callsTo("getUpdates").length).toBe(polls);
  });

  it("stays disabled, saying why, in webhook mode without PUBLIC_URL", async () => {
    const running = await startBridge(await configWith({ TELEGRAM_WEBHOOK_SECRET: "s3cret" }), createLogger("silent"), {
      host: "127.0.0.1",
    });
    try {
      expect(running.channels.find((channel) => channel.name === "Telegram")).toEqual({
        name: "Telegram",
        enabled: false,
        detail: "set PUBLIC_URL (the https address Telegram posts to), or TELEGRAM_MODE=polling",
      });
    } finally {
      await running.close(1000);
    }
  });

  it("refuses to start a webhook without a secret, naming the variable, and leaves the port free", async () => {
    const config = await configWith({ PUBLIC_URL: "https://bot.example.com" });
    const failure = await startBridge(config, createLogger("silent"), { host: "127.0.0.1" }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(ConfigError);
    expect((failure as ConfigError).problems[0]).toMatch(/^TELEGRAM_WEBHOOK_SECRET is not set: in webhook mode/);
    // Nothing kept listening: the same port can be taken again at once.
    const withoutTelegram = await configWith({ PUBLIC_URL: "https://bot.example.com", TELEGRAM_BOT_TOKEN: "" });
    const again = await startBridge({ ...withoutTelegram, port: config.port }, createLogger("silent"), {
      host: "127.0.0.1",
    });
    await again.close(1000);
  });
});
