import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Update } from "grammy/types";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type RunningBridge, startBridge } from "../../../src/app/bridge-app.js";
import { createLogger } from "../../../src/common/log.js";
import { loadConfig } from "../../../src/config/config.js";
import { type EmulatedMessage, TelegramEmulator } from "../../emulators/telegram.js";
import { freePort, until } from "../../support/waiting.js";
import { listingItem, ScriptedChatbot } from "../../upstream/scripted-chatbot.js";

const TOKEN = "123456789:AAtest-token-of-the-cards-bot_01";
const SECRET = "cards-secret_42";

let telegram: TelegramEmulator;
let chatbot: ScriptedChatbot;
let running: RunningBridge;

beforeAll(async () => {
  [telegram, chatbot] = await Promise.all([
    TelegramEmulator.start({ token: TOKEN, bot: { id: 4242, username: "homes_cards_bot" } }),
    ScriptedChatbot.start(),
  ]);
  chatbot.listings = [
    listingItem("TX-1001"),
    listingItem("TX-1002", { Price: "2300", SaleType: "for_rent", Bedrooms: "1", City: "Dallas", Images: "" }),
    listingItem("TX-1003"),
    listingItem("TX-1004"),
    listingItem("TX-2001", { Images: "https://images.homes.test/gone.jpg" }),
  ];
  telegram.unreachablePhotos.add("https://images.homes.test/gone.jpg");
  const port = await freePort();
  const dir = mkdtempSync(path.join(tmpdir(), "chatbridge-telegram-cards-"));
  const config = loadConfig(
    {
      PORT: String(port),
      DATA_DIR: dir,
      STORE_URL: "memory://",
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      CHATBOT_API_URL: chatbot.url,
      CHATBOT_API_KEY: "sk-test",
      // RealEstateList takes the session key.
      CHATBOT_SESSION_KEY: "session-key-test",
      CHATBOT_SERIAL_NUMBER: "homes-chatbot",
      ANSWER_TIMEOUT_MS: "5000",
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

afterEach(() => {
  // Cards are paced like any message: the emulator never had to refuse a call.
  expect(telegram.rateLimited()).toEqual([]);
});

let nextUpdate = 30_000;
let nextChat = 90_000;

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

async function quiet(ms = 600): Promise<void> {
  await until(() => (performance.now() - (telegram.calls.at(-1)?.at ?? 0) > ms ? true : undefined), 20_000);
}

async function settled(chatId: number, count: number): Promise<EmulatedMessage[]> {
  await until(() => (telegram.messagesIn(chatId).length >= count ? true : undefined), 20_000);
  await quiet();
  return telegram.messagesIn(chatId);
}

const keyboardOf = (message: EmulatedMessage | undefined) =>
  (message?.replyMarkup as { inline_keyboard?: { text: string; url?: string; callback_data?: string }[][] })
    ?.inline_keyboard;

describe("Telegram listing cards (webhook, emulator, scripted chatbot)", () => {
  it("sends a photo card per listing after the answer, at most LISTING_CARDS_MAX, none for an unknown one", async () => {
    const chatId = ++nextChat;
    chatbot.answer = () => ({
      fragments: [
        "Here are homes: MLS# NOPE-404 (gone), MLS# TX-1001, ",
        "MLS# TX-1002, https://homes.test/listing/tx-1003 and MLS# TX-1004.",
      ],
    });
    await telegram.deliver(privateMessage("homes?", chatId));
    const messages = await settled(chatId, 4);
    expect(messages).toHaveLength(4);
    const [answer, first, second, third] = messages;
    // The answer's text first, untouched; the cards after it, in the order the answer names them.
    expect(answer?.text).toContain("MLS# TX-1004");
    expect(answer?.photo).toBeUndefined();
    expect(first).toMatchObject({ photo: "https://images.homes.test/tx-1001-1.jpg", parseMode: "HTML" });
    expect(first?.text).toBe(
      "$450,000 · 3 beds · 2 baths · 1,850 sq ft\n12 Oak St, Austin, TX 78701\nHouse · MLS TX-1001",
    );
    expect(first?.rawText.startsWith("<b>$450,000 · 3 beds")).toBe(true);
    expect(keyboardOf(first)).toEqual([
      [
        { text: "Details", url: "https://homes.test/listing/tx-1001" },
        { text: "Similar homes", callback_data: "card:similar:TX-1001" },
        { text: "Book a viewing", callback_data: "card:viewing:TX-1001" },
      ],
    ]);
    // A listing without an image is a text card with the same buttons.
    expect(second?.photo).toBeUndefined();
    expect(second?.text).toBe(
      "$2,300 / month · 1 bed · 2 baths · 1,850 sq ft\n12 Oak St, Dallas, TX 78701\nHouse · for rent · MLS TX-1002",
    );
    expect(keyboardOf(second)?.[0]?.map((button) => button.text)).toEqual([
      "Details",
      "Similar homes",
      "Book a viewing",
    ]);
    // Found by its address, the third; the fourth is over the maximum of 3.
    expect(third?.photo).toBe("https://images.homes.test/tx-1003-1.jpg");
    expect(telegram.callsTo("sendPhoto")).toHaveLength(2);
  });

  it("answers a tap on Similar homes and asks the chatbot for listings like that one", async () => {
    const chatId = ++nextChat;
    chatbot.answer = (question) => ({
      fragments: [question.startsWith("Show me") ? "Similar: MLS# TX-1003" : "See MLS# TX-1001"],
    });
    await telegram.deliver(privateMessage("one home?", chatId));
    const [, card] = await settled(chatId, 2);
    const data = keyboardOf(card)?.[0]?.[1]?.callback_data as string;
    const tap = telegram.tap(chatId, card?.messageId as number, data);
    // The emulator numbered the tap: the next messages come after it.
    nextUpdate = Math.max(nextUpdate, tap.update_id);
    const asked = chatbot.asks.length;
    expect((await telegram.deliver(tap)).status).toBe(200);
    const messages = await settled(chatId, 4);
    // The tap is answered, so the button stops spinning, and asked as the user's message in the conversation.
    expect(telegram.answeredQueries.map((query) => query.id)).toEqual([tap.callback_query.id]);
    expect(chatbot.asks.slice(asked).map((ask) => ask.content)).toEqual([
      "Show me homes similar to MLS TX-1001: in Austin, for sale, about $450,000 (±20%: $360,000 to $540,000), 2 to 4 bedrooms.",
    ]);
    expect(messages.slice(2).map((message) => message.photo ?? message.text)).toEqual([
      "Similar: MLS# TX-1003",
      "https://images.homes.test/tx-1003-1.jpg",
    ]);
    // The same tap delivered again is not asked twice.
    await telegram.deliver(tap);
    await quiet();
    expect(chatbot.asks.length).toBe(asked + 1);
  });

  it("sends a card whose photo Telegram cannot fetch as text", async () => {
    const chatId = ++nextChat;
    chatbot.answer = () => ({ fragments: ["Try MLS# TX-2001."] });
    await telegram.deliver(privateMessage("that one?", chatId));
    const messages = await settled(chatId, 2);
    expect(messages).toHaveLength(2);
    expect(telegram.callsTo("sendPhoto").at(-1)).toMatchObject({
      ok: false,
      description: "Bad Request: wrong file identifier/HTTP URL specified",
    });
    expect(messages[1]?.photo).toBeUndefined();
    expect(messages[1]?.text).toContain("$450,000 · 3 beds · 2 baths");
    expect(keyboardOf(messages[1])?.[0]?.map((button) => button.text)).toEqual([
      "Details",
      "Similar homes",
      "Book a viewing",
    ]);
  });

  it("sends no card when the answer names no listing it can find", async () => {
    const chatId = ++nextChat;
    chatbot.answer = () => ({ fragments: ["MLS# ZZ-1 is gone, see https://elsewhere.test/listing/9."] });
    await telegram.deliver(privateMessage("gone?", chatId));
    const messages = await settled(chatId, 1);
    await quiet(1_000);
    expect(telegram.messagesIn(chatId)).toHaveLength(1);
    expect(messages[0]?.photo).toBeUndefined();
  });
});
