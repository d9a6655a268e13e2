import { randomBytes } from "node:crypto";
import { createClient } from "@keyv/redis";

/** The local Redis the tests use (no password). */
export const TEST_REDIS_URL = "redis://127.0.0.1:6379";

/** Whether the tests' Redis can be used, and why not when it cannot. */
export type RedisAvailability = { available: true; url: string } | { available: false; reason: string };

let checked: Promise<RedisAvailability> | undefined;

/**
 * Checks once (per test file) that the tests' Redis answers. When it does not, the Redis suites skip with the
 * reason printed — unless CHATBRIDGE_REQUIRE_SERVICES=1 (set by CI), where a skipped suite would hide a broken
 * setup, so this rejects and the test file fails.
 */
export function redisForTests(): Promise<RedisAvailability> {
  checked ??= check();
  return checked;
}

async function check(): Promise<RedisAvailability> {
  const client = createClient({ url: TEST_REDIS_URL, socket: { connectTimeout: 3_000, reconnectStrategy: false } });
  // The failure is read from connect()'s rejection; without a listener the "error" event would end the process.
  client.on("error", () => {});
  try {
    await client.connect();
    await client.ping();
    return { available: true, url: TEST_REDIS_URL };
  } catch (error) {
    const reason = `Redis at ${TEST_REDIS_URL} is unreachable: ${error instanceof Error ? error.message : String(error)}`;
    if (process.env.CHATBRIDGE_REQUIRE_SERVICES === "1") {
      throw new Error(`${reason} (CHATBRIDGE_REQUIRE_SERVICES=1 requires it; start redis-server)`, { cause: error });
    }
    console.warn(`skipping the Redis tests: ${reason}`);
    return { available: false, reason };
  } finally {
    if (client.isOpen) await client.close().catch(() => {});
  }
}

/** A key namespace no other test run uses, so runs in parallel never see each other's keys. */
export function freshRedisNamespace(): string {
  return `chatbridge_test_${process.pid}_${randomBytes(4).toString("hex")}`;
}

/**
 * Deletes every key whose name starts with `prefix` (a namespace from {@link freshRedisNamespace}), in the tests'
 * Redis or the database of it that `url` names.
 */
export async function deleteRedisKeys(prefix: string, url = TEST_REDIS_URL): Promise<void> {
  const client = createClient({ url });
  await client.connect();
  try {
    for await (const keys of client.scanIterator({ MATCH: `${prefix}*`, COUNT: 500 })) {
      if (keys.length > 0) await client.del(keys);
    }
  } finally {
    await client.close();
  }
}
