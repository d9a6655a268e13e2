import { Writable } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { createBridgeMetrics } from "../../../src/bridge/metrics.js";
import type { BridgeStore } from "../../../src/bridge/store/bridge-store.js";
import { openBridgeStore } from "../../../src/bridge/store/open-bridge-store.js";
import { ChatbotClient } from "../../../src/client/index.js";
import { createLogger } from "../../../src/common/log.js";
import { ALERTS_SNAPSHOT_PREFIX } from "../../../src/features/alerts/alert-keys.js";
import { alertMetrics } from "../../../src/features/alerts/alert-metrics.js";
import { AlertPoller, type WatchedChatbot } from "../../../src/features/alerts/alert-poller.js";
import { SavedSearches } from "../../../src/features/alerts/saved-searches.js";
import { sampleListing, useApiHarness } from "../../support/api-harness.js";
import { TcpRelay } from "../../support/tcp-relay.js";
import { holds } from "../../support/waiting.js";
import { listingItem, ScriptedChatbot } from "../../upstream/scripted-chatbot.js";

const HOUR = 60 * 60 * 1000;
const cleanups: (() => Promise<unknown>)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A chatbot watched through `client`, counting the change feeds it opened. */
function watched(serialNumber: string, client: ChatbotClient): WatchedChatbot & { feedsOpened: () => number } {
  let opened = 0;
  return {
    botId: "A",
    serialNumber,
    client: {
      listListings: (query, options) => client.listListings(query, options),
      listingChanges: async (serial, options) => {
        const changes = await client.listingChanges(serial, options);
        opened++;
        return changes;
      },
    },
    feedsOpened: () => opened,
  };
}

/** A poller of `chatbot` polling every `intervalMs`, with a search for homes in Austin saved in conversation `c1`. */
async function startPoller(chatbot: WatchedChatbot, intervalMs: number) {
  const store: BridgeStore = await openBridgeStore({ url: "memory://", dataDir: "/nonexistent" });
  const searches = new SavedSearches(store.keyv, store.sets);
  await searches.write("c1", {
    channel: "telegram",
    botId: "A",
    target: { chatId: "c1", isGroup: false },
    searches: [{ criteria: { city: "Austin" }, savedAt: 0 }],
  });
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  const metrics = alertMetrics(createBridgeMetrics().registry);
  const poller = new AlertPoller({
    metrics,
    chatbots: [chatbot],
    keyv: store.keyv,
    searches,
    work: store.work,
    intervalMs,
    dedupTtlMs: HOUR,
    log: createLogger("info", { destination }),
    now: () => 0,
  });
  poller.start();
  cleanups.push(
    () => store.close(),
    () => poller.stop(),
  );
  const snapshotTaken = async () => (await store.keyv.get(`${ALERTS_SNAPSHOT_PREFIX}A`)) !== undefined;
  const queued = async () => (await store.work.stats()).items;
  /** A feed metric's value for bot A (0 when never set). */
  const feed = async (name: "listingFeedOpen" | "listingFeedChanges" | "listingFeedFailures") =>
    (await metrics[name].get()).values.find((value) => value.labels.bot === "A")?.value ?? 0;
  return { poller, store, lines, snapshotTaken, queued, feed };
}

