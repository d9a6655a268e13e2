import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, beforeEach, expect, it } from "vitest";
import type { BridgeStore } from "../../../src/bridge/store/bridge-store.js";

/** How one backend is set up for the contract suite. */
export interface StoreHarness {
  /** Prepares a fresh backend (a temporary directory, a new key namespace) before each test. */
  setup(): void | Promise<void>;
  /** Removes what {@link setup} made, after each test's stores are closed. */
  teardown(): void | Promise<void>;
  /** Opens a store on the current backend; `namespace` tells apart stores that share it. */
  open(namespace?: string): Promise<BridgeStore>;
  /** Whether two stores opened on the backend share their data (not so for memory). */
  shared: boolean;
}

/**
 * The stores a contract opens in a test, closed after it before the backend is torn down; registers the hooks, so
 * call it inside a `describe`.
 */
export function storesOf(harness: StoreHarness): (namespace?: string) => Promise<BridgeStore> {
  const opened: BridgeStore[] = [];
  beforeEach(() => harness.setup());
  afterEach(async () => {
    for (const store of opened.splice(0)) await store.close();
    await harness.teardown();
  });
  return async (namespace?: string) => {
    const store = await harness.open(namespace);
    opened.push(store);
    return store;
  };
}

/** Short enough to wait out in a test, long enough that the first read surely comes before the expiry. */
const TTL_MS = 50;
const PAST_TTL_MS = 120;

