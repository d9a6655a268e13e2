import { afterEach, describe, expect, it } from "vitest";
import { type PendingAlert, SavedSearches } from "../../../src/bridge/alerts/saved-searches.js";
import { Bridge } from "../../../src/bridge/bridge.js";
import { ChannelError } from "../../../src/bridge/channel.js";
import { cardFromListing } from "../../../src/bridge/listings/card-from-listing.js";
import { createBridgeMetrics } from "../../../src/bridge/metrics.js";
import type { BridgeStore } from "../../../src/bridge/store/bridge-store.js";
import { openBridgeStore } from "../../../src/bridge/store/open-bridge-store.js";
import { ChatbotClient } from "../../../src/client/index.js";
import { loadConfig } from "../../../src/config.js";
import { createLogger } from "../../../src/log.js";
import { holds } from "../../support/waiting.js";
import { listingItem } from "../../upstream/scripted-chatbot.js";
import { chat, FakeChannel } from "../reply/fake-channel.js";

const defaults = loadConfig({}, { envFile: undefined }).bridge;
const fast = { perSecond: 1000, burst: 1000 };
const NOON = Date.parse("2026-11-28T12:00:00Z");

let store: BridgeStore | undefined;
let bridge: Bridge | undefined;

afterEach(async () => {
  await bridge?.stop(100);
  await store?.close();
});

/** A bridge on `channel` whose alerts' clock is noon UTC (its chatbot cannot be reached: the time zone is UTC). */
async function setUp(channel: FakeChannel) {
  store = await openBridgeStore({ url: "memory://", dataDir: "/nonexistent" });
  const client = new ChatbotClient({ baseUrl: "http://127.0.0.1:9", apiKey: "sk", timeoutMs: 500 });
  const metrics = createBridgeMetrics();
  bridge = new Bridge({
    store,
    config: { ...defaults, alerts: { pollMs: 0, quietHours: { from: 21, to: 8 } } },
    chatbots: [{ botId: "bot", client, serialNumber: "bot-1" }],
    log: createLogger("silent"),
    metrics,
    now: () => NOON,
  });
  bridge.attach(channel);
  bridge.startWorking();
  const searches = new SavedSearches(store.keyv, store.sets);
  await searches.write("c1", {
    channel: "fake",
    botId: "bot",
    target: chat("1"),
    searches: [{ criteria: {}, savedAt: 0 }],
  });
  const alert: PendingAlert = { id: "bot:TX-1:new", kind: "new", card: cardFromListing(listingItem("TX-1")) };
  const payload = { kind: "alert", action: { type: "event", alert }, target: chat("1"), channel: "fake", botId: "bot" };
  await store.work.enqueue({ id: "alert:c1:bot:TX-1:new", conversation: "c1", payload }, 60_000);
  // Done once the record says so: the alert no longer waits, and the hour starts now.
  await holds(async () => (await searches.read("c1"))?.lastSentAt === NOON);
  const counted = (await metrics.alerts.get()).values.map((value) => [value.labels.outcome, value.value]);
  return { record: await searches.read("c1"), counted };
}

const channel = (options: ConstructorParameters<typeof FakeChannel>[0] = {}) =>
  new FakeChannel({
    enforce: false,
    limits: { perChat: fast, perGroup: fast, perBot: fast, minUpdateIntervalMs: { private: 10, group: 10 } },
    ...options,
  });

describe("alert job", () => {
  it("sends the alert and counts it", async () => {
    const fake = channel();
    const { record, counted } = await setUp(fake);
    expect(fake.messagesIn("1").map((message) => message.text)).toEqual([
      "A home for your alerts:\n• New: $450,000 · 3 beds · 12 Oak St, Austin, TX 78701 https://homes.test/listing/tx-1\n\n" +
        "/alerts lists your alerts, /stop ends them.",
    ]);
    expect(record?.pending).toBeUndefined();
    expect(counted).toEqual([["sent", 1]]);
  });

  it("skips and counts it where the channel may not send what the user did not prompt (WhatsApp)", async () => {
    const fake = channel({ capabilities: { initiates: false } });
    const { record, counted } = await setUp(fake);
    expect(fake.calls).toEqual([]);
    expect(record?.pending).toBeUndefined();
    expect(counted).toEqual([["skipped", 1]]);
  });

  it("drops it when the platform refuses it (the user blocked the bot)", async () => {
    const fake = channel();
    fake.fail(
      () => true,
      () => new ChannelError("rejected", "Forbidden: bot was blocked by the user"),
    );
    const { record, counted } = await setUp(fake);
    expect(fake.messagesIn("1")).toEqual([]);
    expect(record?.pending).toBeUndefined();
    expect(counted).toEqual([["failed", 1]]);
  });
});
