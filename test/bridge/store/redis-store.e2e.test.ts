import { createClient } from "@keyv/redis";
import { describe, expect, it } from "vitest";
import { openBridgeStore } from "../../../src/bridge/store/open-bridge-store.js";
import { StartupError } from "../../../src/common/startup-error.js";
import { deleteRedisKeys, freshRedisNamespace, redisForTests, TEST_REDIS_URL } from "../../support/redis.js";
import { bridgeStoreContract, type StoreHarness } from "./contract.js";
import { expectKilledHolderResumed } from "./killed-holder.js";
import { workQueueContract } from "./work-contract.js";

const redis = await redisForTests();

let contractNamespace = "";
const onRedis: StoreHarness = {
  setup: () => {
    contractNamespace = freshRedisNamespace();
  },
  teardown: () => deleteRedisKeys(contractNamespace),
  open: (suffix) =>
    openBridgeStore({
      url: TEST_REDIS_URL,
      dataDir: "unused",
      namespace: suffix ? `${contractNamespace}_${suffix}` : contractNamespace,
    }),
  shared: true,
};

describe.skipIf(!redis.available)("work, leases and sets on Redis", () => {
  workQueueContract(onRedis);
});

describe.skipIf(!redis.available)("BridgeStore on Redis", () => {
  bridgeStoreContract(onRedis);

  describe("key layout", () => {
    it("keeps values at <namespace>::<key> and claims, expiring, at <namespace>:claim:<key>", async () => {
      const namespace = freshRedisNamespace();
      const store = await openBridgeStore({ url: TEST_REDIS_URL, dataDir: "unused", namespace });
      const raw = createClient({ url: TEST_REDIS_URL });
      await raw.connect();
      try {
        expect(store.description).toBe("redis://127.0.0.1:6379");
        await store.keyv.set("session:1", 42);
        expect(await store.claimOnce("event:1", 60_000)).toBe(true);
        expect(await raw.exists(`${namespace}::session:1`)).toBe(1);
        const ttl = await raw.pTTL(`${namespace}:claim:event:1`);
        expect(ttl).toBeGreaterThan(55_000);
        expect(ttl).toBeLessThanOrEqual(60_000);
      } finally {
        await store.close();
        await raw.close();
        await deleteRedisKeys(namespace);
      }
    });
  });

  describe("work", () => {
    it("keeps its keys under <namespace>:work:, deletes spent notices and leaves no key of a finished conversation", async () => {
      const namespace = freshRedisNamespace();
      const store = await openBridgeStore({ url: TEST_REDIS_URL, dataDir: "unused", namespace });
      const raw = createClient({ url: TEST_REDIS_URL });
      await raw.connect();
      try {
        for (const conversation of ["a", "b"]) {
          for (const n of [1, 2])
            await store.work.enqueue({ id: `event:${conversation}${n}`, conversation, payload: n }, 60_000);
        }
        expect(await raw.xLen(`${namespace}:work:available`)).toBe(2);
        const names = (await raw.clientList()).map((client) => client.name);
        for (let round = 0; round < 2; round++) {
          const lease = await store.work.take(AbortSignal.timeout(5_000), { leaseMs: 5_000 });
          if (!lease) throw new Error("nothing offered");
          await lease.writeLedger("job", 1);
          await lease.complete(
            (await lease.pending()).map((item) => item.id),
            ["job"],
          );
          await lease.release();
        }
        // Opened at the first take: one connection for the blocking reads, one subscribed to new items.
        const withWork = (await raw.clientList()).map((client) => client.name);
        expect(names).not.toContain(`${namespace}-work-reader`);
        expect(withWork).toContain(`${namespace}-work-reader`);
        expect(withWork).toContain(`${namespace}-work-notices`);
        expect(await raw.xLen(`${namespace}:work:available`)).toBe(0);
        const keys: string[] = [];
        for await (const found of raw.scanIterator({ MATCH: `${namespace}:*`, COUNT: 500 })) keys.push(...found);
        expect(keys.sort()).toEqual(
          [
            ...["a1", "a2", "b1", "b2"].map((id) => `${namespace}:claim:event:${id}`),
            `${namespace}:work:available`,
            `${namespace}:work:count`,
            `${namespace}:work:fence`,
          ].sort(),
        );
        expect(await raw.get(`${namespace}:work:count`)).toBe("0");
        await store.close();
        // A store that closes with nothing pending leaves the consumer group, and its connections are gone.
        expect(await raw.sendCommand(["XINFO", "CONSUMERS", `${namespace}:work:available`, "workers"])).toEqual([]);
        const after = (await raw.clientList()).map((client) => client.name);
        expect(after).not.toContain(`${namespace}-work-reader`);
        expect(after).not.toContain(`${namespace}-work-notices`);
      } finally {
        await store.close();
        await raw.close();
        await deleteRedisKeys(namespace);
      }
    });

    it("lets a taker with a shorter lease reclaim a live holder's notice without taking its conversation or losing it", async () => {
      const namespace = freshRedisNamespace();
      const holderStore = await openBridgeStore({ url: TEST_REDIS_URL, dataDir: "unused", namespace });
      const takerStore = await openBridgeStore({ url: TEST_REDIS_URL, dataDir: "unused", namespace });
      const takeShort = (waitMs: number) => takerStore.work.take(AbortSignal.timeout(waitMs), { leaseMs: 300 });
      try {
        for (const id of ["a1", "a2", "b1"]) {
          await holderStore.work.enqueue({ id: `event:${id}`, conversation: id.slice(0, 1), payload: id }, 60_000);
        }
        const heldA = await holderStore.work.take(AbortSignal.timeout(5_000), { leaseMs: 2_000 });
        const heldB = await holderStore.work.take(AbortSignal.timeout(5_000), { leaseMs: 2_000 });
        expect([heldA?.conversation, heldB?.conversation]).toEqual(["a", "b"]);
        // The taker reclaims notices idle for 300 ms while the holder renews every 667 ms: the holder's notices are
        // reclaimed early, again and again, but the live leases keep the conversations with their holder.
        expect(await takeShort(1_500)).toBeUndefined();
        // A release still hands the conversation over at once.
        await heldA?.complete(["event:a1"]);
        const waiting = takeShort(1_000);
        await heldA?.release();
        const nextA = await waiting;
        expect(nextA).toMatchObject({ conversation: "a", resumed: false });
        await nextA?.complete(["event:a2"]);
        await nextA?.release();
        // And when the holder dies, its conversation is not stranded by the early reclaims: it is taken, resumed.
        await holderStore.close();
        const nextB = await takeShort(6_000);
        expect(nextB).toMatchObject({ conversation: "b", resumed: true });
        await nextB?.complete(["event:b1"]);
        await nextB?.release();
        expect(await takerStore.work.stats()).toEqual({ items: 0, conversations: 0, oldestEnqueuedAt: undefined });
      } finally {
        await holderStore.close();
        await takerStore.close();
        await deleteRedisKeys(namespace);
      }
    });

    it("takes back a dead holder's many conversations one after another, not one per block of the reader", async () => {
      const namespace = freshRedisNamespace();
      const dead = await openBridgeStore({ url: TEST_REDIS_URL, dataDir: "unused", namespace });
      const alive = await openBridgeStore({ url: TEST_REDIS_URL, dataDir: "unused", namespace });
      // A lease of 3 s: the reader blocks for up to 1 s between looks for notices.
      const leaseMs = 3_000;
      const conversations = Array.from({ length: 30 }, (_, k) => `c${k}`);
      try {
        for (const conversation of conversations) {
          await dead.work.enqueue({ id: `event:${conversation}`, conversation, payload: conversation }, 60_000);
        }
        for (const _ of conversations) await dead.work.take(AbortSignal.timeout(5_000), { leaseMs });
        // The holder dies with all 30: its leases are left to expire in Redis.
        await dead.close();
        const diedAt = Date.now();
        // One taker at a time, as a worker pool asks, each conversation finished at once.
        const taken: string[] = [];
        while (taken.length < conversations.length) {
          const lease = await alive.work.take(AbortSignal.timeout(10_000), { leaseMs });
          if (!lease) break;
          expect(lease.resumed).toBe(true);
          taken.push(lease.conversation);
          await lease.complete([`event:${lease.conversation}`]);
          await lease.release();
        }
        expect(taken.sort()).toEqual([...conversations].sort());
        // All within a few blocks after the leases ended, not 30 blocks (30 s).
        expect(Date.now() - diedAt).toBeLessThan(leaseMs + 4_000);
      } finally {
        await alive.close();
        await deleteRedisKeys(namespace);
      }
    }, 30_000);

    it("hands the conversation of a holder process killed mid-work to another after its lease, resumed, with every item", async () => {
      const namespace = freshRedisNamespace();
      const store = await openBridgeStore({ url: TEST_REDIS_URL, dataDir: "unused", namespace });
      try {
        await expectKilledHolderResumed(store, TEST_REDIS_URL, namespace);
      } finally {
        await store.close();
        await deleteRedisKeys(namespace);
      }
    }, 30_000);
  });

  describe("a dropped connection", () => {
    it("fails operations at once, reports the error on keyv, and reconnects by itself", async () => {
      const namespace = freshRedisNamespace();
      const store = await openBridgeStore({ url: TEST_REDIS_URL, dataDir: "unused", namespace });
      const errors: unknown[] = [];
      store.keyv.on("error", (error: unknown) => errors.push(error));
      const raw = createClient({ url: TEST_REDIS_URL });
      await raw.connect();
      try {
        // The store names its connection after the namespace, which is how it is found here.
        const mine = (await raw.clientList()).filter((client) => client.name === namespace);
        expect(mine).toHaveLength(1);
        await raw.clientKill({ filter: "ID", id: Number(mine[0]?.id) });
        await expect(store.claimOnce("event:1", 60_000)).rejects.toThrow(/offline|closed/i);
        await expect
          .poll(
            () =>
              store.ping().then(
                () => "up",
                () => "down",
              ),
            { timeout: 5_000 },
          )
          .toBe("up");
        expect(await store.claimOnce("event:1", 60_000)).toBe(true);
        expect(errors.length).toBeGreaterThan(0);
      } finally {
        await store.close();
        await raw.close();
        await deleteRedisKeys(namespace);
      }
    });
  });

  describe("opening", () => {
    it("rejects credentials Redis refuses, naming STORE_URL without the password", async () => {
      // The test Redis has no password, so AUTH with one fails.
      const error: unknown = await openBridgeStore({
        url: "redis://someone:hunter2@127.0.0.1:6379",
        dataDir: "unused",
      }).catch((rejection: unknown) => rejection);
      expect(error).toBeInstanceOf(StartupError);
      expect(error).toMatchObject({ setting: "STORE_URL", kind: "configuration" });
      expect((error as Error).message).toMatch(
        /^STORE_URL=redis:\/\/someone:\*\*\*@127\.0\.0\.1:6379 was refused: wrong user name or password \(WRONGPASS\)/,
      );
      expect((error as Error).message).not.toContain("hunter2");
    });
  });
});
