import { setTimeout as sleep } from "node:timers/promises";
import { createClient } from "@keyv/redis";
import { afterEach, describe, expect, it } from "vitest";
import type { BridgeStore } from "../../../src/bridge/store/bridge-store.js";
import { openBridgeStore } from "../../../src/bridge/store/open-bridge-store.js";
import type { LoggedVisitorEvent } from "../../../src/bridge/store/visitor-events.js";
import { deleteRedisKeys, freshRedisNamespace, redisForTests, TEST_REDIS_URL } from "../../support/redis.js";
import { until } from "../../support/waiting.js";

const redis = await redisForTests();
const KEEP = { messages: 200, idleMs: 60_000 };

describe.skipIf(!redis.available)("the visitor event log on Redis", () => {
  const namespaces: string[] = [];
  const stores: BridgeStore[] = [];
  const open = async () => {
    const namespace = freshRedisNamespace();
    namespaces.push(namespace);
    const store = await openBridgeStore({ url: TEST_REDIS_URL, dataDir: "unused", namespace });
    stores.push(store);
    return { store, namespace };
  };
  const raw = async () => {
    const client = createClient({ url: TEST_REDIS_URL });
    await client.connect();
    return client;
  };
  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close();
    for (const namespace of namespaces.splice(0)) await deleteRedisKeys(namespace);
  });

  it("keeps a visitor's log at <namespace>:visitor:<visitor>:…, all expiring after the idle time", async () => {
    const { store, namespace } = await open();
    await store.visitorEvents.append("visitor-a", { message: "m1", data: { text: "hi" } }, KEEP);
    const client = await raw();
    try {
      for (const key of ["id", "order", "states"]) {
        const ttl = await client.pTTL(`${namespace}:visitor:visitor-a:${key}`);
        expect(ttl).toBeGreaterThan(55_000);
        expect(ttl).toBeLessThanOrEqual(60_000);
      }
      expect(await client.keys(`${namespace}*`)).toHaveLength(3);
    } finally {
      await client.close();
    }
  });

  it("ends the subscriptions with `lost` when the pub/sub connection drops, and subscribes again on a new one", async () => {
    const { store, namespace } = await open();
    const delivered: LoggedVisitorEvent[] = [];
    const first = await store.visitorEvents.subscribe("visitor-a", (event) => delivered.push(event));
    const client = await raw();
    try {
      // One extra connection per store, named after the namespace, holds the subscriptions.
      const subscriber = (await client.clientList()).filter((c) => c.name === `${namespace}-visitor-events`);
      expect(subscriber).toHaveLength(1);
      await client.clientKill({ filter: "ID", id: Number(subscriber[0]?.id) });
      await until(() => (first.lost.aborted ? true : undefined), 5_000);
      const again = await store.visitorEvents.subscribe("visitor-a", (event) => delivered.push(event));
      const id = await store.visitorEvents.append("visitor-a", { message: "m1", data: { text: "after" } }, KEEP);
      await until(() => (delivered.length > 0 ? true : undefined), 5_000);
      expect(delivered.map((event) => event.id)).toEqual([id]);
      expect(again.lost.aborted).toBe(false);
      const channel = `${namespace}:visitor:visitor-a:events`;
      const listening = async () => (await client.pubSubNumSub(channel))[channel] ?? 0;
      expect(await listening()).toBe(1);
      again.close();
      // The last subscription of the visitor closed: its channel is left.
      let count = await listening();
      for (let tries = 0; count > 0 && tries < 100; tries++) {
        await sleep(20);
        count = await listening();
      }
      expect(count).toBe(0);
    } finally {
      await client.close();
    }
  });
});
