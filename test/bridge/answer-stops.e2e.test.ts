import { tmpdir } from "node:os";
import { afterEach, describe, expect, it } from "vitest";
import { AnswerStops } from "../../src/bridge/answer-stops.js";
import type { BridgeStore } from "../../src/bridge/store/bridge-store.js";
import { openBridgeStore } from "../../src/bridge/store/open-bridge-store.js";
import { removeDataDir, tempDataDir } from "../support/sqlite.js";
import { holds } from "../support/waiting.js";

describe("AnswerStops", () => {
  const stores: BridgeStore[] = [];
  const dataDirs: string[] = [];
  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close();
    for (const dataDir of dataDirs.splice(0)) removeDataDir(dataDir);
  });

  /** Two processes' stops on one SQLite file: `web` takes the press, `worker` streams the answer. */
  async function twoProcesses() {
    const dataDir = tempDataDir();
    dataDirs.push(dataDir);
    const [webStore, workerStore] = [
      await openBridgeStore({ dataDir, namespace: "stops" }),
      await openBridgeStore({ dataDir, namespace: "stops" }),
    ];
    stores.push(webStore, workerStore);
    const worker = new AnswerStops(workerStore.signals);
    await worker.listen().live;
    return { web: new AnswerStops(webStore.signals), worker, workerStore };
  }

  it("stops the answer streaming in another process when the press reaches this one", async () => {
    const { web, worker } = await twoProcesses();
    const answer = worker.begin("telegram:bot:42");
    const other = worker.begin("telegram:bot:43");
    await web.press("telegram:bot:42", Date.now());
    await holds(() => answer.signal.aborted, 5_000);
    expect(other.signal.aborted).toBe(false);
  });

  it("ignores a stop pressed before the answer was asked, so a late one never cuts the next answer", async () => {
    const { web, worker } = await twoProcesses();
    const pressedAt = Date.now();
    const first = worker.begin("telegram:bot:42");
    first.end();
    // The conversation's next answer, asked after the press that was meant for the first.
    await new Promise((resolve) => setTimeout(resolve, 5));
    const next = worker.begin("telegram:bot:42");
    await web.press("telegram:bot:42", pressedAt);
    // A press that comes after it, published behind the late one, shows that the late one was heard and ignored.
    const witness = worker.begin("telegram:bot:44");
    await web.press("telegram:bot:44", Date.now());
    await holds(() => witness.signal.aborted, 5_000);
    expect(next.signal.aborted).toBe(false);
    expect(first.signal.aborted).toBe(false);
  });

  it("stops nothing once the answer ended, and only the newest answer of a conversation", async () => {
    const { web, worker } = await twoProcesses();
    const ended = worker.begin("telegram:bot:42");
    ended.end();
    await web.press("telegram:bot:42", Date.now());
    const replaced = worker.begin("telegram:bot:45");
    const newest = worker.begin("telegram:bot:45");
    replaced.end();
    await web.press("telegram:bot:45", Date.now());
    await holds(() => newest.signal.aborted, 5_000);
    expect(ended.signal.aborted).toBe(false);
    expect(replaced.signal.aborted).toBe(false);
  });

  it("stops this process's answer at once, even when the store cannot pass the press on", async () => {
    const store = await openBridgeStore({ url: "memory://", dataDir: tmpdir(), namespace: "stops" });
    const stops = new AnswerStops(store.signals);
    const answer = stops.begin("web:default:visitor");
    await store.close();
    const passed = stops.press("web:default:visitor", Date.now());
    expect(answer.signal.aborted).toBe(true);
    await expect(passed).rejects.toThrow("the memory store is closed");
  });
});
