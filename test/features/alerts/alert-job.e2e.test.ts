import { afterEach, describe, expect, it } from "vitest";
import { Bridge } from "../../../src/bridge/bridge.js";
import { ChannelError } from "../../../src/bridge/channel.js";
import { createBridgeMetrics } from "../../../src/bridge/metrics.js";
import type { BridgeStore } from "../../../src/bridge/store/bridge-store.js";
import { LAST_MESSAGE_PREFIX } from "../../../src/bridge/store/key-prefixes.js";
import { openBridgeStore } from "../../../src/bridge/store/open-bridge-store.js";
import { ChatbotClient } from "../../../src/client/index.js";
import { createLogger } from "../../../src/common/log.js";
import { loadConfig } from "../../../src/config/config.js";
import { alertMetrics } from "../../../src/features/alerts/alert-metrics.js";
import { type PendingAlert, SavedSearches } from "../../../src/features/alerts/saved-searches.js";
import { ANSWER_STEPS } from "../../../src/features/index.js";
import { cardFromListing } from "../../../src/features/listings/card-from-listing.js";
import { chat, FakeChannel } from "../../bridge/reply/fake-channel.js";
import { holds } from "../../support/waiting.js";
import { listingItem } from "../../upstream/scripted-chatbot.js";

const defaults = loadConfig({}, { envFile: undefined }).bridge;
const fast = { perSecond: 1000, burst: 1000 };
const NOON = Date.parse("2026-11-28T12:00:00Z");
const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
/** A channel that allows free-form messages for a day after the user's last message, as WhatsApp does. */
const windowed = { freeFormWindowMs: DAY };
const ALERT_TEXT =
  "A home for your alerts:\n• New: $450,000 · 3 beds · 12 Oak St, Austin, TX 78701 https://homes.test/listing/tx-1\n\n" +
  "/alerts lists your alerts, /stop ends them.";
const TEMPLATE_PARAMETERS = [
  "A new home matches your alert",
  "$450,000 · 3 beds · 12 Oak St, Austin, TX 78701",
  "https://homes.test/listing/tx-1",
];

let store: BridgeStore | undefined;
let bridge: Bridge | undefined;

afterEach(async () => {
  await bridge?.stop(100);
  await store?.close();
});

const JOB = "alert:c1:bot:TX-1:new";

/**
 * A bridge on `channel` whose alerts' clock is noon UTC (its chatbot cannot be reached: the time zone is UTC), with
 * the user's last message in the conversation at `lastMessageAt` when given, and the alert job left with the ledger
 * `steps` by an earlier holder when given.
 */