describe("alert poller on the self-hosted server's change feed", { timeout: 30_000 }, () => {
  const api = useApiHarness("sqlite", { feedHeartbeatMs: 1_000 });

  function clientThrough(url: string): ChatbotClient {
    const client = new ChatbotClient({
      baseUrl: url,
      apiKey: api.a.secretKey,
      sessionKey: api.a.sessionKey,
      timeoutMs: 5_000,
    });
    cleanups.push(() => client.close());
    return client;
  }

  it("queues the alert of a listing created while it waits an hour between polls", async () => {
    const serial = await api.addChatbot(api.a);
    const chatbot = watched(serial, clientThrough(api.url));
    const { snapshotTaken, queued, feed } = await startPoller(chatbot, HOUR);
    await holds(async () => (await snapshotTaken()) && chatbot.feedsOpened() === 1);
    const createdAt = performance.now();
    await api.client(api.a).createListing(sampleListing(serial, { City: "Austin", MLSNumber: "FEED-NEW-1" }));
    await holds(async () => (await queued()) === 1);
    expect(await feed("listingFeedChanges")).toBeGreaterThanOrEqual(1);
    console.info(`change feed: listing created → alert queued in ${Math.round(performance.now() - createdAt)} ms`);
  });

  it("opens a dropped feed again and then looks for what changed meanwhile", async () => {
    const serial = await api.addChatbot(api.a);
    const relay = await TcpRelay.start(Number(new URL(api.url).port));
    cleanups.push(() => relay.close());
    const chatbot = watched(serial, clientThrough(`http://127.0.0.1:${relay.port}`));
    const { snapshotTaken, queued, lines, feed } = await startPoller(chatbot, HOUR);
    await holds(async () => (await snapshotTaken()) && chatbot.feedsOpened() === 1);
    expect(await feed("listingFeedOpen")).toBe(1);
    relay.cut();
    await holds(() => lines.some((line) => line.includes("the listing change feed failed")));
    expect(await feed("listingFeedOpen")).toBe(0);
    expect(await feed("listingFeedFailures")).toBeGreaterThanOrEqual(1);
    // Created while the feed is down: nothing announces it to this poller.
    await api.client(api.a).createListing(sampleListing(serial, { City: "Austin", MLSNumber: "FEED-DROP-1" }));
    expect(await queued()).toBe(0);
    relay.restore();
    await holds(async () => chatbot.feedsOpened() === 2 && (await queued()) === 1);
    expect(await feed("listingFeedOpen")).toBe(1);
    expect(lines.filter((line) => line.includes("the listing change feed is back"))).toHaveLength(1);
  });
});

describe("alert poller against an API without the change feed", { timeout: 30_000 }, () => {
  it("asks for the feed once, hears 404, and polls RealEstateList, also after the duty is taken again", async () => {
    const upstream = await ScriptedChatbot.start();
    cleanups.push(() => upstream.close());
    upstream.listings = [listingItem("TX-1")];
    const client = new ChatbotClient({ baseUrl: upstream.url, apiKey: "sk-test", sessionKey: "session-test" });
    cleanups.push(() => client.close());
    const chatbot = watched("homes-chatbot", client);
    const probes = () => upstream.api.requestsTo("/chat/Chatbot/RealEstateChanges");
    const { poller, queued, lines } = await startPoller(chatbot, 100);
    await holds(() => upstream.listingQueries.length >= 2);
    upstream.listings.push(listingItem("TX-2"));
    await holds(async () => (await queued()) === 1);
    await poller.stop();
    poller.start();
    const polls = upstream.listingQueries.length;
    await holds(() => upstream.listingQueries.length >= polls + 2);
    expect(probes()).toHaveLength(1);
    expect(chatbot.feedsOpened()).toBe(0);
    const noFeed = lines.filter((line) => line.includes("has no listing change feed"));
    expect(noFeed).toHaveLength(1);
    expect(JSON.parse(noFeed[0] ?? "{}")).toMatchObject({ level: 30, botId: "A" });
  });

  it("takes a page answered in place of the feed for no feed, and polls", async () => {
    const upstream = await ScriptedChatbot.start();
    cleanups.push(() => upstream.close());
    upstream.api.route("GET", "/chat/Chatbot/RealEstateChanges", (_request, res) => {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end("<!doctype html><p>Welcome</p>");
    });
    upstream.listings = [listingItem("TX-1")];
    const client = new ChatbotClient({ baseUrl: upstream.url, apiKey: "sk-test", sessionKey: "session-test" });
    cleanups.push(() => client.close());
    const chatbot = watched("homes-chatbot", client);
    const { queued, lines } = await startPoller(chatbot, 100);
    await holds(() => upstream.listingQueries.length >= 3);
    upstream.listings.push(listingItem("TX-2"));
    await holds(async () => (await queued()) === 1);
    expect(upstream.api.requestsTo("/chat/Chatbot/RealEstateChanges")).toHaveLength(1);
    const noFeed = lines.filter((line) => line.includes("has no listing change feed"));
    expect(noFeed.map((line) => JSON.parse(line).reason)).toEqual(["answered text/html, not an event stream"]);
  });
});
