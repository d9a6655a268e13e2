import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { JobLedger } from "../../src/bridge/job-ledger.js";
import type { BridgeStore } from "../../src/bridge/store/bridge-store.js";
import { openBridgeStore } from "../../src/bridge/store/open-bridge-store.js";
import type { ConversationLease } from "../../src/bridge/store/work-queue.js";

const opened: { store: BridgeStore; dir: string }[] = [];
afterEach(async () => {
  for (const { store, dir } of opened.splice(0)) {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

/** A lease of conversation "c" on a SQLite store, with the ledger writes it made counted. */
async function leased(): Promise<{ lease: ConversationLease; writes: unknown[]; store: BridgeStore }> {
  const dir = mkdtempSync(path.join(tmpdir(), "chatbridge-ledger-"));
  const store = await openBridgeStore({ dataDir: dir });
  opened.push({ store, dir });
  await store.work.enqueue({ id: "event:1", conversation: "c", payload: { n: 1 } }, 60_000);
  const lease = await store.work.take(AbortSignal.timeout(5_000), { leaseMs: 60_000 });
  if (!lease) throw new Error("no lease");
  const writes: unknown[] = [];
  const write = lease.writeLedger.bind(lease);
  lease.writeLedger = (job, record) => {
    writes.push(JSON.parse(JSON.stringify(record)));
    return write(job, record);
  };
  return { lease, writes, store };
}

describe("JobLedger", () => {
  it("stores a noted step with the next record, and a holder taking the job over reads both", async () => {
    const { lease, writes } = await leased();
    const ledger = await JobLedger.open(lease, "event:1", ["event:1"]);
    ledger.note("session", 42);
    expect(writes).toHaveLength(1); // the open
    await ledger.record("ask:0", { asked: true });
    expect(writes).toHaveLength(2);
    expect(writes[1]).toMatchObject({ steps: { session: 42, "ask:0": { asked: true } } });
    // The next holder (after a crash) sees both steps, and counts its attempt.
    const resumed = await JobLedger.open(lease, "event:1", ["event:1"]);
    expect(resumed.step("session")).toBe(42);
    expect(resumed.step("ask:0")).toEqual({ asked: true });
    expect(resumed.attempts).toBe(2);
  });

  it("writes records made before the write under way started in one write, each told when it landed", async () => {
    const { lease, writes } = await leased();
    const ledger = await JobLedger.open(lease, "event:1", ["event:1"]);
    const records = [ledger.record("a", 1), ledger.record("b", 2), ledger.record("c", 3)];
    await Promise.all(records);
    await ledger.record("d", 4);
    // The open; "a", "b" and "c" in the one write queued when "a" was recorded; "d", recorded after, in its own.
    expect(writes.slice(1)).toEqual([
      expect.objectContaining({ steps: { a: 1, b: 2, c: 3 } }),
      expect.objectContaining({ steps: { a: 1, b: 2, c: 3, d: 4 } }),
    ]);
    expect((await JobLedger.open(lease, "event:1", ["event:1"])).step("d")).toBe(4);
  });

  it("fails the records queued behind a write refused because the lease was lost", async () => {
    const { lease } = await leased();
    const ledger = await JobLedger.open(lease, "event:1", ["event:1"]);
    await lease.release();
    const refused = ledger.record("a", 1);
    const behind = ledger.record("b", 2);
    await expect(refused).rejects.toThrow();
    await expect(behind).rejects.toThrow();
  });
});
