import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningBridge, startBridge } from "../../../src/app/bridge-app.js";
import { createLogger } from "../../../src/common/log.js";
import { loadConfig } from "../../../src/config/config.js";
import { freePort, until } from "../../support/waiting.js";
import { openWebChatStream } from "../../support/web-chat-stream.js";
import { listingItem, ScriptedChatbot } from "../../upstream/scripted-chatbot.js";

let chatbot: ScriptedChatbot;
let running: RunningBridge;

beforeAll(async () => {
  chatbot = await ScriptedChatbot.start();
  chatbot.listings = [listingItem("TX-1001")];
  const config = loadConfig(
    {
      PORT: String(await freePort()),
      DATA_DIR: mkdtempSync(path.join(tmpdir(), "chatbridge-web-deeplink-")),
      STORE_URL: "memory://",
      CHATBOT_API_URL: chatbot.url,
      CHATBOT_API_KEY: "sk-test",
      CHATBOT_SESSION_KEY: "session-key-test",
      CHATBOT_SERIAL_NUMBER: "homes",
    },
    { envFile: undefined },
  );
  running = await startBridge(config, createLogger("silent"), { host: "127.0.0.1" });
});

afterAll(async () => {
  await running?.close(1000);
  await chatbot?.close();
});

describe("the web chat opened from a listing's link (routes, scripted chatbot)", () => {
  it("answers the widget's /start <code> with the greeting, the card with its actions and the viewing question", async () => {
    const { visitor } = (await (await fetch(`${running.url}/webchat/visitors`, { method: "POST" })).json()) as {
      visitor: string;
    };
    const page = await openWebChatStream(running.url, encodeURIComponent(visitor));
    const posted = await fetch(`${running.url}/webchat/messages`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ visitorId: visitor, messageId: "m-listing-1", text: "/start l-TX-1001" }),
    });
    expect(posted.status).toBeLessThan(300);
    await until(() =>
      page.events.some((event) => event.text === "Would you like to book a viewing?") ? true : undefined,
    );
    // In order: the greeting (first contact), the card through the channel's card surface, the question; the code
    // is a command, kept out of the visitor's history, so no page shows it as the visitor's message.
    const shown = page.events.filter((event) => event.type !== "typing");
    expect(shown.map((event) => [event.type, event.from, event.text])).toEqual([
      ["message", undefined, "Welcome to **Homes**!"],
      ["cards", undefined, undefined],
      ["message", undefined, "Would you like to book a viewing?"],
    ]);
    const cards = shown[1] as unknown as { cards: { mlsNumber: string }[]; actions: string[] };
    expect(cards.cards.map((card) => card.mlsNumber)).toEqual(["TX-1001"]);
    expect(cards.actions).toEqual(["similar", "viewing"]);
    expect(chatbot.asks).toEqual([]);
    expect(chatbot.leads).toEqual([expect.objectContaining({ Type: "ListingVisit", Content: "MLS TX-1001 via web" })]);
    const metrics = await (await fetch(`${running.url}/metrics`)).text();
    expect(metrics).toContain('chatbridge_listing_link_visits_total{channel="web"} 1');
    await page.close();
  });

  it("follows an answer naming a listing with its cards once, through the job's cards step", async () => {
    chatbot.answer = () => ({ fragments: ["Have a look at MLS# TX-1001"] });
    const { visitor } = (await (await fetch(`${running.url}/webchat/visitors`, { method: "POST" })).json()) as {
      visitor: string;
    };
    const page = await openWebChatStream(running.url, encodeURIComponent(visitor));
    await fetch(`${running.url}/webchat/messages`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ visitorId: visitor, messageId: "m-ask-1", text: "a house in Austin?" }),
    });
    await until(() => (page.events.some((event) => event.type === "cards") ? true : undefined));
    await new Promise((resolve) => setTimeout(resolve, 500));
    const shown = page.events.filter((event) => event.type !== "typing" && event.from !== "visitor");
    // The answer's states (it grows in place), then one cards event after it, with every action.
    expect(shown.at(-1)?.type).toBe("cards");
    expect(shown.filter((event) => event.type === "cards")).toHaveLength(1);
    expect((shown.at(-1) as unknown as { actions: string[] }).actions).toEqual(["similar", "viewing"]);
    await page.close();
  });

  it("keeps a listing's code sent alone (an older widget's opening) out of the visitor's history too", async () => {
    const { visitor } = (await (await fetch(`${running.url}/webchat/visitors`, { method: "POST" })).json()) as {
      visitor: string;
    };
    const page = await openWebChatStream(running.url, encodeURIComponent(visitor));
    await fetch(`${running.url}/webchat/messages`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ visitorId: visitor, messageId: "m-listing-2", text: "l-TX-1001" }),
    });
    await until(() =>
      page.events.some((event) => event.text === "Would you like to book a viewing?") ? true : undefined,
    );
    expect(page.events.filter((event) => event.from === "visitor")).toEqual([]);
    await page.close();
  });
});
