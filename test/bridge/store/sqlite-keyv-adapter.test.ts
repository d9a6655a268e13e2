import { setTimeout as sleep } from "node:timers/promises";
import SQLite from "better-sqlite3";
import Keyv from "keyv";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SqliteKeyvAdapter } from "../../../src/bridge/store/sqlite-keyv-adapter.js";

describe("SqliteKeyvAdapter", () => {
  let db: SQLite.Database;
  let adapter: SqliteKeyvAdapter;
  beforeEach(() => {
    db = new SQLite(":memory:");
    adapter = new SqliteKeyvAdapter(db, "sqlite::memory:");
  });
  afterEach(() => db.close());

  const keys = () => db.prepare("SELECT key FROM keyv_entries ORDER BY key").pluck().all();

  it("keeps the expiry in a column and deleteExpired removes only expired rows", async () => {
    await adapter.set("ns:short", '"a"', 20);
    await adapter.set("ns:lasting", '"b"');
    await adapter.set("ns:zero-ttl", '"c"', 0);
    expect(db.prepare("SELECT expires FROM keyv_entries WHERE key = 'ns:lasting'").pluck().get()).toBeNull();
    await sleep(50);
    expect(await adapter.get("ns:short")).toBeUndefined();
    expect(keys()).toContain("ns:short");
    expect(adapter.deleteExpired()).toBe(1);
    expect(keys()).toEqual(["ns:lasting", "ns:zero-ttl"]);
  });

  it("returns getMany in the order asked, with undefined for missing keys", async () => {
    await adapter.set("b", "2");
    await adapter.set("a", "1");
    expect(await adapter.getMany(["a", "missing", "b", "a"])).toEqual(["1", undefined, "2", "1"]);
    expect(await adapter.getMany([])).toEqual([]);
  });

  it("clears only its namespace's keys, or all keys without a namespace", async () => {
    await adapter.set("one:a", "1");
    await adapter.set("one-more:a", "2");
    await adapter.set("two:a", "3");
    adapter.namespace = "one";
    await adapter.clear();
    expect(keys()).toEqual(["one-more:a", "two:a"]);
    adapter.namespace = undefined;
    await adapter.clear();
    expect(keys()).toEqual([]);
  });

  it("takes LIKE wildcards in a namespace literally when clearing", async () => {
    await adapter.set("a_b:x", "1");
    await adapter.set("aXb:x", "2");
    adapter.namespace = "a_b";
    await adapter.clear();
    expect(keys()).toEqual(["aXb:x"]);
  });

  it("iterates over more keys than one page holds, in key order", async () => {
    const keyv = new Keyv({ store: adapter, namespace: "ns" });
    const count = 250;
    for (let index = 0; index < count; index++) await keyv.set(`k${String(index).padStart(3, "0")}`, index);
    await new Keyv({ store: new SqliteKeyvAdapter(db, "sqlite::memory:"), namespace: "other" }).set("k000", -1);
    const seen: unknown[] = [];
    for await (const [key, value] of keyv.iterator?.(undefined) ?? []) seen.push([key, value]);
    expect(seen).toEqual(Array.from({ length: count }, (_, index) => [`k${String(index).padStart(3, "0")}`, index]));
  });

  it("makes Keyv reject when the database fails, instead of reading as absent", async () => {
    const keyv = new Keyv({ store: adapter, namespace: "ns", throwOnErrors: true });
    db.close();
    await expect(keyv.get("key")).rejects.toThrow(/not open/);
    await expect(keyv.set("key", 1)).rejects.toThrow(/not open/);
    db = new SQLite(":memory:");
  });
});
