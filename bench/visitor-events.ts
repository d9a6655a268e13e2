/**
 * The web chat's visitor event log on each backend, as two instances use it: events appended through one store,
 * delivered to a subscriber of the same visitor on a second store on the same backend (a second connection to the
 * SQLite file, a second Redis connection), as an answer streaming at full speed would append them.
 * - appends per second, one visitor, one at a time (each edit of a streamed answer is one append);
 * - delivery delay from the append to the other store's subscriber, p50/p95/max, with an event every 10 ms;
 * - reading the replay of a visitor with 200 kept messages (a page reconnecting without Last-Event-ID).
 * Redis is measured when STORE_URL (default redis://127.0.0.1:6379) answers; keys go under a namespace of their own,
 * deleted at the end. Run: npx tsx bench/visitor-events.ts   (not a test)
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { createClient } from "@keyv/redis";
import type { BridgeStore } from "../src/bridge/store/bridge-store.js";
import { openBridgeStore } from "../src/bridge/store/open-bridge-store.js";

const APPENDS = 2_000;
/** Events appended one every {@link PACE_MS} to measure the delivery delay. */
const PACED = 200;
const PACE_MS = 10;
const RETENTION = { messages: 200, idleMs: 60 * 60 * 1000 };
const REDIS_URL = process.env.STORE_URL ?? "redis://127.0.0.1:6379";

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

/** An answer of ~1,000 characters growing by 20 at each edit, as the reply streamer would show it. */
function edit(n: number): { message: string; data: unknown } {
  const message = `m${Math.floor(n / 50)}`;
  return { message, data: { type: "message", id: message, text: "x".repeat(20 * ((n % 50) + 1)), format: "markdown" } };
}

async function measure(name: string, writer: BridgeStore, reader: BridgeStore): Promise<void> {
  const visitor = `bench${randomBytes(4).toString("hex")}`;
  const started = performance.now();
  for (let n = 0; n < APPENDS; n++) await writer.visitorEvents.append(visitor, edit(n), RETENTION);
  const appendsPerSecond = APPENDS / ((performance.now() - started) / 1000);

  // Paced and one message each, so that every event is delivered on its own (SQLite's poll would otherwise deliver
  // only the latest state of a message changed several times between two polls).
  const appendedAt = new Map<number, number>();
  let appending = 0;
  const delays: number[] = [];
  const subscription = await reader.visitorEvents.subscribe(visitor, (event) => {
    delays.push(performance.now() - (appendedAt.get(event.id) ?? appending));
  });
  for (let n = 0; n < PACED; n++) {
    appending = performance.now();
    const id = await writer.visitorEvents.append(visitor, edit(n * 50), RETENTION);
    appendedAt.set(id, appending);
    await new Promise((resolve) => setTimeout(resolve, PACE_MS));
  }
  await new Promise((resolve) => setTimeout(resolve, 500));
  subscription.close();
  delays.sort((a, b) => a - b);

  for (let n = 0; n < 200 * 50; n += 50) await writer.visitorEvents.append(visitor, edit(n), RETENTION);
  const replays: number[] = [];
  for (let n = 0; n < 200; n++) {
    const before = performance.now();
    const replay = await reader.visitorEvents.since(visitor, undefined);
    replays.push(performance.now() - before);
    if (replay.length !== 200) throw new Error(`${name}: the replay held ${replay.length} messages, not 200`);
  }
  replays.sort((a, b) => a - b);
  const ms = (value: number) => `${value.toFixed(2)} ms`;
  console.log(
    `${name.padEnd(7)} ${Math.round(appendsPerSecond).toString().padStart(7)} appends/s | ` +
      `delivered ${delays.length}/${PACED}, delay p50 ${ms(percentile(delays, 50))}, p95 ${ms(percentile(delays, 95))}, ` +
      `max ${ms(delays.at(-1) ?? Number.NaN)} | replay of 200 messages p50 ${ms(percentile(replays, 50))}, ` +
      `p95 ${ms(percentile(replays, 95))}`,
  );
}

const dataDir = mkdtempSync(path.join(tmpdir(), "chatbridge-bench-"));
try {
  const memory = await openBridgeStore({ url: "memory://", dataDir });
  await measure("memory", memory, memory);
  await memory.close();

  const sqliteWriter = await openBridgeStore({ dataDir });
  const sqliteReader = await openBridgeStore({ dataDir });
  await measure("sqlite", sqliteWriter, sqliteReader);
  await sqliteWriter.close();
  await sqliteReader.close();

  const namespace = `chatbridge_bench_${randomBytes(4).toString("hex")}`;
  const probe = createClient({ url: REDIS_URL, socket: { connectTimeout: 2_000, reconnectStrategy: false } });
  probe.on("error", () => {});
  const reachable = await probe.connect().then(
    () => true,
    () => false,
  );
  if (reachable) {
    const redisWriter = await openBridgeStore({ url: REDIS_URL, dataDir, namespace });
    const redisReader = await openBridgeStore({ url: REDIS_URL, dataDir, namespace });
    try {
      await measure("redis", redisWriter, redisReader);
    } finally {
      await redisWriter.close();
      await redisReader.close();
      for await (const keys of probe.scanIterator({ MATCH: `${namespace}:*`, COUNT: 500 })) {
        if (keys.length > 0) await probe.del(keys);
      }
      await probe.close();
    }
  } else {
    console.log(`redis   not measured: ${REDIS_URL} does not answer`);
  }
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
