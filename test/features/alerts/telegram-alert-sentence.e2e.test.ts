import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningBridge } from "../../../src/app/bridge-app.js";
import { AlertsScene } from "../../adapters/telegram/alerts-scene.js";
import { listingItem } from "../../upstream/scripted-chatbot.js";

const CHAT = 77_101;

let scene: AlertsScene;
let running: RunningBridge | undefined;

beforeAll(async () => {
  scene = await AlertsScene.open();
  scene.chatbot.listings = [listingItem("TX-1"), listingItem("TX-9", { City: "Dallas", Price: "300000" })];
  running = await scene.start({
    DATA_DIR: mkdtempSync(path.join(tmpdir(), "chatbridge-telegram-alert-sentence-")),
    STORE_URL: "sqlite://bridge.db",
  });
});

afterAll(async () => {
  await running?.close(1000);
  await scene?.close();
});

const say = (text: string) => scene.say(CHAT, text);

describe("Telegram: an alert saved from a sentence (webhook, emulator, scripted chatbot, SQLite store)", {
  timeout: 30_000,
}, () => {
  it("saves the search the sentence names without asking the chatbot", async () => {
    // The first poll only remembers the listings: none of them is an alert.
    await scene.pollsPass(1);
    expect((await say("/start")).text).toBe("Welcome to Homes!");
    expect((await say("notify me about new 3-bedroom homes in austin under 600k")).text).toBe(
      "Saved alert 1: 3+ bedroom houses for sale in Austin up to $600,000. /alerts lists your alerts, /stop ends them.",
    );
    expect((await say("/alerts")).text).toContain("1. 3+ bedroom houses for sale in Austin up to $600,000");
    expect(scene.chatbot.asks).toEqual([]);
  });

  it("leaves a question about the same homes to the chatbot", async () => {
    expect((await say("do you have 3 bedroom homes in Austin?")).text).toBe(
      "Answer to do you have 3 bedroom homes in Austin?",
    );
    expect(scene.chatbot.asks.map((ask) => ask.content)).toEqual(["do you have 3 bedroom homes in Austin?"]);
  });

  it("sends a matching new house as an alert, and neither an apartment nor a 2-bedroom house", async () => {
    const from = scene.messages(CHAT).length;
    scene.chatbot.listings.push(
      listingItem("TX-2", { Price: "500000", Address: "3 Elm St" }),
      listingItem("TX-3", { PropertyType: "Apartment", Price: "400000", Address: "4 Oak Apt 2" }),
      listingItem("TX-4", { Bedrooms: "2", Price: "350000", Address: "5 Pine St" }),
      listingItem("TX-5", { Price: "650000", Address: "6 Ash St" }),
    );
    const messages = await scene.messagesAfter(CHAT, from, 2);
    expect(messages).toHaveLength(2);
    expect(messages[0]?.text).toBe(
      "A home for your alerts:\n• New: $500,000 · 3 beds · 3 Elm St, Austin, TX 78701 https://homes.test/listing/tx-2\n\n" +
        "/alerts lists your alerts, /stop ends them.",
    );
    expect(messages[1]?.photo).toBe("https://images.homes.test/tx-2-1.jpg");
  });
});
