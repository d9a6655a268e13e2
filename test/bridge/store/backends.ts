import { tmpdir } from "node:os";
import { describe } from "vitest";
import { openBridgeStore } from "../../../src/bridge/store/open-bridge-store.js";
import { deleteRedisKeys, freshRedisNamespace, redisForTests, TEST_REDIS_URL } from "../../support/redis.js";
import { removeDataDir, tempDataDir } from "../../support/sqlite.js";
import type { StoreHarness } from "./contract.js";

const redis = await redisForTests();

/**
 * Runs `contract` on every backend: memory, SQLite (a fresh DATA_DIR per test, shared by the stores a test opens, as
 * by processes on one machine) and Redis (a fresh namespace per test; skipped, saying why, without a Redis server).
 */
export function onEveryBackend(subject: string, contract: (harness: StoreHarness) => void): void {
  describe(`${subject} in memory`, () => {
    contract({
      setup: () => {},
      teardown: () => {},
      open: (namespace) => openBridgeStore({ url: "memory://", dataDir: tmpdir(), namespace }),
      shared: false,
    });
  });

  describe(`${subject} on SQLite`, () => {
    let dataDir = "";
    contract({
      setup: () => {
        dataDir = tempDataDir();
      },
      teardown: () => removeDataDir(dataDir),
      open: (namespace) => openBridgeStore({ dataDir, namespace }),
      shared: true,
    });
  });

  describe.skipIf(!redis.available)(`${subject} on Redis`, () => {
    let namespace = "";
    contract({
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
  });
}
