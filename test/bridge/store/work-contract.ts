import { setTimeout as sleep } from "node:timers/promises";
import { expect, it } from "vitest";
import type { BridgeStore } from "../../../src/bridge/store/bridge-store.js";
import { type ConversationLease, LeaseLostError, type NewWorkItem } from "../../../src/bridge/store/work-queue.js";
import { type StoreHarness, storesOf } from "./contract.js";

/** Short, so expiries are waited out quickly; long enough for a renewal (a third of it) to land in time. */
const LEASE_MS = 400;
const DEDUP_MS = 60_000;

/** Item `n` of `conversation`, with an id shaped like the bridge's event claims. */
function item(conversation: string, n: number): NewWorkItem {
  return { id: `event:test:${conversation}:${n}`, conversation, payload: { conversation, n, text: `message ${n}` } };
}

/** Blocks this process's event loop, as a long synchronous step or a paused VM would: no timer runs meanwhile. */
function stall(ms: number): void {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    // Busy on purpose.
  }
}

/** The work queue, named leases and sets every BridgeStore backend must provide; call inside a `describe`. */
export function workQueueContract(harness: StoreHarness): void {
  const open = storesOf(harness);
  /** Another process on the same backend when it is shared; the same store for memory. */
  const peerOf = async (store: BridgeStore) => (harness.shared ? open() : store);
  const take = (store: BridgeStore, waitMs = 5_000, leaseMs = LEASE_MS) =>
    store.work.take(AbortSignal.timeout(waitMs), { leaseMs });
  const takeSurely = async (store: BridgeStore, waitMs?: number, leaseMs?: number) => {
    const lease = await take(store, waitMs, leaseMs);
    if (!lease) throw new Error("no conversation was offered in time");
    return lease;
  };
  const ids = async (lease: ConversationLease) => (await lease.pending()).map((found) => found.id);

  it("records an item once per id, agreeing with claimOnce in both directions", async () => {
    const store = await open();
    expect(await store.work.enqueue(item("a", 1), DEDUP_MS)).toBe(true);
    expect(await store.work.enqueue(item("a", 1), DEDUP_MS)).toBe(false);
    expect(await store.claimOnce(item("a", 1).id, DEDUP_MS)).toBe(false);
    expect(await store.claimOnce("event:test:claimed-first", DEDUP_MS)).toBe(true);
    expect(await store.work.enqueue({ id: "event:test:claimed-first", conversation: "a", payload: 0 }, DEDUP_MS)).toBe(
      false,
    );
    const lease = await takeSurely(store);
    expect(await ids(lease)).toEqual([item("a", 1).id]);
    await lease.release();
  });

  it("lets exactly one of many concurrent enqueues of an id record it", async () => {
    const store = await open();
    const peer = await peerOf(store);
    const results = await Promise.all(
      Array.from({ length: 60 }, (_, index) =>
        (index % 2 ? store : peer).work.enqueue({ id: "event:test:race", conversation: "a", payload: index }, DEDUP_MS),
      ),
    );
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(await store.work.stats()).toMatchObject({ items: 1, conversations: 1 });
  });

  it("refuses a payload JSON cannot hold, recording nothing", async () => {
    const store = await open();
    await expect(
      store.work.enqueue({ id: "event:test:bad", conversation: "a", payload: undefined }, DEDUP_MS),
    ).rejects.toThrow(TypeError);
    expect(await store.claimOnce("event:test:bad", DEDUP_MS)).toBe(true);
  });

  it("keeps a conversation's items in arrival order, with their payloads and times", async () => {
    const store = await open();
    const before = Date.now();
    for (const [conversation, n] of [
      ["a", 1],
      ["b", 1],
      ["a", 2],
      ["b", 2],
      ["a", 3],
    ] as const) {
      expect(await store.work.enqueue(item(conversation, n), DEDUP_MS)).toBe(true);
    }
    const after = Date.now();
    const lease = await takeSurely(store);
    // "a" has waited longest, so it is offered first.
    expect(lease.conversation).toBe("a");
    const pending = await lease.pending();
    expect(pending.map((found) => found.payload)).toEqual([1, 2, 3].map((n) => item("a", n).payload));
    expect(pending.every((found) => found.conversation === "a")).toBe(true);
    for (const found of pending) {
      expect(found.enqueuedAt).toBeGreaterThanOrEqual(before);
      expect(found.enqueuedAt).toBeLessThanOrEqual(after);
    }
    expect((await lease.pending(2)).map((found) => found.id)).toEqual([item("a", 1).id, item("a", 2).id]);
    expect(await lease.pending(0)).toEqual([]);
    await lease.release();
  });

  it("leases two conversations to two takers at once, and neither to a third", async () => {
    const store = await open();
    const peer = await peerOf(store);
    await store.work.enqueue(item("a", 1), DEDUP_MS);
    await peer.work.enqueue(item("b", 1), DEDUP_MS);
    const [first, second] = await Promise.all([takeSurely(store), takeSurely(peer)]);
    expect([first.conversation, second.conversation].sort()).toEqual(["a", "b"]);
    expect(first.token).not.toBe(second.token);
    expect(first.resumed || second.resumed).toBe(false);
    expect(await take(peer, LEASE_MS)).toBeUndefined();
    await Promise.all([first.release(), second.release()]);
  });

  it("never leases a conversation to two holders at once while many takers race", async () => {
    const store = await open();
    const peer = await peerOf(store);
    const conversations = ["a", "b", "c", "d", "e", "f"];
    const perConversation = 5;
    for (let n = 1; n <= perConversation; n++) {
      for (const conversation of conversations) await store.work.enqueue(item(conversation, n), DEDUP_MS);
    }
    const total = conversations.length * perConversation;
    const done = new AbortController();
    const holding = new Set<string>();
    const answered = new Map<string, number[]>();
    let overlaps = 0;
    let processed = 0;
    const worker = async (on: BridgeStore) => {
      while (!done.signal.aborted) {
        const lease = await on.work.take(done.signal, { leaseMs: 5_000 });
        if (!lease) return;
        if (holding.has(lease.conversation)) overlaps++;
        holding.add(lease.conversation);
        const [first] = await lease.pending(1);
        await sleep(Math.random() * 5);
        if (first) {
          const numbers = answered.get(lease.conversation) ?? [];
          numbers.push((first.payload as { n: number }).n);
          answered.set(lease.conversation, numbers);
          await lease.complete([first.id]);
          if (++processed === total) done.abort();
        }
        holding.delete(lease.conversation);
        await lease.release();
      }
    };
    await Promise.all(Array.from({ length: 8 }, (_, index) => worker(index % 2 ? store : peer)));
    expect(overlaps).toBe(0);
    expect(processed).toBe(total);
    for (const conversation of conversations) {
      expect(answered.get(conversation)).toEqual([1, 2, 3, 4, 5]);
    }
    expect(await store.work.stats()).toEqual({ items: 0, conversations: 0, oldestEnqueuedAt: undefined });
  });

  it("hands a released conversation with items left to a waiting taker at once, not after its lease", async () => {
    const store = await open();
    const peer = await peerOf(store);
    await store.work.enqueue(item("a", 1), DEDUP_MS);
    await store.work.enqueue(item("a", 2), DEDUP_MS);
    const first = await takeSurely(store, 5_000, 60_000);
    // The lease lasts a minute: only the release can hand it over within the wait.
    const waiting = take(peer, 3_000, 60_000);
    await first.complete([item("a", 1).id]);
    await first.release();
    const second = await waiting;
    expect(second).toMatchObject({ conversation: "a", resumed: false });
    expect(second?.token).toBeGreaterThan(first.token);
    expect(second && (await ids(second))).toEqual([item("a", 2).id]);
    await second?.release();
  });

  it("takes over the conversation of a holder stalled past its lease, resumed, and refuses the stalled holder's writes", async () => {
    const store = await open();
    const peer = await peerOf(store);
    await store.work.enqueue(item("a", 1), DEDUP_MS);
    await store.work.enqueue(item("a", 2), DEDUP_MS);
    const stalled = await takeSurely(store);
    await stalled.writeLedger(item("a", 1).id, { sent: "part one" });
    const waiting = take(peer, 10_000);
    stall(LEASE_MS * 1.5);
    // Before any timer could tell the holder, the store itself refuses its writes: the lease has expired there.
    const lateWrite = stalled.writeLedger(item("a", 1).id, { sent: "stale" });
    const lateComplete = stalled.complete([item("a", 1).id]);
    await expect(lateWrite).rejects.toBeInstanceOf(LeaseLostError);
    await expect(lateComplete).rejects.toBeInstanceOf(LeaseLostError);
    const next = await waiting;
    expect(next).toMatchObject({ conversation: "a", resumed: true });
    expect(next?.token).toBeGreaterThan(stalled.token);
    expect(stalled.lost.aborted).toBe(true);
    expect(stalled.lost.reason).toBeInstanceOf(LeaseLostError);
    if (!next) return;
    expect(await ids(next)).toEqual([item("a", 1).id, item("a", 2).id]);
    expect(await next.readLedger(item("a", 1).id)).toEqual({ sent: "part one" });
    // The old holder stays shut out, and its release leaves the new lease alone.
    await expect(stalled.writeLedger(item("a", 1).id, { sent: "stale" })).rejects.toBeInstanceOf(LeaseLostError);
    await expect(stalled.release()).resolves.toBeUndefined();
    await next.complete([item("a", 1).id]);
    expect(await ids(next)).toEqual([item("a", 2).id]);
    await next.release();
  });

  it("offers the longest-waiting conversation first, whether its lease lapsed or it never had one", async () => {
    const store = await open();
    const peer = await peerOf(store);
    await store.work.enqueue(item("old", 1), DEDUP_MS);
    const stalled = await takeSurely(store);
    // The stores count waiting in milliseconds: each conversation starts waiting in a millisecond of its own.
    stall(2);
    await store.work.enqueue(item("young", 1), DEDUP_MS);
    // "old" waits longer than "young", but its holder holds it: "young" is the one free now.
    const free = await takeSurely(peer);
    expect(free.conversation).toBe("young");
    await free.release();
    stall(2);
    await store.work.enqueue(item("newest", 1), DEDUP_MS);
    stall(LEASE_MS * 1.5);
    // Now "old" lapsed: it goes before "young" (waiting since before it) and "newest", which never had a lease.
    const order: string[] = [];
    for (let k = 0; k < 3; k++) {
      const lease = await takeSurely(peer);
      order.push(lease.conversation);
    }
    expect(order).toEqual(["old", "young", "newest"]);
    await expect(stalled.writeLedger("job", "stale")).rejects.toBeInstanceOf(LeaseLostError);
  });

  if (harness.shared)
    it("offers the conversation of a holder whose store closed without releasing it after the lease, resumed", async () => {
      const store = await open();
      const peer = await open();
      await store.work.enqueue(item("a", 1), DEDUP_MS);
      const held = await takeSurely(store);
      await held.writeLedger("job", 7);
      await store.close();
      expect(held.lost.aborted).toBe(true);
      const next = await takeSurely(peer, 10_000);
      expect(next).toMatchObject({ conversation: "a", resumed: true });
      expect(next.token).toBeGreaterThan(held.token);
      expect(await ids(next)).toEqual([item("a", 1).id]);
      expect(await next.readLedger("job")).toBe(7);
      await next.release();
    });

  it("renews a held lease for as long as it is held", async () => {
    const store = await open();
    const peer = await peerOf(store);
    await store.work.enqueue(item("a", 1), DEDUP_MS);
    const held = await takeSurely(store);
    expect(await take(peer, LEASE_MS * 4)).toBeUndefined();
    expect(held.lost.aborted).toBe(false);
    await expect(held.writeLedger("job", { ok: true })).resolves.toBeUndefined();
    await held.release();
  });

  it("resolves take with undefined when its signal aborts, and hands work recorded meanwhile to the next taker", async () => {
    const store = await open();
    expect(await store.work.take(AbortSignal.abort())).toBeUndefined();
    const controller = new AbortController();
    const taking = store.work.take(controller.signal, { leaseMs: LEASE_MS });
    controller.abort();
    expect(await taking).toBeUndefined();
    await store.work.enqueue(item("a", 1), DEDUP_MS);
    const lease = await takeSurely(store, 3_000);
    expect(lease).toMatchObject({ conversation: "a", resumed: false });
    await lease.release();
  });

  it("wakes a holder waiting for more when an item of its conversation is recorded, not another's", async () => {
    const store = await open();
    const peer = await peerOf(store);
    await store.work.enqueue(item("a", 1), DEDUP_MS);
    const lease = await takeSurely(store, 5_000, 5_000);
    let woke = false;
    const waiting = lease.waitForMore(60_000, new AbortController().signal).then(() => {
      woke = true;
    });
    await peer.work.enqueue(item("b", 1), DEDUP_MS);
    await sleep(500);
    expect(woke).toBe(false);
    await peer.work.enqueue(item("a", 2), DEDUP_MS);
    await waiting;
    expect(await ids(lease)).toEqual([item("a", 1).id, item("a", 2).id]);
    await lease.waitForMore(20, new AbortController().signal);
    const controller = new AbortController();
    const aborted = lease.waitForMore(60_000, controller.signal);
    controller.abort();
    await aborted;
    await lease.release();
  });

  it("keeps each job's ledger record across leases until the job is completed", async () => {
    const store = await open();
    const peer = await peerOf(store);
    await store.work.enqueue(item("a", 1), DEDUP_MS);
    await store.work.enqueue(item("a", 2), DEDUP_MS);
    const first = await takeSurely(store);
    expect(await first.readLedger(item("a", 1).id)).toBeUndefined();
    await first.writeLedger(item("a", 1).id, { parts: ["one"], sent: 1 });
    await first.writeLedger(item("a", 1).id, { parts: ["one", "two"], sent: 2 });
    await first.writeLedger(item("a", 2).id, "asked");
    await first.writeLedger("merged", [1, 2]);
    await first.release();
    const second = await takeSurely(peer);
    expect(await second.readLedger(item("a", 1).id)).toEqual({ parts: ["one", "two"], sent: 2 });
    await second.complete([item("a", 1).id]);
    expect(await second.readLedger(item("a", 1).id)).toBeUndefined();
    expect(await second.readLedger(item("a", 2).id)).toBe("asked");
    // Job ids other than the items' own: an answer to several merged items.
    await second.complete([item("a", 2).id], ["merged"]);
    expect(await second.readLedger("merged")).toBeUndefined();
    expect(await second.readLedger(item("a", 2).id)).toBe("asked");
    expect(await second.pending()).toEqual([]);
    await second.release();
  });

  it("counts the items and conversations waiting and the oldest item's time, leased or not", async () => {
    const store = await open();
    expect(await store.work.stats()).toEqual({ items: 0, conversations: 0, oldestEnqueuedAt: undefined });
    await store.work.enqueue(item("a", 1), DEDUP_MS);
    await sleep(5);
    await store.work.enqueue(item("b", 1), DEDUP_MS);
    await store.work.enqueue(item("a", 2), DEDUP_MS);
    const lease = await takeSurely(store);
    const [a1, a2] = await lease.pending();
    expect(await store.work.stats()).toEqual({ items: 3, conversations: 2, oldestEnqueuedAt: a1?.enqueuedAt });
    await lease.complete([item("a", 1).id]);
    const afterOne = await store.work.stats();
    expect(afterOne.items).toBe(2);
    expect(afterOne.conversations).toBe(2);
    expect(afterOne.oldestEnqueuedAt).toBeGreaterThan(a1?.enqueuedAt ?? 0);
    expect(afterOne.oldestEnqueuedAt).toBeLessThanOrEqual(a2?.enqueuedAt ?? 0);
    await lease.complete([item("a", 2).id, "event:test:never-recorded"]);
    expect(await store.work.stats()).toMatchObject({ items: 1, conversations: 1 });
    await lease.release();
  });

  it("refuses fenced writes once released; releasing again does nothing", async () => {
    const store = await open();
    await store.work.enqueue(item("a", 1), DEDUP_MS);
    const lease = await takeSurely(store);
    await lease.release();
    await expect(lease.writeLedger("job", 1)).rejects.toBeInstanceOf(LeaseLostError);
    await expect(lease.complete([item("a", 1).id])).rejects.toBeInstanceOf(LeaseLostError);
    await expect(lease.release()).resolves.toBeUndefined();
    expect(lease.lost.aborted).toBe(false);
    const again = await takeSurely(store);
    expect(again).toMatchObject({ conversation: "a", resumed: false });
    await again.release();
  });

  it("keeps the work of namespaces apart", async () => {
    const store = await open();
    const other = await open("other");
    await store.work.enqueue(item("a", 1), DEDUP_MS);
    expect(await other.work.enqueue(item("a", 1), DEDUP_MS)).toBe(true);
    await other.work.enqueue(item("a", 2), DEDUP_MS);
    expect((await other.work.stats()).items).toBe(2);
    expect((await store.work.stats()).items).toBe(1);
    const lease = await takeSurely(store);
    expect(await ids(lease)).toEqual([item("a", 1).id]);
    await lease.release();
  });

  it("rejects work on a closed store", async () => {
    const store = await open();
    await store.close();
    await expect(store.work.enqueue(item("a", 1), DEDUP_MS)).rejects.toThrow();
    await expect(store.work.take(new AbortController().signal)).rejects.toThrow();
    await expect(store.work.stats()).rejects.toThrow();
    await expect(store.leases.acquire("pass", LEASE_MS)).rejects.toThrow();
    await expect(store.sets.members("set")).rejects.toThrow();
  });

  it("gives a named lease to one holder at a time, renewed while held, free again at its release", async () => {
    const store = await open();
    const peer = await peerOf(store);
    const first = await store.leases.acquire("pass", LEASE_MS);
    expect(first).toMatchObject({ name: "pass" });
    expect(await peer.leases.acquire("pass", LEASE_MS)).toBeUndefined();
    const other = await peer.leases.acquire("other-pass", LEASE_MS);
    expect(other).toBeDefined();
    await sleep(LEASE_MS * 2.5);
    expect(await peer.leases.acquire("pass", LEASE_MS)).toBeUndefined();
    expect(first?.lost.aborted).toBe(false);
    await first?.release();
    const second = await peer.leases.acquire("pass", LEASE_MS);
    expect(second?.token).toBeGreaterThan(first?.token ?? Number.POSITIVE_INFINITY);
    await expect(first?.release()).resolves.toBeUndefined();
    expect(await store.leases.acquire("pass", LEASE_MS)).toBeUndefined();
    await second?.release();
    await other?.release();
  });

  it("lets another take a named lease whose holder stalled past it, and tells the stalled holder", async () => {
    const store = await open();
    const peer = await peerOf(store);
    const stalled = await store.leases.acquire("pass", LEASE_MS);
    stall(LEASE_MS * 1.5);
    const next = await peer.leases.acquire("pass", LEASE_MS);
    expect(next?.token).toBeGreaterThan(stalled?.token ?? Number.POSITIVE_INFINITY);
    await expect.poll(() => stalled?.lost.aborted).toBe(true);
    expect(stalled?.lost.reason).toBeInstanceOf(LeaseLostError);
    await stalled?.release();
    expect(await store.leases.acquire("pass", LEASE_MS)).toBeUndefined();
    await next?.release();
  });

  it("refuses a lease length that is not above zero", async () => {
    const store = await open();
    await expect(store.leases.acquire("pass", 0)).rejects.toThrow(RangeError);
    await expect(store.work.take(new AbortController().signal, { leaseMs: -1 })).rejects.toThrow(RangeError);
  });

  it("adds and removes set members one at a time, every concurrent add landing", async () => {
    const store = await open();
    const peer = await peerOf(store);
    const other = await open("other");
    expect(await store.sets.members("handoffs")).toEqual([]);
    await Promise.all(
      Array.from({ length: 40 }, (_, index) => (index % 2 ? store : peer).sets.add("handoffs", `member-${index}`)),
    );
    await store.sets.add("handoffs", "member-0");
    expect((await peer.sets.members("handoffs")).sort()).toEqual(
      Array.from({ length: 40 }, (_, index) => `member-${index}`).sort(),
    );
    await Promise.all([store.sets.remove("handoffs", "member-1"), peer.sets.remove("handoffs", "member-2")]);
    await store.sets.remove("handoffs", "never-added");
    expect(await store.sets.members("handoffs")).toHaveLength(38);
    expect(await store.sets.members("handoffs")).not.toContain("member-1");
    expect(await store.sets.members("elsewhere")).toEqual([]);
    expect(await other.sets.members("handoffs")).toEqual([]);
  });
}