async function setUp(channel: FakeChannel, lastMessageAt?: number, steps?: Record<string, unknown>) {
  store = await openBridgeStore({ url: "memory://", dataDir: "/nonexistent" });
  if (lastMessageAt !== undefined) await store.keyv.set(`${LAST_MESSAGE_PREFIX}c1`, lastMessageAt);
  const client = new ChatbotClient({ baseUrl: "http://127.0.0.1:9", apiKey: "sk", timeoutMs: 500 });
  const metrics = createBridgeMetrics();
  bridge = new Bridge({
    steps: ANSWER_STEPS,
    store,
    config: { ...defaults, alerts: { pollMs: 0, quietHours: { from: 21, to: 8 } } },
    chatbots: [{ botId: "bot", client, serialNumber: "bot-1" }],
    log: createLogger("silent"),
    metrics,
    now: () => NOON,
  });
  bridge.attach(channel);
  const searches = new SavedSearches(store.keyv, store.sets);
  await searches.write("c1", {
    channel: "fake",
    botId: "bot",
    target: chat("1"),
    searches: [{ criteria: {}, savedAt: 0 }],
  });
  const alert: PendingAlert = { id: "bot:TX-1:new", kind: "new", card: cardFromListing(listingItem("TX-1")) };
  const payload = { kind: "alert", action: { type: "event", alert }, target: chat("1"), channel: "fake", botId: "bot" };
  await store.work.enqueue({ id: JOB, conversation: "c1", payload }, 60_000);
  if (steps) {
    // An earlier holder's attempt, stopped before the job was complete.
    const lease = await store.work.take(AbortSignal.timeout(5_000));
    await lease?.writeLedger(JOB, { batch: [JOB], attempts: 1, steps });
    await lease?.release();
  }
  bridge.startWorking();
  // Done once the record says so: the alert no longer waits, and the hour starts now.
  await holds(async () => (await searches.read("c1"))?.lastSentAt === NOON);
  const counted = (await alertMetrics(metrics.registry).alerts.get()).values.map((value) => [
    value.labels.outcome,
    value.value,
  ]);
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
    expect(fake.messagesIn("1").map((message) => message.text)).toEqual([ALERT_TEXT]);
    expect(record?.pending).toBeUndefined();
    expect(counted).toEqual([["sent", 1]]);
  });

  it("sends the alert message inside the free-form window, whether or not there is a template", async () => {
    const fake = channel({ capabilities: windowed, alertTemplate: true });
    const { counted } = await setUp(fake, NOON - DAY + 6 * MINUTE);
    expect(fake.messagesIn("1").map((message) => message.text)).toEqual([ALERT_TEXT]);
    expect(fake.templates).toEqual([]);
    expect(counted).toEqual([["sent", 1]]);
  });

  it("sends the template once outside the window, with a few minutes' margin, and never a free-form message", async () => {
    const fake = channel({ capabilities: windowed, alertTemplate: true });
    const { record, counted } = await setUp(fake, NOON - DAY + 4 * MINUTE);
    expect(fake.calls).toEqual([]);
    expect(fake.templates).toEqual([{ chatId: "1", parameters: TEMPLATE_PARAMETERS }]);
    expect(record?.pending).toBeUndefined();
    expect(counted).toEqual([["template", 1]]);
  });

  it("fills a template approved in Spanish with Spanish words", async () => {
    const fake = channel({ capabilities: windowed, alertTemplate: "es_MX" });
    await setUp(fake, NOON - DAY + 4 * MINUTE);
    expect(fake.templates.map((template) => template.parameters[0])).toEqual(["Una casa nueva coincide con tu alerta"]);
  });

  it("sends the template where the user's last message is not known (expired from the store)", async () => {
    const fake = channel({ capabilities: windowed, alertTemplate: true });
    const { counted } = await setUp(fake);
    expect(fake.templates).toHaveLength(1);
    expect(counted).toEqual([["template", 1]]);
  });

  it("does not send the template again when a resumed job finds it sent in the ledger", async () => {
    const fake = channel({ capabilities: windowed, alertTemplate: true });
    const alert: PendingAlert = { id: "bot:TX-1:new", kind: "new", card: cardFromListing(listingItem("TX-1")) };
    const steps = { "alert-batch": { alerts: [alert], at: NOON }, "alert-route": "template", "alert-template": true };
    const { record, counted } = await setUp(fake, undefined, steps);
    expect(fake.templates).toEqual([]);
    expect(fake.calls).toEqual([]);
    expect(record?.pending).toBeUndefined();
    expect(counted).toEqual([["template", 1]]);
  });

  it("keeps to the ledger's route when resumed, though the window opened since", async () => {
    const fake = channel({ capabilities: windowed, alertTemplate: true });
    const alert: PendingAlert = { id: "bot:TX-1:new", kind: "new", card: cardFromListing(listingItem("TX-1")) };
    const steps = { "alert-batch": { alerts: [alert], at: NOON }, "alert-route": "template" };
    const { counted } = await setUp(fake, NOON - MINUTE, steps);
    expect(fake.templates).toHaveLength(1);
    expect(fake.calls).toEqual([]);
    expect(counted).toEqual([["template", 1]]);
  });

  it("skips and counts it outside the window without a template", async () => {
    const fake = channel({ capabilities: windowed });
    const { record, counted } = await setUp(fake, NOON - 2 * DAY);
    expect(fake.calls).toEqual([]);
    expect(record?.pending).toBeUndefined();
    expect(counted).toEqual([["skipped", 1]]);
  });

  it("falls back to the template once when the platform says the window closed after all", async () => {
    const fake = channel({ capabilities: windowed, alertTemplate: true });
    const closed = () =>
      new ChannelError("rejected", "(#131047) Re-engagement message", undefined, { outsideWindow: true });
    fake.fail(() => true, closed, 5);
    const { counted } = await setUp(fake, NOON - MINUTE);
    expect(fake.callsIn("1").map((call) => call.outcome)).toEqual(["rejected"]);
    expect(fake.templates).toEqual([{ chatId: "1", parameters: TEMPLATE_PARAMETERS }]);
    expect(counted).toEqual([["template", 1]]);
  });

  it("skips and counts it when the platform says the window closed and there is no template", async () => {
    const fake = channel({ capabilities: windowed });
    const closed = () =>
      new ChannelError("rejected", "(#131047) Re-engagement message", undefined, { outsideWindow: true });
    fake.fail(() => true, closed, 5);
    const { counted } = await setUp(fake, NOON - MINUTE);
    expect(fake.callsIn("1").map((call) => call.outcome)).toEqual(["rejected"]);
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
