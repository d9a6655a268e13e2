import path from "node:path";
import { createClient } from "@keyv/redis";
import SQLite from "better-sqlite3";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { BridgeStore } from "../../../src/bridge/store/bridge-store.js";
import { openBridgeStore } from "../../../src/bridge/store/open-bridge-store.js";
import { deleteRedisKeys, freshRedisNamespace, redisForTests, TEST_REDIS_URL } from "../../support/redis.js";
import { removeDataDir, tempDataDir } from "../../support/sqlite.js";
import { holds, until } from "../../support/waiting.js";
import { onEveryBackend } from "./backends.js";
import { signalsContract } from "./signals-contract.js";

const redis = await redisForTests();

onEveryBackend("signals", signalsContract);

describe("signals on SQLite: the table", () => {
  const dataDirs: string[] = [];
  const stores: BridgeStore[] = [];
  afterEach(async () => {
    vi.useRealTimers();
    for (const store of stores.splice(0)) await store.close();
    for (const dataDir of dataDirs.splice(0)) removeDataDir(dataDir);
  });

  it("keeps a signal a minute: the next publish deletes the older ones", async () => {
    const dataDir = tempDataDir();
    dataDirs.push(dataDir);
    const store = await openBridgeStore({ dataDir, namespace: "signals" });
    stores.push(store);
    const file = new SQLite(path.join(dataDir, "bridge.db"), { readonly: true });
    const messages = () =>
      file.prepare<[], { message: string }>("SELECT message FROM bridge_signals ORDER BY id").all();
    try {
      const start = Date.now();
      vi.useFakeTimers({ toFake: ["Date"], now: start });
      await store.signals.publish("stop", "old");
      vi.setSystemTime(start + 30_000);
      await store.signals.publish("stop", "recent");
      expect(messages()).toEqual([{ message: "old" }, { message: "recent" }]);
      vi.setSystemTime(start + 60_001);
      await store.signals.publish("stop", "new");
      expect(messages()).toEqual([{ message: "recent" }, { message: "new" }]);
    } finally {
      file.close();
    }
  });
});

describe.skipIf(!redis.available)("signals on Redis: the subscriber connection", () => {
  const namespaces: string[] = [];
  const stores: BridgeStore[] = [];
  const open = async (namespace: string) => {
    const store = await openBridgeStore({ url: TEST_REDIS_URL, dataDir: "unused", namespace });
    stores.push(store);
    return store;
  };
  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close();
    for (const namespace of namespaces.splice(0)) await deleteRedisKeys(namespace);
  });

  /** The ids of the connections named `name` (CLIENT LIST). */
  const connectionsNamed = async (name: string): Promise<string[]> => {
    const client = createClient({ url: TEST_REDIS_URL });
    await client.connect();
    try {
      const list = await client.sendCommand<string>(["CLIENT", "LIST"]);
      return list
        .split("\n")
        .filter((line) => line.includes(` name=${name} `))
        .map((line) => /^id=(\d+)/.exec(line)?.[1] ?? "");
    } finally {
      await client.close();
    }
  };

  it("is opened at the first subscription only, one per store whatever the topics, and closed with the store", async () => {
    const namespace = freshRedisNamespace();
    namespaces.push(namespace);
    const store = await open(namespace);
    await store.signals.publish("stop", "nobody listens");
    expect(await connectionsNamed(`${namespace}-signals`)).toEqual([]);
    await store.signals.subscribe("stop", () => {}).live;
    await store.signals.subscribe("other", () => {}).live;
    expect(await connectionsNamed(`${namespace}-signals`)).toHaveLength(1);
    await store.close();
    await holds(async () => (await connectionsNamed(`${namespace}-signals`)).length === 0);
  });

  it("reconnects by itself when the connection is killed, and hears the signals published after that", async () => {
    const namespace = freshRedisNamespace();
    namespaces.push(namespace);
    const [publisher, listener] = [await open(namespace), await open(namespace)];
    const errors: unknown[] = [];
    listener.keyv.on("error", (error: unknown) => errors.push(error));
    const heard: string[] = [];
    await listener.signals.subscribe("stop", (message) => heard.push(message)).live;
    const [id] = await connectionsNamed(`${namespace}-signals`);
    const admin = createClient({ url: TEST_REDIS_URL });
    await admin.connect();
    try {
      await admin.sendCommand(["CLIENT", "KILL", "ID", String(id)]);
    } finally {
      await admin.close();
    }
    // What is published while it reconnects is lost (a signal is not kept): publish until one is heard again.
    let sent = 0;
    await until(() => {
      if (heard.length > 0) return true;
      void publisher.signals.publish("stop", `attempt ${++sent}`);
      return undefined;
    }, 10_000);
    const [again] = await connectionsNamed(`${namespace}-signals`);
    expect(again).toBeDefined();
    expect(again).not.toBe(id);
    expect(heard[0]).toMatch(/^attempt \d+$/);
    // The drop was reported once.
    expect(errors).toEqual([expect.objectContaining({ message: "the pub/sub connection of signals to Redis failed" })]);
  });
});
