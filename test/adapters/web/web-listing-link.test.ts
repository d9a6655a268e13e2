import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningBridge, startBridge } from "../../../src/bridge-app.js";
import { loadConfig } from "../../../src/config.js";
import { createLogger } from "../../../src/log.js";
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
  it("answers the code the widget sends with the listing, its cards event and the viewing question", async () => {
    const { visitor } = (await (await fetch(`${running.url}/webchat/visitors`, { method: "POST" })).json()) as {
      visitor: string;
    };
    const page = await openWebChatStream(running.url, encodeURIComponent(visitor));
    const posted = await fetch(`${running.url}/webchat/messages`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ visitorId: visitor, messageId: "m-listing-1", text: "l-TX-1001" }),
    });
    expect(posted.status).toBeLessThan(300);
    await until(() =>
      page.events.some((event) => event.text === "Would you like to book a viewing?") ? true : undefined,
    );
    await until(() => (page.events.some((event) => event.type === "cards") ? true : undefined));
    const shown = page.events.filter((event) => event.from !== "visitor");
    const [listing, cards] = [shown.find((event) => event.type === "message"), shown.find((e) => e.type === "cards")];
    expect(listing?.text).toBe(
      "MLS TX-1001 · 12 Oak St, Austin, TX 78701\n$450,000 · 3 beds · 2 baths · 1,850 sq ft\nhttps://homes.test/listing/tx-1001",
    );
    expect((cards as unknown as { cards: { mlsNumber: string }[] }).cards.map((card) => card.mlsNumber)).toEqual([
      "TX-1001",
    ]);
    expect(chatbot.asks).toEqual([]);
    expect(chatbot.leads).toEqual([expect.objectContaining({ Type: "ListingVisit", Content: "MLS TX-1001 via web" })]);
    const metrics = await (await fetch(`${running.url}/metrics`)).text();
    expect(metrics).toContain('chatbridge_listing_link_visits_total{channel="web"} 1');
    await page.close();
  });
});
