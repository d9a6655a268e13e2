import { Writable } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import type { ListingListItem } from "../../../src/api/types.js";
import type { BridgeStore } from "../../../src/bridge/store/bridge-store.js";
import { openBridgeStore } from "../../../src/bridge/store/open-bridge-store.js";
import { ChatbotApiError } from "../../../src/client/index.js";
import { createLogger } from "../../../src/common/log.js";
import { ALERTS_SNAPSHOT_PREFIX } from "../../../src/features/alerts/alert-keys.js";
import { AlertPoller } from "../../../src/features/alerts/alert-poller.js";
import { SavedSearches } from "../../../src/features/alerts/saved-searches.js";
import { listingItem } from "../../upstream/scripted-chatbot.js";

let store: BridgeStore | undefined;

afterEach(async () => {
  await store?.close();
});

/** A poller over chatbots A and B, each serving its own mutable listings, and its store's saved searches. */
async function setUp() {
  store = await openBridgeStore({ url: "memory://", dataDir: "/nonexistent" });
  const listings: Record<string, ListingListItem[]> = { A: [listingItem("TX-1")], B: [listingItem("TX-1")] };
  const chatbot = (botId: string) => ({
    botId,
    serialNumber: `serial-${botId}`,
    client: {
      // An API without the change feed, like the hosted platform: these tests drive the passes themselves.
      listingChanges: async () => {
        throw new ChatbotApiError({ operation: "RealEstateChanges", kind: "http", status: 404, message: "no route" });
      },
      listListings: async (query: { PageNumber?: number; PageSize?: number }) => {
        const size = query.PageSize ?? 20;
        const from = ((query.PageNumber ?? 1) - 1) * size;
        const all = listings[botId] ?? [];
        return { List: all.slice(from, from + size), VirtualCount: all.length };
      },
    },
  });
  const searches = new SavedSearches(store.keyv, store.sets);
  const save = (conversation: string, botId: string, city: string) =>
    searches.write(conversation, {
      channel: "telegram",
      botId,
      target: { chatId: conversation, isGroup: false },
      searches: [{ criteria: { city }, savedAt: 0 }],
    });
  await save("a-austin", "A", "Austin");
  await save("a-dallas", "A", "Dallas");
  await save("b-austin", "B", "Austin");
  const poller = new AlertPoller({
    chatbots: [chatbot("A"), chatbot("B")],
    keyv: store.keyv,
    searches,
    work: store.work,
    intervalMs: 60_000,
    dedupTtlMs: 60_000,
    log: createLogger("silent"),
    now: () => 0,
  });
  return { poller, listings, store, searches };
}

describe("alert poller", () => {
  it("queues each event once for each conversation of that bot with a matching search", async () => {
    const { poller, listings, store } = await setUp();
    await poller.pass();
    expect((await store.work.stats()).items).toBe(0);
    listings.A?.push(
      listingItem("TX-2"),
      ...Array.from({ length: 120 }, (_, n) => listingItem(`LA-${n}`, { City: "LA" })),
    );
    await poller.pass();
    expect(await store.work.stats()).toMatchObject({ items: 1, conversations: 1 });
    // A pass that stopped before writing its snapshot, redone: the same event, not queued twice.
    await store.keyv.set(`${ALERTS_SNAPSHOT_PREFIX}A`, { "TX-1": { price: 450_000, status: "active" } });
    await poller.pass();
    expect((await store.work.stats()).items).toBe(1);
    const controller = new AbortController();
    const lease = await store.work.take(controller.signal);
    expect(lease?.conversation).toBe("a-austin");
    const [item] = (await lease?.pending()) ?? [];
    expect(item?.id).toBe("alert:a-austin:A:TX-2:new");
    expect(item?.payload).toMatchObject({
      kind: "alert",
      channel: "telegram",
      botId: "A",
      action: { type: "event", alert: { id: "A:TX-2:new", kind: "new", card: { mlsNumber: "TX-2" } } },
    });
    await lease?.release();
  });

  it("queues the alerts kept for later once they are due, once", async () => {
    const { poller, store, searches } = await setUp();
    const alerts = await searches.read("a-austin");
    if (!alerts) throw new Error("no record");
    await searches.write("a-austin", { ...alerts, pending: [], dueAt: 1 });
    await poller.pass();
    expect((await store.work.stats()).items).toBe(0);
    const card = {
      mlsNumber: "TX-1",
      url: "",
      price: "",
      saleType: "for_sale" as const,
      address: "",
      propertyType: "",
    };
    await searches.write("a-austin", { ...alerts, pending: [{ id: "x", kind: "new", card }], dueAt: 0 });
    await poller.pass();
    await poller.pass();
    expect((await store.work.stats()).items).toBe(1);
  });

  it("says a missing setting once, not every pass, and again only after the listings were read", async () => {
    store = await openBridgeStore({ url: "memory://", dataDir: "/nonexistent" });
    const lines: { level: number; msg: string }[] = [];
    const destination = new Writable({
      write(chunk, _encoding, done) {
        for (const line of String(chunk).split("\n").filter(Boolean)) lines.push(JSON.parse(line));
        done();
      },
    });
    let failure: ChatbotApiError | undefined = new ChatbotApiError({
      operation: "RealEstateList",
      kind: "config",
      message: "RealEstateList: needs the session key (CHATBOT_SESSION_KEY), which is not configured",
    });
    const poller = new AlertPoller({
      chatbots: [
        {
          botId: "A",
          serialNumber: "serial-A",
          client: {
            listingChanges: async () => {
              throw new ChatbotApiError({ operation: "RealEstateChanges", kind: "http", status: 404, message: "no" });
            },
            listListings: async () => {
              if (failure) throw failure;
              return { List: [listingItem("TX-1")], VirtualCount: 1 };
            },
          },
        },
      ],
      keyv: store.keyv,
      searches: new SavedSearches(store.keyv, store.sets),
      work: store.work,
      intervalMs: 60_000,
      dedupTtlMs: 60_000,
      log: createLogger("debug", { destination, pretty: false }),
      now: () => 0,
    });
    const warnings = () => lines.filter((line) => line.level === 40).map((line) => line.msg);
    for (let pass = 0; pass < 3; pass++) await poller.pass();
    expect(warnings()).toEqual(["alerts: the listings cannot be read until this is configured; not said again"]);
    expect(lines.filter((line) => line.level === 20 && /still cannot be read/.test(line.msg))).toHaveLength(2);
    failure = undefined;
    await poller.pass();
    failure = new ChatbotApiError({ operation: "RealEstateList", kind: "config", message: "no session key" });
    await poller.pass();
    expect(warnings()).toHaveLength(2);
    // Any other failure may pass by itself, and is said every time.
    failure = new ChatbotApiError({ operation: "RealEstateList", kind: "http", status: 502, message: "bad gateway" });
    await poller.pass();
    await poller.pass();
    expect(warnings().slice(2)).toEqual([
      "alerts: the listings could not be compared; trying next time",
      "alerts: the listings could not be compared; trying next time",
    ]);
  });
});
