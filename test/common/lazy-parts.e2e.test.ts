import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { privateUpdateIn } from "../adapters/telegram/telegram-fixtures.js";
import { textsIn } from "../adapters/telegram/telegram-replies.js";
import { TelegramEmulator } from "../emulators/telegram.js";
import { type CliProcess, spawnCli } from "../support/cli-process.js";
import { mediaFixture } from "../support/media-fixtures.js";
import { freePort, until } from "../support/waiting.js";
import { describingTheAsk, ScriptedChatbot } from "../upstream/scripted-chatbot.js";

const TOKEN = "123456789:AAlazy-parts-token-of-the-bot_1";
const SECRET = "lazy-parts-secret_1";

let telegram: TelegramEmulator;
let chatbot: ScriptedChatbot;
let bridge: CliProcess;
let base: string;

/** What the process's /metrics says of each part loaded on first use: its name → 0 or 1. */
async function loadedParts(): Promise<Record<string, number>> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const lines = text.matchAll(/^chatbridge_module_loaded\{module="([^"]+)"\} (\d+)$/gm);
  return Object.fromEntries([...lines].map(([, part, value]) => [part, Number(value)]));
}

// Modules are loaded per process: only a process of its own shows what `chatbridge start` loads.
beforeAll(async () => {
  [telegram, chatbot] = await Promise.all([TelegramEmulator.start({ token: TOKEN }), ScriptedChatbot.start()]);
  chatbot.answer = describingTheAsk;
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  bridge = spawnCli(["start"], {
    PORT: String(port),
    DATA_DIR: mkdtempSync(path.join(tmpdir(), "chatbridge-lazy-")),
    LOG_LEVEL: "warn",
    PUBLIC_URL: base,
    CHATBOT_API_URL: chatbot.url,
    CHATBOT_API_KEY: "sk-test",
    CHATBOT_SERIAL_NUMBER: "homes",
    TELEGRAM_BOT_TOKEN: TOKEN,
    TELEGRAM_WEBHOOK_SECRET: SECRET,
    TELEGRAM_API_ROOT: telegram.url,
  });
  await until(() => (bridge.stdout().includes("talk to a human") ? true : undefined), 60_000).catch(() => {
    throw new Error(`not started: ${bridge.stdout()}${bridge.stderr()}`);
  });
}, 90_000);

afterAll(async () => {
  if (bridge && bridge.child.exitCode === null) {
    bridge.child.kill("SIGTERM");
    await bridge.exited;
  }
  await Promise.all([telegram?.close(), chatbot?.close()]);
});

describe("parts loaded on first use (chatbridge start with Telegram only and a remote chatbot API)", () => {
  it("reports Telegram loaded, and neither the embedded API, Slack, WhatsApp nor the media codecs", async () => {
    expect(await loadedParts()).toEqual({
      "embedded-api": 0,
      telegram: 1,
      slack: 0,
      whatsapp: 0,
      "media-codecs": 0,
    });
    expect(bridge.stdout()).toContain("✗ Slack: disabled — set SLACK_BOT_TOKEN to enable");
    expect(bridge.stdout()).toContain(
      "✗ WhatsApp: disabled — set WHATSAPP_ACCESS_TOKEN, WHATSAPP_PHONE_NUMBER_ID, WHATSAPP_APP_SECRET, WHATSAPP_VERIFY_TOKEN to enable",
    );
  });

  it("loads the media codecs with the first voice note, which is converted and asked as Audio", async () => {
    const ogg = mediaFixture("voice.ogg");
    const fileId = telegram.addFile(ogg, { fileName: "voice.oga" });
    const chatId = 71_001;
    const voice = { file_id: fileId, file_unique_id: "v1", duration: 5, mime_type: "audio/ogg", file_size: ogg.length };
    expect((await telegram.deliver(privateUpdateIn(chatId, { voice }), { secret: SECRET })).status).toBe(200);
    const [text] = await textsIn(telegram, chatId, 1);
    expect(text).toContain("Audio with 1 file(s)");
    expect(chatbot.asks.at(-1)).toMatchObject({ chatAskType: "Audio" });
    expect(await loadedParts()).toMatchObject({ "media-codecs": 1, "embedded-api": 0, slack: 0 });
  });
});
