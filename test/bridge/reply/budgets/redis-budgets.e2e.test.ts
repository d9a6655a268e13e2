import { createClient } from "@keyv/redis";
import { describe, expect, it } from "vitest";
import type { BudgetStore } from "../../../../src/bridge/reply/budgets/budget-store.js";
import { RedisBudgets } from "../../../../src/bridge/reply/budgets/redis-budgets.js";
import { deleteRedisKeys, freshRedisNamespace, redisForTests, TEST_REDIS_URL } from "../../../support/redis.js";
import { budgetStoreContract } from "./budget-contract.js";

const redis = await redisForTests();

async function connect() {
  const client = createClient({ url: TEST_REDIS_URL });
  await client.connect();
  return client;
}

describe.skipIf(!redis.available)("RedisBudgets", () => {
  // Each handle has its own connection, as two bridge processes would.
  let namespace = "";
  const clients: Awaited<ReturnType<typeof connect>>[] = [];
  budgetStoreContract({
    open: async () => {
      if (clients.length === 0) namespace = freshRedisNamespace();
      const client = await connect();
      clients.push(client);
      return new RedisBudgets(client, namespace) as BudgetStore;
    },
    cleanup: async () => {
      await Promise.all(clients.splice(0).map((client) => client.close()));
      await deleteRedisKeys(namespace);
    },
  });

  it("keeps its keys under <namespace>:budget:<channel>:<bot>: and lets them expire with the budgets", async () => {
    const ns = freshRedisNamespace();
    const client = await connect();
    try {
      const budgets = new RedisBudgets(client, ns).forChannel("telegram", "main");
      const window = { key: "bot", budget: { max: 2, windowMs: 200 }, reserve: 1, role: "bot" as const };
      const chat = { key: "chat:42", budget: { perSecond: 5, burst: 2 }, reserve: 1, role: "chat" as const };
      await budgets.spend([{ priority: "final", charges: [chat, window] }]);
      await budgets.pause([chat], 100);
      const keys = (await client.keys(`${ns}:*`)).sort();
      expect(keys).toEqual([
        `${ns}:budget:telegram:main:bot`,
        `${ns}:budget:telegram:main:chat:42`,
        `${ns}:budget:telegram:main:pause:chat:42`,
      ]);
      for (const key of keys) expect(await client.pTTL(key)).toBeGreaterThan(0);
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(await client.keys(`${ns}:*`)).toEqual([]);
    } finally {
      await deleteRedisKeys(ns);
      await client.close();
    }
  });

  it("loads its scripts again when Redis has forgotten them", async () => {
    const ns = freshRedisNamespace();
    const client = await connect();
    try {
      // SCRIPT FLUSH would drop other tests' scripts too: instead the first EVALSHA names a script Redis has never
      // seen, so Redis answers NOSCRIPT exactly as it does after a restart.
      let forgotten = true;
      const forgetful = {
        eval: client.eval.bind(client),
        evalSha: (sha: string, options: { keys: string[]; arguments: string[] }) => {
          const asked = forgotten ? "0".repeat(40) : sha;
          forgotten = false;
          return client.evalSha(asked, options);
        },
      };
      const budgets = new RedisBudgets(forgetful, ns).forChannel("telegram", "main");
      const window = { key: "bot", budget: { max: 1, windowMs: 1000 }, reserve: 0, role: "bot" as const };
      const outcomes = await budgets.spend([
        { priority: "final", charges: [window] },
        { priority: "final", charges: [window] },
      ]);
      expect(outcomes.map((outcome) => outcome.granted)).toEqual([true, false]);
      expect(forgotten).toBe(false);
    } finally {
      await deleteRedisKeys(ns);
      await client.close();
    }
  });
});
