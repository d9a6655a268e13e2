import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Update } from "grammy/types";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningBridge, startBridge } from "../../../src/bridge-app.js";
import { loadConfig } from "../../../src/config.js";
import { createLogger } from "../../../src/log.js";
import { type EmulatedMessage, TelegramEmulator } from "../../emulators/telegram.js";
import { freePort, until } from "../../support/waiting.js";
import { listingItem, ScriptedChatbot } from "../../upstream/scripted-chatbot.js";

const TOKEN = "123456789:AAtest-token-of-the-alerts-bot_01";
const SECRET = "alerts-secret_42";
const CHAT = 77_001;
const HOUR = 60 * 60 * 1000;

let telegram: TelegramEmulator;
let chatbot: ScriptedChatbot;
let running: RunningBridge | undefined;
let dataDir: string;
/** The alerts' clock: noon UTC, moved by the tests. */
let clock = Date.parse("2026-11-28T12:00:00Z");

/** A bridge on the SQLite file of `dataDir`, polling every 300 ms, with quiet hours 21-8 in the chatbot's UTC. */
async function start(): Promise<RunningBridge> {
  const port = await freePort();
  const config = loadConfig(
    {
      PORT: String(port),
      DATA_DIR: dataDir,
      STORE_URL: "sqlite://bridge.db",
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      CHATBOT_API_URL: chatbot.url,
      CHATBOT_API_KEY: "sk-test",
      CHATBOT_SESSION_KEY: "session-key-test",
      CHATBOT_SERIAL_NUMBER: "homes-chatbot",
      TELEGRAM_BOT_TOKEN: TOKEN,
      TELEGRAM_WEBHOOK_SECRET: SECRET,
      TELEGRAM_API_ROOT: telegram.url,
      ALERTS_POLL_MINUTES: "0.005",
    },
    { envFile: undefined },
  );
  return startBridge(config, createLogger("silent"), { host: "127.0.0.1", alertsClock: () => clock });
}

beforeAll(async () => {
  [telegram, chatbot] = await Promise.all([
    TelegramEmulator.start({ token: TOKEN, bot: { id: 4243, username: "homes_alerts_bot" } }),
    ScriptedChatbot.start(),
  ]);
  chatbot.welcome = { ...chatbot.welcome, TimeZone: "UTC" };
  chatbot.listings = [
    listingItem("TX-1", { Status: "PreOnMarket" }),
    listingItem("TX-9", { City: "Dallas", Price: "300000" }),
  ];
  dataDir = mkdtempSync(path.join(tmpdir(), "chatbridge-telegram-alerts-"));
  running = await start();
});

afterAll(async () => {
  await running?.close(1000);
  await Promise.all([telegram?.close(), chatbot?.close()]);
});

let nextUpdate = 50_000;

function message(text: string): Update {
  const id = ++nextUpdate;
  return {
    update_id: id,
    message: {
      message_id: id,
      date: 1767225000,
      chat: { id: CHAT, type: "private", first_name: "Ana" },
      from: { id: CHAT, is_bot: false, first_name: "Ana" },
      text,
    },
  } as Update;
}

/** The polls of the listings so far (the answers' card lookups name an MLS number, polls do not). */
const polls = () => chatbot.listingQueries.filter((query) => query.MLSNumber === undefined).length;

/** Waits for `count` more polls: whatever they queue is sent by then, give or take a moment. */
async function pollsPass(count = 3): Promise<void> {
  const from = polls();
  await until(() => (polls() >= from + count ? true : undefined), 20_000);
  await new Promise((resolve) => setTimeout(resolve, 300));
}

/** Sends `text` and returns the bot's reply to it. */
async function say(text: string): Promise<EmulatedMessage> {
  const before = telegram.messagesIn(CHAT).length;
  await telegram.deliver(message(text));
  await until(() => (telegram.messagesIn(CHAT).length > before ? true : undefined), 20_000);
  return telegram.messagesIn(CHAT)[before] as EmulatedMessage;
}

/** The messages sent after the first `from`, once `count` of them came. */
async function messagesAfter(from: number, count: number): Promise<EmulatedMessage[]> {
  await until(() => (telegram.messagesIn(CHAT).length >= from + count ? true : undefined), 20_000);
  await pollsPass(2);
  return telegram.messagesIn(CHAT).slice(from);
}

