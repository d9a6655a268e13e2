/**
 * Alerts on the web chat, through its HTTP routes: a visitor saves a search from a sentence, a poll finds a new
 * listing that matches, and the alert with its card reaches the visitor on the event stream they hold, and again in
 * the replay a page gets when it is loaded anew — also an alert that came while no page was open.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningBridge } from "../../../src/app/bridge-app.js";
import { AlertsScene } from "../../adapters/telegram/alerts-scene.js";
import { until } from "../../support/waiting.js";
import { newVisitor, openWebChatStream, type StreamedEvent } from "../../support/web-chat-stream.js";
import { listingItem } from "../../upstream/scripted-chatbot.js";

const HOUR = 60 * 60 * 1000;
const GREETING = "Welcome to **Homes**!";
const SAVED =
  "Saved alert 1: 3+ bedroom houses for sale in Austin up to $600,000. /alerts lists your alerts, /stop ends them.";
const ALERT =
  "A home for your alerts:\n• New: $500,000 · 3 beds · 3 Elm St, Austin, TX 78701 https://homes.test/listing/tx-2\n\n" +
  "/alerts lists your alerts, /stop ends them.";

let scene: AlertsScene;
let running: RunningBridge;
let visitor: string;

beforeAll(async () => {
  scene = await AlertsScene.open();
  scene.chatbot.listings = [listingItem("TX-1")];
  running = await scene.start({
    DATA_DIR: mkdtempSync(path.join(tmpdir(), "chatbridge-web-alerts-")),
    STORE_URL: "sqlite://bridge.db",
  });
  visitor = await newVisitor(running.url);
});

afterAll(async () => {
  await running?.close(1000);
  await scene?.close();
});

/** A `cards` event as the page receives it. */
type CardsEvent = StreamedEvent & { cards?: { mlsNumber: string }[] };

/** A page of the visitor's: its stream, waits for its messages and for the cards under one of them. */
async function openPage() {
  const stream = await openWebChatStream(running.url, visitor);
  return {
    stream,
    said: async (count: number) => {
      await until(() => (stream.messages().length >= count ? true : undefined), 20_000);
      return stream.messages().map((message) => message.text);
    },
    /** The MLS numbers of the cards under message `index` (of the bridge's): the cards event that follows it. */
    cardsUnder: async (index: number) => {
      const find = () => {
        const message = stream.messages()[index];
        const events = stream.events as CardsEvent[];
        const at = message === undefined ? -1 : events.indexOf(message as CardsEvent);
        if (at < 0) return undefined;
        const next = events.slice(at + 1).find((event) => event.type === "cards" || event.type === "message");
        return next?.type === "cards" ? next : undefined;
      };
      await until(() => find(), 20_000);
      return find()?.cards?.map((card) => card.mlsNumber);
    },
  };
}

describe("web chat alerts (routes → bridge → poll → event stream and replay)", { timeout: 30_000 }, () => {
  it("delivers the alert of a search saved from a sentence live, with its card, and again after a reload", async () => {
    const page = await openPage();
    try {
      // The first poll only remembers the listings there are.
      await scene.pollsPass(1);
      const response = await fetch(`${running.url}/webchat/messages`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          visitorId: visitor,
          messageId: "w1",
          chatbot: "homes-chatbot",
          text: "Notify me about new 3 bedroom houses in Austin under $600,000",
        }),
      });
      expect(response.status).toBe(202);
      // At first contact the greeting comes first.
      expect(await page.said(2)).toEqual([GREETING, SAVED]);
      scene.chatbot.listings.push(
        listingItem("TX-2", { Price: "500000", Address: "3 Elm St" }),
        listingItem("TX-3", { PropertyType: "Condo", Price: "400000" }),
      );
      expect(await page.said(3)).toEqual([GREETING, SAVED, ALERT]);
      expect(await page.cardsUnder(2)).toEqual(["TX-2"]);
      await scene.pollsPass(2);
      expect(page.stream.messages()).toHaveLength(3);
      expect(scene.chatbot.asks).toEqual([]);
    } finally {
      await page.stream.close();
    }
    const reloaded = await openPage();
    try {
      expect(await reloaded.said(3)).toEqual([GREETING, SAVED, ALERT]);
      expect(await reloaded.cardsUnder(2)).toEqual(["TX-2"]);
    } finally {
      await reloaded.stream.close();
    }
  });

  it("keeps an alert that came with no page open, named by its MLS number and carded though it has no page", async () => {
    scene.clock += HOUR;
    scene.chatbot.listings.push(listingItem("TX-4", { Price: "550000", Address: "4 Birch St", Url: "" }));
    await scene.pollsPass(3);
    const page = await openPage();
    try {
      const texts = await page.said(4);
      expect(texts).toHaveLength(4);
      expect(texts[3]).toBe(
        "A home for your alerts:\n• New: $550,000 · 3 beds · 4 Birch St, Austin, TX 78701 MLS TX-4\n\n" +
          "/alerts lists your alerts, /stop ends them.",
      );
      expect(await page.cardsUnder(3)).toEqual(["TX-4"]);
    } finally {
      await page.stream.close();
    }
  });
});
