import { afterEach, describe, expect, it } from "vitest";
import { BackgroundPasses } from "../../src/bridge/background-passes.js";
import type { BridgeStore } from "../../src/bridge/store/bridge-store.js";
import { openBridgeStore } from "../../src/bridge/store/open-bridge-store.js";
import { createLogger } from "../../src/common/log.js";
import { deleteRedisKeys, freshRedisNamespace, redisForTests, TEST_REDIS_URL } from "../support/redis.js";
import { removeDataDir, tempDataDir } from "../support/sqlite.js";
import { holds } from "../support/waiting.js";

const redis = await redisForTests();
const TTL_MS = 600;
const RETRY_MS = 50;

/** One process's passes, with a duty that records when it runs. */
function passesOn(store: BridgeStore, name: string, running: Set<string>, started: string[]) {
  return new BackgroundPasses({
    leases: store.leases,
    duties: [
      {
        start: () => {
          running.add(name);
          started.push(name);
        },
        stop: async () => {
          running.delete(name);
        },
      },
    ],
    log: createLogger("silent"),
    ttlMs: TTL_MS,
    retryMs: RETRY_MS,
  });
}

/** Three processes on one shared store: the passes run in exactly one, and move on when it stops or dies. */
function backgroundContract(open: () => Promise<BridgeStore>, cleanup: () => Promise<void> | void) {
  const stores: BridgeStore[] = [];
  const passes: BackgroundPasses[] = [];
  afterEach(async () => {
    await Promise.all(passes.splice(0).map((pass) => pass.stop()));
    for (const store of stores.splice(0)) await store.close().catch(() => undefined);
    await cleanup();
  });

  it("runs them in one process at a time; a stop hands them over at once, a death within the lease", async () => {
    const running = new Set<string>();
    const started: string[] = [];
    for (const name of ["a", "b", "c"]) {
      const store = await open();
      stores.push(store);
      passes.push(passesOn(store, name, running, started));
    }
    for (const pass of passes) pass.start();
    await holds(() => running.size === 1);
    // Several renewals later, still one.
    await new Promise((resolve) => setTimeout(resolve, TTL_MS * 2));
    expect(running.size).toBe(1);
    expect(started).toHaveLength(1);

    // A graceful stop lets the lease go: another process runs them well before the lease would have expired.
    const first = started[0] as string;
    const index = ["a", "b", "c"].indexOf(first);
    const stoppedAt = Date.now();
    await passes[index]?.stop();
    await holds(() => running.size === 1 && !running.has(first));
    expect(Date.now() - stoppedAt).toBeLessThan(TTL_MS);

    // A process that dies (its store closed under it, the lease left to expire) is replaced once the lease ends.
    const second = [...running][0] as string;
    const diedAt = Date.now();
    await stores[["a", "b", "c"].indexOf(second)]?.close();
    await holds(() => started.length === 3, TTL_MS * 4);
    expect(Date.now() - diedAt).toBeLessThan(TTL_MS * 3);
    // The dead one stopped its duty when its lease was lost; the last one runs alone.
    await holds(() => running.size === 1);
    expect(new Set(started)).toEqual(new Set(["a", "b", "c"]));
  });
}

describe("background passes on SQLite shared by processes on one machine", () => {
  let dataDir = tempDataDir();
  backgroundContract(
    () => openBridgeStore({ dataDir, namespace: "chatbridge" }),
    () => {
      removeDataDir(dataDir);
      dataDir = tempDataDir();
    },
  );
});

describe.skipIf(!redis.available)("background passes on Redis", () => {
  let namespace = freshRedisNamespace();
  backgroundContract(
    () => openBridgeStore({ url: TEST_REDIS_URL, dataDir: "unused", namespace }),
    async () => {
      await deleteRedisKeys(namespace);
      namespace = freshRedisNamespace();
    },
  );
});
