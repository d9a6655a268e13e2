import { spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import SQLite from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { openBridgeStore } from "../../../src/bridge/store/open-bridge-store.js";
import { removeDataDir, tempDataDir } from "../../support/sqlite.js";
import { bridgeStoreContract, type StoreHarness } from "./contract.js";
import { expectKilledHolderResumed } from "./killed-holder.js";
import { workQueueContract } from "./work-contract.js";

let dataDir = "";
const sqlite: StoreHarness = {
  setup: () => {
    dataDir = tempDataDir();
  },
  teardown: () => removeDataDir(dataDir),
  open: (namespace) => openBridgeStore({ dataDir, namespace }),
  shared: true,
};

describe("BridgeStore on SQLite", () => {
  bridgeStoreContract(sqlite);
});

describe("work, leases and sets on SQLite", () => {
  workQueueContract(sqlite);
});

describe("the SQLite file", () => {
  const dataDirs: string[] = [];
  const newDataDir = () => {
    const dataDir = tempDataDir();
    dataDirs.push(dataDir);
    return dataDir;
  };
  afterEach(() => {
    for (const dataDir of dataDirs.splice(0)) removeDataDir(dataDir);
  });

  it("is DATA_DIR/bridge.db by default, in WAL mode, with the data directory created", async () => {
    const dataDir = path.join(newDataDir(), "nested", "data");
    const store = await openBridgeStore({ dataDir });
    await store.close();
    const file = path.join(dataDir, "bridge.db");
    expect(store.description).toBe(`sqlite:${file}`);
    const database = new SQLite(file, { readonly: true });
    expect(database.pragma("journal_mode", { simple: true })).toBe("wal");
    database.close();
  });

  it("is the path of a sqlite:// URL: absolute as given, relative inside DATA_DIR", async () => {
    const dataDir = newDataDir();
    const absolute = path.join(newDataDir(), "elsewhere.db");
    const first = await openBridgeStore({ url: `sqlite://${absolute}`, dataDir });
    const second = await openBridgeStore({ url: "sqlite://sub/state.db", dataDir });
    await first.close();
    await second.close();
    expect(first.description).toBe(`sqlite:${absolute}`);
    expect(existsSync(absolute)).toBe(true);
    expect(existsSync(path.join(dataDir, "sub", "state.db"))).toBe(true);
  });

  it("keeps values and claims when the store is closed and opened again", async () => {
    const dataDir = newDataDir();
    const first = await openBridgeStore({ dataDir });
    await first.keyv.set("session:slack:T1:C1", 99);
    expect(await first.claimOnce("event:slack:1", 60_000)).toBe(true);
    await first.close();

    const second = await openBridgeStore({ dataDir });
    try {
      expect(await second.keyv.get("session:slack:T1:C1")).toBe(99);
      expect(await second.claimOnce("event:slack:1", 60_000)).toBe(false);
    } finally {
      await second.close();
    }
  });

  it("commits a burst of enqueues together, each with its own outcome, durable once resolved", async () => {
    const dataDir = newDataDir();
    const store = await openBridgeStore({ dataDir, namespace: "burst" });
    const file = path.join(dataDir, "bridge.db");
    const reader = new SQLite(file, { readonly: true });
    const version = () => reader.pragma("data_version", { simple: true }) as number;
    const before = version();
    // 200 webhooks in one turn, every tenth a re-delivery of the one before.
    const ids = Array.from({ length: 200 }, (_, i) => `event:${i % 10 === 9 ? i - 1 : i}`);
    const outcomes = await Promise.all(
      ids.map((id, i) => store.work.enqueue({ id, conversation: `chat-${i % 7}`, payload: { i } }, 60_000)),
    );
    expect(outcomes.filter(Boolean)).toHaveLength(180);
    expect(outcomes.map((recorded, i) => recorded === (i % 10 !== 9))).toEqual(Array(200).fill(true));
    // Another connection sees each of them, after one commit of this burst (data_version moves once per commit
    // of another connection).
    const { items } = reader.prepare("SELECT count(*) AS items FROM bridge_work_items WHERE ns = 'burst'").get() as {
      items: number;
    };
    expect(items).toBe(180);
    expect(version() - before).toBe(1);
    // A second burst is a second commit; an enqueue asked for as the store closes is committed, not lost.
    const last = store.work.enqueue({ id: "event:last", conversation: "chat-0", payload: {} }, 60_000);
    await store.close();
    expect(await last).toBe(true);
    expect(version() - before).toBe(2);
    reader.close();
  });

  it("deletes rows that expired while the store was closed when it opens", async () => {
    const dataDir = newDataDir();
    const first = await openBridgeStore({ dataDir });
    await first.keyv.set("short", 1, 20);
    await first.keyv.set("lasting", 2);
    await first.claimOnce("event:short", 20);
    await first.claimOnce("event:lasting", 60_000);
    await first.close();
    await sleep(50);

    await (await openBridgeStore({ dataDir })).close();
    const database = new SQLite(path.join(dataDir, "bridge.db"), { readonly: true });
    try {
      expect(database.prepare("SELECT key FROM keyv_entries").pluck().all()).toEqual(["chatbridge:lasting"]);
      expect(database.prepare("SELECT key FROM bridge_claims").pluck().all()).toEqual(["chatbridge:event:lasting"]);
    } finally {
      database.close();
    }
  });

  it("hands the conversation of a holder process killed mid-work to another after its lease, resumed, with every item", async () => {
    const dataDir = newDataDir();
    const store = await openBridgeStore({ dataDir });
    try {
      await expectKilledHolderResumed(store, dataDir, "chatbridge");
    } finally {
      await store.close();
    }
  }, 30_000);

  it("lets exactly one process win each claim when several race on one file", async () => {
    const dataDir = newDataDir();
    const count = 300;
    const workers = Array.from({ length: 4 }, () => startClaimWorker(dataDir, count));
    // Every process has opened the store before any claims, so the claims really overlap.
    await Promise.all(workers.map((worker) => worker.ready));
    for (const worker of workers) worker.go();
    const won = (await Promise.all(workers.map((worker) => worker.result))).flat();
    expect(won.sort((a, b) => a - b)).toEqual(Array.from({ length: count }, (_, key) => key));
  }, 30_000);
});

const workerScript = fileURLToPath(new URL("./claim-race-worker.ts", import.meta.url));
const tsxLoader = createRequire(import.meta.url).resolve("tsx");

/** Starts claim-race-worker.ts in its own Node process. */
function startClaimWorker(dataDir: string, count: number) {
  const child = spawn(process.execPath, ["--import", tsxLoader, workerScript, dataDir, "chatbridge", String(count)], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  let output = "";
  child.stdout.setEncoding("utf8");
  const ready = new Promise<void>((resolve, reject) => {
    child.stdout.on("data", (chunk: string) => {
      output += chunk;
      if (output.startsWith("ready\n")) resolve();
    });
    child.once("exit", (code) => reject(new Error(`claim worker exited with ${code} before it was ready`)));
  });
  const result = once(child, "exit").then(([code]) => {
    if (code !== 0) throw new Error(`claim worker exited with ${code}`);
    return JSON.parse(output.slice("ready\n".length)) as number[];
  });
  return { ready, result, go: () => child.stdin.write("go\n") };
}
