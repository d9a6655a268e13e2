import { createClient } from "@keyv/redis";
import { describe, expect, it } from "vitest";
import { openBridgeStore } from "../../../src/bridge/store/bridge-store.js";
import { StartupError } from "../../../src/startup-error.js";
import { deleteRedisKeys, freshRedisNamespace, redisForTests, TEST_REDIS_URL } from "../../support/redis.js";
import { bridgeStoreContract } from "./contract.js";

const redis = await redisForTests();

describe.skipIf(!redis.available)("BridgeStore on Redis", () => {
  let namespace = "";
  bridgeStoreContract({
    setup: () => {
      namespace = freshRedisNamespace();
    },
    teardown: () => deleteRedisKeys(namespace),
    open: (suffix) =>
      openBridgeStore({
        url: TEST_REDIS_URL,
        dataDir: "unused",
        namespace: suffix ? `${namespace}_${suffix}` : namespace,
      }),
    shared: true,
  });

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
