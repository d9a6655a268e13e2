import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Update } from "grammy/types";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningBridge, startBridge } from "../../../src/app/bridge-app.js";
import { createLogger } from "../../../src/common/log.js";
import { loadConfig } from "../../../src/config/config.js";
import { listingCode } from "../../../src/features/listings/listing-links.js";
import { TelegramEmulator } from "../../emulators/telegram.js";
import { freePort, until } from "../../support/waiting.js";
import { listingItem, ScriptedChatbot } from "../../upstream/scripted-chatbot.js";

const TOKEN = "123456789:AAtest-token-of-the-deeplink-bot";
const SECRET = "deeplink-secret_42";

let telegram: TelegramEmulator;
let chatbot: ScriptedChatbot;
let running: RunningBridge;
let port: number;

beforeAll(async () => {
  [telegram, chatbot] = await Promise.all([
    TelegramEmulator.start({ token: TOKEN, bot: { id: 4244, username: "homes_deeplink_bot" } }),
    ScriptedChatbot.start(),
  ]);
  chatbot.listings = [
    listingItem("TX-1001"),
    listingItem("MLS 77.5", { Images: "", Url: "https://homes.test/listing/mls-77-5" }),
  ];
  port = await freePort();
  const config = loadConfig(
    {
      PORT: String(port),
      DATA_DIR: mkdtempSync(path.join(tmpdir(), "chatbridge-telegram-deeplink-")),
      STORE_URL: "memory://",
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      CHATBOT_API_URL: chatbot.url,
      CHATBOT_API_KEY: "sk-test",
      CHATBOT_SESSION_KEY: "session-key-test",
      CHATBOT_SERIAL_NUMBER: "homes-chatbot",
      TELEGRAM_BOT_TOKEN: TOKEN,
      TELEGRAM_WEBHOOK_SECRET: SECRET,
      TELEGRAM_API_ROOT: telegram.url,
    },
    { envFile: undefined },
  );
  running = await startBridge(config, createLogger("silent"), { host: "127.0.0.1" });
});

afterAll(async () => {
  await running?.close(1000);
  await Promise.all([telegram?.close(), chatbot?.close()]);
});

let nextUpdate = 50_000;
let nextChat = 70_000;

function privateMessage(text: string, chatId: number): Update {
  const id = ++nextUpdate;
  return {
    update_id: id,
    message: {
      message_id: id,
      date: 1767225000,
      chat: { id: chatId, type: "private", first_name: "Ana" },
      from: { id: chatId, is_bot: false, first_name: "Ana" },
      text,
    },
  } as Update;
}

async function settled(chatId: number, count: number) {
  await until(() => (telegram.messagesIn(chatId).length >= count ? true : undefined), 20_000);
  await until(() => (performance.now() - (telegram.calls.at(-1)?.at ?? 0) > 500 ? true : undefined), 20_000);
  return telegram.messagesIn(chatId);
}

async function visits(): Promise<string> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  return text
    .split("\n")
    .filter((line) => line.startsWith("chatbridge_listing_link_visits_total{"))
    .join("\n");
}

describe("Telegram deep links to a listing (webhook, emulator, scripted chatbot)", () => {
  it("answers /start <code> with the greeting, the listing's card and the viewing question, counting the visit", async () => {
    const chatId = ++nextChat;
    const asked = chatbot.asks.length;
    await telegram.deliver(privateMessage(`/start ${listingCode("TX-1001")}`, chatId));
    const messages = await settled(chatId, 3);

    expect(messages).toHaveLength(3);
    const [greeting, card, question] = messages;
    // The first contact is greeted first, once, on its own.
    expect(greeting?.text).toBe("Welcome to Homes!");
    expect(card).toMatchObject({ photo: "https://images.homes.test/tx-1001-1.jpg" });
    expect(card?.text).toContain("12 Oak St, Austin, TX 78701\nHouse · MLS TX-1001");
    expect(question?.text).toBe("Would you like to book a viewing?");
    // Not a question for the chatbot.
    expect(chatbot.asks.length).toBe(asked);
    expect(await visits()).toBe('chatbridge_listing_link_visits_total{channel="telegram"} 1');
    expect(chatbot.leads.at(-1)).toMatchObject({ Type: "ListingVisit", Content: "MLS TX-1001 via telegram" });
    expect(chatbot.leads.at(-1)?.sessionID).toEqual(expect.any(Number));
  });

  it("reads an encoded code, and answers a plain /start and a gone listing with the greeting", async () => {
    const chatId = ++nextChat;
    await telegram.deliver(privateMessage(`/start ${listingCode("MLS 77.5")}`, chatId));
    const [greeting, card, question] = await settled(chatId, 3);
    expect(greeting?.text).toBe("Welcome to Homes!");
    expect(card?.text).toContain("MLS MLS 77.5");
    expect(question?.text).toBe("Would you like to book a viewing?");

    const gone = ++nextChat;
    await telegram.deliver(privateMessage("/start l-TX-404", gone));
    expect((await settled(gone, 1)).map((message) => message.text)).toEqual(["Welcome to Homes!"]);

    const plain = ++nextChat;
    await telegram.deliver(privateMessage("/start", plain));
    expect((await settled(plain, 1)).map((message) => message.text)).toEqual(["Welcome to Homes!"]);
    expect(await visits()).toBe('chatbridge_listing_link_visits_total{channel="telegram"} 3');
  });
});
