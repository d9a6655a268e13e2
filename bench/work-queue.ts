/**
 * The durable work queue (`store.work`) on each backend: how long `enqueue` takes (the claim and the item in one
 * committed step, which a webhook waits for before it is acknowledged), and how many items a second a few takers
 * get through (take → pending → complete → release). For SQLite it also compares the commit with
 * `synchronous = NORMAL` (the store's setting: safe against a killed process) and `FULL` (an fsync per commit,
 * safe against a power cut too), on the same write. Run with `npx tsx bench/work-queue.ts`; Redis is measured when
 * 127.0.0.1:6379 answers (or REDIS_URL), and its keys are deleted afterwards.
 */

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { createClient } from "@keyv/redis";
import SQLite from "better-sqlite3";
import type { BridgeStore } from "../src/bridge/store/bridge-store.js";
import { openBridgeStore } from "../src/bridge/store/open-bridge-store.js";

const ENQUEUES = 2_000;
const CONVERSATIONS = 200;
const ITEMS_PER_CONVERSATION = 10;
const TAKERS = 8;
const HELD = 1_000;
const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";

const payload = { channel: "telegram", text: "Is the flat on Elm Street still available?", user: { id: "4711" } };

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? Number.NaN;
}

function summary(label: string, samples: number[]): void {
  const sorted = [...samples].sort((a, b) => a - b);
  const total = samples.reduce((sum, ms) => sum + ms, 0);
  console.log(
    `${label.padEnd(44)} p50 ${percentile(sorted, 50).toFixed(3)} ms  p95 ${percentile(sorted, 95).toFixed(3)} ms  ` +
      `p99 ${percentile(sorted, 99).toFixed(3)} ms  ${Math.round((samples.length * 1000) / total)}/s`,
  );
}

async function enqueueLatency(label: string, store: BridgeStore): Promise<void> {
  const samples: number[] = [];
  for (let n = 0; n < ENQUEUES; n++) {
    const started = performance.now();
    await store.work.enqueue({ id: `event:bench:${n}`, conversation: `c${n % CONVERSATIONS}`, payload }, 60_000);
    samples.push(performance.now() - started);
  }
  summary(`${label} enqueue`, samples);
}

async function drain(label: string, store: BridgeStore, peer: BridgeStore): Promise<void> {
  const total = CONVERSATIONS * ITEMS_PER_CONVERSATION;
  for (let n = 0; n < ITEMS_PER_CONVERSATION; n++) {
    for (let c = 0; c < CONVERSATIONS; c++) {
      await store.work.enqueue({ id: `event:drain:${c}:${n}`, conversation: `d${c}`, payload }, 60_000);
    }
  }
  const done = new AbortController();
  let processed = 0;
  const started = performance.now();
  const taker = async (on: BridgeStore) => {
    while (!done.signal.aborted) {
      const lease = await on.work.take(done.signal, { leaseMs: 15_000 });
      if (!lease) return;
      const items = await lease.pending(1);
      await lease.complete(items.map((item) => item.id));
      processed += items.length;
      await lease.release();
      if (processed >= total) done.abort();
    }
  };
  await Promise.all(Array.from({ length: TAKERS }, (_, index) => taker(index % 2 ? peer : store)));
  const seconds = (performance.now() - started) / 1000;
  console.log(
    `${`${label} drain`.padEnd(44)} ${total} items, one per lease, ${TAKERS} takers on 2 stores: ` +
      `${Math.round(total / seconds)} items/s`,
  );
}

/**
 * A burst as at N = 1,000 in the Telegram benchmark: `HELD` conversations with one item each, all taken by one
 * taker loop and held at once (as the workers hold them while answering), then completed and released. Reports the
 * takes per second and the CPU per take: finding the next available conversation must not get slower with the
 * number already held.
 */
