import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningBridge } from "../../../src/app/bridge-app.js";
import { AlertsScene } from "../../adapters/telegram/alerts-scene.js";
import { listingItem } from "../../upstream/scripted-chatbot.js";

const CHAT = 77_001;
const HOUR = 60 * 60 * 1000;

let scene: AlertsScene;
let running: RunningBridge | undefined;
let store: Record<string, string>;

beforeAll(async () => {
  scene = await AlertsScene.open();
  scene.chatbot.listings = [
    listingItem("TX-1", { Status: "PreOnMarket" }),
    listingItem("TX-9", { City: "Dallas", Price: "300000" }),
  ];
  store = {
    DATA_DIR: mkdtempSync(path.join(tmpdir(), "chatbridge-telegram-alerts-")),
    STORE_URL: "sqlite://bridge.db",
  };
  running = await scene.start(store);
});

afterAll(async () => {
  await running?.close(1000);
  await scene?.close();
});

const say = (text: string) => scene.say(CHAT, text);
const sent = () => scene.messages(CHAT).length;
const messagesAfter = (from: number, count: number) => scene.messagesAfter(CHAT, from, count);
const find = (mls: string) => scene.chatbot.listings.find((item) => item.MLSNumber === mls);

describe("Telegram alerts (webhook, emulator, scripted chatbot, SQLite store)", { timeout: 30_000 }, () => {
  it("saves a search through /alert and lists it with /alerts", async () => {
    // The first poll only remembers the listings: none of them is an alert.
    await scene.pollsPass(1);
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
    expect(scene.chatbot.asks).toEqual([]);
  });

  it("sends one message with the card when a matching listing is created, none for another", async () => {
    const from = sent();
    scene.chatbot.listings.push(
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
    const from = sent();
    const tx1 = find("TX-1");
    if (tx1) tx1.Status = "Active";
    scene.chatbot.listings.push(listingItem("TX-3", { Price: "550000" }));
    await scene.pollsPass();
    expect(sent()).toBe(from);
    scene.clock += HOUR;
    const messages = await messagesAfter(from, 3);
    expect(messages).toHaveLength(3);
    expect(messages[0]?.text).toMatch(/^2 homes for your alerts:\n• Now on the market: \$450,000.*\n• New: \$550,000/);
    expect(messages.slice(1).map((sent) => sent.photo)).toEqual([
      "https://images.homes.test/tx-1-1.jpg",
      "https://images.homes.test/tx-3-1.jpg",
    ]);
  });

  it("sends a price drop, held through the quiet hours", async () => {
    const from = sent();
    scene.clock = Date.parse("2026-11-28T22:00:00Z");
    const tx2 = find("TX-2");
    if (tx2) tx2.Price = "480000";
    await scene.pollsPass();
    expect(sent()).toBe(from);
    scene.clock = Date.parse("2026-11-29T08:05:00Z");
    const messages = await messagesAfter(from, 2);
    expect(messages).toHaveLength(2);
    expect(messages[0]?.text).toContain("• Price drop: $480,000 · 3 beds · 3 Elm St");
  });

  it("keeps held alerts through a restart on the same store and sends them once", async () => {
    const from = sent();
    scene.clock = Date.parse("2026-11-29T22:00:00Z");
    scene.chatbot.listings.push(listingItem("TX-5", { Address: "5 Pine St" }));
    await scene.pollsPass();
    expect(sent()).toBe(from);
    await running?.close(1000);
    running = await scene.start(store);
    scene.clock = Date.parse("2026-11-30T09:00:00Z");
    const messages = await messagesAfter(from, 2);
    await scene.pollsPass();
    expect(scene.messages(CHAT).slice(from)).toEqual(messages);
    expect(messages).toHaveLength(2);
    expect(messages[0]?.text).toContain("• New: $450,000 · 3 beds · 5 Pine St");
  });

  it("ends every alert on /stop", async () => {
    expect((await say("/stop")).text).toBe("All your alerts are stopped. /alert sets up a new one.");
    const from = sent();
    scene.clock += 2 * HOUR;
    scene.chatbot.listings.push(listingItem("TX-4"));
    await scene.pollsPass();
    expect(sent()).toBe(from);
    expect((await say("/alerts")).text).toBe("You have no alerts. /alert sets one up.");
  });
});
