import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Message, Update } from "grammy/types";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningBridge, startBridge } from "../../../src/app/bridge-app.js";
import { ChatbotClient, type LeadItem } from "../../../src/client/index.js";
import { createLogger } from "../../../src/common/log.js";
import { loadConfig } from "../../../src/config/config.js";
import { TelegramEmulator } from "../../emulators/telegram.js";
import { mediaFixture } from "../../support/media-fixtures.js";
import { SmtpSink } from "../../support/smtp-sink.js";
import { freePort, until } from "../../support/waiting.js";
import { privateUpdateIn } from "./telegram-fixtures.js";
import { textsIn } from "./telegram-replies.js";

const TOKEN = "123456789:AAtest-token-of-the-embedded-bot";
const SECRET = "embedded-secret";

let telegram: TelegramEmulator;
let smtp: SmtpSink;
let running: RunningBridge;

// The whole product on one machine: Telegram's emulator → chatbridge → the embedded chatbot API it serves itself.
beforeAll(async () => {
  [telegram, smtp] = await Promise.all([
    TelegramEmulator.start({ token: TOKEN, bot: { id: 777, username: "embedded_homes_bot" } }),
    SmtpSink.start(),
  ]);
  const port = await freePort();
  const config = loadConfig(
    {
      PORT: String(port),
      DATA_DIR: mkdtempSync(path.join(tmpdir(), "chatbridge-embedded-media-")),
      STORE_URL: "memory://",
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      TELEGRAM_BOT_TOKEN: TOKEN,
      TELEGRAM_WEBHOOK_SECRET: SECRET,
      TELEGRAM_API_ROOT: telegram.url,
      MEDIA_GROUP_WINDOW_MS: "300",
      SMTP_URL: smtp.url(),
      MAIL_FROM: "bot@homes.example",
      HANDOFF_EMAIL: "agents@homes.example",
    },
    { envFile: undefined },
  );
  running = await startBridge(config, createLogger("silent"), { host: "127.0.0.1" });
});

afterAll(async () => {
  await running?.close(1000);
  await Promise.all([telegram?.close(), smtp?.stop()]);
});

let nextChat = 7000;

const update = (content: Partial<Message>, chatId: number): Update => privateUpdateIn(chatId, content);

/** The demo chatbot's WelcomeMessage: at first contact it opens the first answer's message. */
const WELCOME =
  "Hi! I'm the Harbor & Pine Realty assistant. Ask me about homes for sale or rent in Austin, Denver, Miami, Seattle or Chicago.";

/** The answer to a conversation's first message, after the greeting that opens it, once the bridge has gone quiet. */
async function answerIn(chatId: number): Promise<string> {
  const [first = ""] = await textsIn(telegram, chatId, 1);
  const cut = first.indexOf("\n\n");
  expect(first.slice(0, cut)).toBe(WELCOME);
  return first.slice(cut + 2);
}

describe("Telegram through the embedded chatbot API", () => {
  it("acknowledges a voice note with its length, as converted, uploaded and checked by the server", async () => {
    const chatId = ++nextChat;
    const ogg = mediaFixture("voice.ogg");
    const voice = { file_id: telegram.addFile(ogg), file_unique_id: "v", duration: 5, mime_type: "audio/ogg" };
    await telegram.deliver(update({ voice }, chatId), { secret: SECRET });
    const answer = await answerIn(chatId);
    // 4.84 s of speech rounds to 5 seconds on the server, read from the WAV the bridge uploaded.
    expect(answer).toMatch(/^I received a 5-second voice message\. I can't listen to recordings offline/);
  });

  it("acknowledges an album's photos and answers their caption from the listings", async () => {
    const chatId = ++nextChat;
    for (const [n, name] of (["photo.jpg", "photo.webp"] as const).entries()) {
      const photo = [{ file_id: telegram.addFile(mediaFixture(name)), file_unique_id: `p${n}`, width: 64, height: 48 }];
      const caption = n === 0 ? { caption: "houses for sale in Austin" } : {};
      await telegram.deliver(update({ media_group_id: "a1", photo, ...caption }, chatId), { secret: SECRET });
    }
    const answer = await answerIn(chatId);
    expect(answer).toMatch(
      /^I received 2 photos\. I can't look at photos offline, so I'll answer your written message\./,
    );
    expect(answer).toContain("Austin");
    // One answer for the album (asked once); what follows it are the cards of the listings it names.
    const [first, ...rest] = telegram.messagesIn(chatId);
    expect(first?.text).toContain("I received 2 photos");
    expect(rest.every((card) => JSON.stringify(card.replyMarkup).includes("Similar homes"))).toBe(true);
  });

  it("records a request for a person as a Handoff lead of the chatbot, for its daily leads digest", async () => {
    const chatId = ++nextChat;
    const from = { id: chatId, is_bot: false, first_name: "Ana", username: "ana_buyer" };
    await telegram.deliver(update({ text: "my number is +1 512 555 0100, 3 bedrooms?", from }, chatId), {
      secret: SECRET,
    });
    await answerIn(chatId);
    await telegram.deliver(update({ text: "/human", from }, chatId), { secret: SECRET });
    await until(() => (telegram.messagesIn(chatId).length >= 2 ? true : undefined));
    await until(() => (smtp.received.length > 0 ? true : undefined));
    const { demo } = running.embedded as NonNullable<RunningBridge["embedded"]>;
    const client = new ChatbotClient({ baseUrl: running.url, apiKey: demo.workspace.secretKey });
    try {
      let leads: LeadItem[] = [];
      for (let tries = 0; tries < 50 && !leads.some((lead) => lead.Type === "Handoff"); tries++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        leads = await client.listLeads({ serialNumber: demo.chatbot.serialNumber });
      }
      expect(leads.find((lead) => lead.Type === "Contact")).toMatchObject({ Phone: "+1 512 555 0100" });
      expect(leads.find((lead) => lead.Type === "Handoff")).toMatchObject({ Name: "Ana", Content: "/human" });
      expect(leads.find((lead) => lead.Type === "Handoff")?.SessionID).toEqual(expect.any(Number));
    } finally {
      await client.close();
    }
  });
});