async function heldAtOnce(label: string, store: BridgeStore): Promise<void> {
  await Promise.all(
    Array.from({ length: HELD }, (_, c) =>
      store.work.enqueue({ id: `event:held:${c}`, conversation: `h${c}`, payload }, 60_000),
    ),
  );
  const done = new AbortController();
  const leases = [];
  const cpu = process.cpuUsage();
  const started = performance.now();
  for (let n = 0; n < HELD; n++) {
    const lease = await store.work.take(done.signal, { leaseMs: 15_000 });
    if (!lease) throw new Error("no lease");
    leases.push(lease);
  }
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  for (const lease of leases) {
    const items = await lease.pending(1);
    await lease.complete(items.map((item) => item.id));
    await lease.release();
  }
  done.abort();
  console.log(
    `${`${label} ${HELD} held at once`.padEnd(44)} ${Math.round(HELD / seconds)} takes/s, ` +
      `${((used.user + used.system) / 1000 / HELD).toFixed(3)} ms CPU per take`,
  );
}

/** The enqueue's write (claim, item, conversation row) on a raw connection with the given `synchronous`. */
function rawCommit(file: string, synchronous: "NORMAL" | "FULL"): void {
  const db = new SQLite(file);
  db.pragma("journal_mode = WAL");
  db.pragma(`synchronous = ${synchronous}`);
  db.pragma("busy_timeout = 5000");
  const claim = db.prepare("INSERT INTO bridge_claims (key, expires) VALUES (?, ?)");
  const insert = db.prepare(
    "INSERT INTO bridge_work_items (ns, id, conversation, payload, enqueued_at) VALUES ('raw', ?, ?, ?, ?)",
  );
  const mark = db.prepare(
    `INSERT INTO bridge_work_conversations (ns, conversation, waiting_since) VALUES ('raw', ?, ?)
     ON CONFLICT (ns, conversation) DO UPDATE SET waiting_since = coalesce(waiting_since, excluded.waiting_since)`,
  );
  const write = db.transaction((n: number) => {
    const now = Date.now();
    claim.run(`raw-${synchronous}:${n}`, now + 60_000);
    insert.run(`raw-${synchronous}:${n}`, `c${n % CONVERSATIONS}`, JSON.stringify(payload), now);
    mark.run(`c${n % CONVERSATIONS}`, now);
  });
  const samples: number[] = [];
  for (let n = 0; n < ENQUEUES; n++) {
    const started = performance.now();
    write.immediate(n);
    samples.push(performance.now() - started);
  }
  db.close();
  summary(`SQLite commit, synchronous = ${synchronous}`, samples);
}

async function sqlite(): Promise<void> {
  const dataDir = mkdtempSync(path.join(tmpdir(), "chatbridge-bench-"));
  try {
    const store = await openBridgeStore({ dataDir });
    const peer = await openBridgeStore({ dataDir });
    await enqueueLatency("SQLite (store: FULL for enqueue)", store);
    rawCommit(path.join(dataDir, "bridge.db"), "NORMAL");
    rawCommit(path.join(dataDir, "bridge.db"), "FULL");
    await drain("SQLite", store, peer);
    await heldAtOnce("SQLite", store);
    await store.close();
    await peer.close();
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function redis(): Promise<void> {
  const raw = createClient({ url: REDIS_URL, socket: { reconnectStrategy: false, connectTimeout: 2_000 } });
  raw.on("error", () => {});
  try {
    await raw.connect();
  } catch {
    console.log(`Redis at ${REDIS_URL} does not answer: skipped`);
    return;
  }
  const namespace = `chatbridge_bench_${process.pid}`;
  try {
    const store = await openBridgeStore({ url: REDIS_URL, dataDir: "unused", namespace });
    const peer = await openBridgeStore({ url: REDIS_URL, dataDir: "unused", namespace });
    await enqueueLatency("Redis", store);
    await drain("Redis", store, peer);
    await heldAtOnce("Redis", store);
    await store.close();
    await peer.close();
  } finally {
    for await (const keys of raw.scanIterator({ MATCH: `${namespace}:*`, COUNT: 1_000 })) {
      if (keys.length > 0) await raw.del(keys);
    }
    await raw.close();
  }
}

console.log(`Node ${process.version}; ${ENQUEUES} enqueues one at a time, then a drain`);
await sqlite();
await redis();