/** The behaviour every BridgeStore backend must have; call inside a `describe`. */
export function bridgeStoreContract(harness: StoreHarness): void {
  const open = storesOf(harness);

  it("keyv sets, gets and deletes values, keeping their JSON types", async () => {
    const { keyv } = await open();
    await keyv.set("session:telegram:1", 4711);
    await keyv.set("state", { greeted: true, names: ["a", "b"] });
    expect(await keyv.get("session:telegram:1")).toBe(4711);
    expect(await keyv.get("state")).toEqual({ greeted: true, names: ["a", "b"] });
    expect(await keyv.has("state")).toBe(true);
    expect(await keyv.delete("state")).toBe(true);
    expect(await keyv.get("state")).toBeUndefined();
    expect(await keyv.has("state")).toBe(false);
    expect(await keyv.get("never-set")).toBeUndefined();
  });

  it("keyv reads and deletes several keys at once", async () => {
    const { keyv } = await open();
    await keyv.set("a", 1);
    await keyv.set("c", 3);
    expect(await keyv.getMany(["a", "b", "c"])).toEqual([1, undefined, 3]);
    expect(await keyv.deleteMany(["a", "c"])).toBe(true);
    expect(await keyv.getMany(["a", "c"])).toEqual([undefined, undefined]);
  });

  it("keyv values with a TTL read as absent once it has passed", async () => {
    const { keyv } = await open();
    await keyv.set("short", "soon gone", TTL_MS);
    await keyv.set("lasting", "stays");
    expect(await keyv.get("short")).toBe("soon gone");
    await sleep(PAST_TTL_MS);
    expect(await keyv.get("short")).toBeUndefined();
    expect(await keyv.has("short")).toBe(false);
    expect(await keyv.getMany(["short", "lasting"])).toEqual([undefined, "stays"]);
  });

  it("keyv iterates over the live keys of its namespace only", async () => {
    const store = await open();
    const other = await open("other");
    await store.keyv.set("one", 1);
    await store.keyv.set("two", 2);
    await store.keyv.set("gone", 0, TTL_MS);
    await other.keyv.set("foreign", 3);
    await sleep(PAST_TTL_MS);
    const iterator = store.keyv.iterator;
    expect(iterator).toBeDefined();
    const entries: unknown[] = [];
    for await (const entry of iterator?.(undefined) ?? []) entries.push(entry);
    expect(entries.sort()).toEqual([
      ["one", 1],
      ["two", 2],
    ]);
  });

  it("keeps namespaces apart, also when one is cleared", async () => {
    const first = await open();
    const second = await open("other");
    await first.keyv.set("key", "first");
    expect(await second.keyv.get("key")).toBeUndefined();
    await second.keyv.set("key", "second");
    await first.keyv.clear();
    expect(await first.keyv.get("key")).toBeUndefined();
    expect(await second.keyv.get("key")).toBe("second");
    expect(await first.claimOnce("event:1", 60_000)).toBe(true);
    expect(await second.claimOnce("event:1", 60_000)).toBe(true);
  });

  it("claimOnce is true the first time and false while the claim lasts", async () => {
    const store = await open();
    expect(await store.claimOnce("event:telegram:bot:1", 60_000)).toBe(true);
    expect(await store.claimOnce("event:telegram:bot:1", 60_000)).toBe(false);
    expect(await store.claimOnce("event:telegram:bot:2", 60_000)).toBe(true);
  });

  it("claimOnce lets exactly one of 100 parallel claims of a key win", async () => {
    const store = await open();
    const results = await Promise.all(Array.from({ length: 100 }, () => store.claimOnce("event:race", 60_000)));
    expect(results.filter(Boolean)).toHaveLength(1);
  });

  // Memory stores share nothing between instances, so the cross-store race applies to SQLite and Redis only.
  if (harness.shared)
    it("claimOnce lets exactly one claim win across two stores on one backend", async () => {
      const first = await open();
      const second = await open();
      const results = await Promise.all(
        Array.from({ length: 100 }, (_, index) => (index % 2 ? first : second).claimOnce("event:race", 60_000)),
      );
      expect(results.filter(Boolean)).toHaveLength(1);
    });

  it("claimOnce wins again once the claim's TTL has passed", async () => {
    const store = await open();
    expect(await store.claimOnce("event:retry", TTL_MS)).toBe(true);
    expect(await store.claimOnce("event:retry", TTL_MS)).toBe(false);
    await sleep(PAST_TTL_MS);
    expect(await store.claimOnce("event:retry", TTL_MS)).toBe(true);
    expect(await store.claimOnce("event:retry", TTL_MS)).toBe(false);
  });

  it("release allows the key to be claimed again", async () => {
    const store = await open();
    expect(await store.claimOnce("event:failed", 60_000)).toBe(true);
    await store.release("event:failed");
    expect(await store.claimOnce("event:failed", 60_000)).toBe(true);
    expect(await store.claimOnce("event:failed", 60_000)).toBe(false);
    await expect(store.release("event:never-claimed")).resolves.toBeUndefined();
  });

  it("keeps claims apart from keyv values, which clear() leaves alone", async () => {
    const store = await open();
    await store.keyv.set("event:1", "a value");
    expect(await store.claimOnce("event:1", 60_000)).toBe(true);
    await store.keyv.clear();
    expect(await store.claimOnce("event:1", 60_000)).toBe(false);
    expect(await store.keyv.get("event:1")).toBeUndefined();
  });

  it("claimOnce refuses a TTL that is not above zero", async () => {
    const store = await open();
    await expect(store.claimOnce("event:x", 0)).rejects.toThrow(/TTL above 0/);
    await expect(store.claimOnce("event:x", Number.NaN)).rejects.toThrow(/TTL above 0/);
    expect(await store.claimOnce("event:x", 60_000)).toBe(true);
  });

  it("answers ping while open, refuses it once closed, and closes twice without error", async () => {
    const store = await open();
    expect(store.description).toBeTruthy();
    await expect(store.ping()).resolves.toBeUndefined();
    await store.close();
    await expect(store.ping()).rejects.toThrow();
    await expect(store.claimOnce("event:late", 60_000)).rejects.toThrow();
    await expect(store.keyv.get("session:late")).rejects.toThrow();
    await expect(store.keyv.set("session:late", 1)).rejects.toThrow();
    await expect(store.close()).resolves.toBeUndefined();
  });
}