describe("Telegram alerts (webhook, emulator, scripted chatbot, SQLite store)", { timeout: 30_000 }, () => {
  it("saves a search through /alert and lists it with /alerts", async () => {
    // The first poll only remembers the listings: none of them is an alert.
    await pollsPass(1);
    expect((await say("/start")).text).toBe("Welcome to Homes!");
    expect((await say("/alert")).text).toContain("Which city?");
    expect((await say("Austin")).text).toContain("For sale or for rent?");
    expect((await say("for sale")).text).toContain("bedrooms");
    expect((await say("3")).text).toContain("Highest price?");
    expect((await say("600k")).text).toBe(
      "Saved alert 1: 3+ bedrooms for sale in Austin up to $600,000. /alerts lists your alerts, /stop ends them.",
    );
    const list = await say("/alerts");
    expect(list.text).toContain("1. 3+ bedrooms for sale in Austin up to $600,000");
    // Nothing was asked of the chatbot.
    expect(chatbot.asks).toEqual([]);
  });

  it("sends one message with the card when a matching listing is created, none for another", async () => {
    const from = telegram.messagesIn(CHAT).length;
    chatbot.listings.push(
      listingItem("TX-2", { Price: "500000", Address: "3 Elm St" }),
      listingItem("TX-8", { City: "Dallas" }),
    );
    const messages = await messagesAfter(from, 2);
    expect(messages).toHaveLength(2);
    expect(messages[0]?.text).toBe(
      "A home for your alerts:\n• New: $500,000 · 3 beds · 3 Elm St, Austin, TX 78701 https://homes.test/listing/tx-2\n\n" +
        "/alerts lists your alerts, /stop ends them.",
    );
    expect(messages[1]?.photo).toBe("https://images.homes.test/tx-2-1.jpg");
  });

  it("holds alerts within the hour and sends them together once it has passed", async () => {
    const from = telegram.messagesIn(CHAT).length;
    const tx1 = chatbot.listings.find((item) => item.MLSNumber === "TX-1");
    if (tx1) tx1.Status = "Active";
    chatbot.listings.push(listingItem("TX-3", { Price: "550000" }));
    await pollsPass();
    expect(telegram.messagesIn(CHAT).length).toBe(from);
    clock += HOUR;
    const messages = await messagesAfter(from, 3);
    expect(messages).toHaveLength(3);
    expect(messages[0]?.text).toMatch(/^2 homes for your alerts:\n• Now on the market: \$450,000.*\n• New: \$550,000/);
    expect(messages.slice(1).map((sent) => sent.photo)).toEqual([
      "https://images.homes.test/tx-1-1.jpg",
      "https://images.homes.test/tx-3-1.jpg",
    ]);
  });

  it("sends a price drop, held through the quiet hours", async () => {
    const from = telegram.messagesIn(CHAT).length;
    clock = Date.parse("2026-11-28T22:00:00Z");
    const tx2 = chatbot.listings.find((item) => item.MLSNumber === "TX-2");
    if (tx2) tx2.Price = "480000";
    await pollsPass();
    expect(telegram.messagesIn(CHAT).length).toBe(from);
    clock = Date.parse("2026-11-29T08:05:00Z");
    const messages = await messagesAfter(from, 2);
    expect(messages).toHaveLength(2);
    expect(messages[0]?.text).toContain("• Price drop: $480,000 · 3 beds · 3 Elm St");
  });

  it("keeps held alerts through a restart on the same store and sends them once", async () => {
    const from = telegram.messagesIn(CHAT).length;
    clock = Date.parse("2026-11-29T22:00:00Z");
    chatbot.listings.push(listingItem("TX-5", { Address: "5 Pine St" }));
    await pollsPass();
    expect(telegram.messagesIn(CHAT).length).toBe(from);
    await running?.close(1000);
    running = await start();
    clock = Date.parse("2026-11-30T09:00:00Z");
    const messages = await messagesAfter(from, 2);
    await pollsPass();
    expect(telegram.messagesIn(CHAT).slice(from)).toEqual(messages);
    expect(messages).toHaveLength(2);
    expect(messages[0]?.text).toContain("• New: $450,000 · 3 beds · 5 Pine St");
  });

  it("ends every alert on /stop", async () => {
    expect((await say("/stop")).text).toBe("All your alerts are stopped. /alert sets up a new one.");
    const from = telegram.messagesIn(CHAT).length;
    clock += 2 * HOUR;
    chatbot.listings.push(listingItem("TX-4"));
    await pollsPass();
    expect(telegram.messagesIn(CHAT).length).toBe(from);
    expect((await say("/alerts")).text).toBe("You have no alerts. /alert sets one up.");
  });
});
