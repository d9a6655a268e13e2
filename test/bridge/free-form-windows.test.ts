import { afterEach, describe, expect, it } from "vitest";
import { FreeFormWindows } from "../../src/bridge/free-form-windows.js";
import type { InboundMessage } from "../../src/bridge/inbound.js";
import type { BridgeStore } from "../../src/bridge/store/bridge-store.js";
import { LAST_MESSAGE_PREFIX } from "../../src/bridge/store/key-prefixes.js";
import { openBridgeStore } from "../../src/bridge/store/open-bridge-store.js";
import { createLogger } from "../../src/common/log.js";
import { chat, FakeChannel } from "./reply/fake-channel.js";

const DAY = 24 * 60 * 60 * 1000;
const NOON = Date.parse("2026-11-28T12:00:00Z");

let store: BridgeStore | undefined;
afterEach(async () => {
  await store?.close();
});

const message = (receivedAt: number, sentAt?: number): InboundMessage => ({
  channel: "fake",
  botId: "bot",
  eventId: String(receivedAt),
  target: chat("1"),
  user: { id: "1" },
  text: "hi",
  media: [],
  receivedAt: new Date(receivedAt),
  ...(sentAt !== undefined && { sentAt: new Date(sentAt) }),
});

async function windows() {
  store = await openBridgeStore({ url: "memory://", dataDir: "/nonexistent" });
  return { windows: new FreeFormWindows(store.keyv, createLogger("silent")), keyv: store.keyv };
}

describe("free-form windows", () => {
  it("records a batch's latest message, by the platform's time where it has one", async () => {
    const { windows: recorded, keyv } = await windows();
    const channel = new FakeChannel({ capabilities: { freeFormWindowMs: DAY } });
    await recorded.record("c1", channel, [message(NOON, NOON - 5_000), message(NOON + 1_000, NOON - 3_000)]);
    expect(await keyv.get(`${LAST_MESSAGE_PREFIX}c1`)).toBe(NOON - 3_000);
    await recorded.record("c1", channel, [message(NOON + 9_000)]);
    expect(await keyv.get(`${LAST_MESSAGE_PREFIX}c1`)).toBe(NOON + 9_000);
  });

  it("is open until a few minutes before the window ends, and closed when nothing is known", async () => {
    const { windows: open } = await windows();
    const channel = new FakeChannel({ capabilities: { freeFormWindowMs: DAY } });
    expect(await open.open("c1", channel, chat("1"), NOON)).toBe(false);
    await open.record("c1", channel, [message(NOON)]);
    expect(await open.open("c1", channel, chat("1"), NOON + DAY - 6 * 60_000)).toBe(true);
    expect(await open.open("c1", channel, chat("1"), NOON + DAY - 4 * 60_000)).toBe(false);
  });

  it("writes nothing and is always open for a channel without a window", async () => {
    const { windows: none, keyv } = await windows();
    const channel = new FakeChannel();
    await none.record("c1", channel, [message(NOON)]);
    expect(await keyv.get(`${LAST_MESSAGE_PREFIX}c1`)).toBeUndefined();
    expect(await none.open("c1", channel, chat("1"), NOON + 10 * DAY)).toBe(true);
  });
});
