import { describe, expect, it } from "vitest";
import { ConversationQueue } from "../../src/bridge/conversation-queue.js";

const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("ConversationQueue", () => {
  it("answers one conversation strictly in order, one at a time, and others in parallel", async () => {
    const log: string[] = [];
    let concurrentA = 0;
    let maxConcurrentA = 0;
    const queue = new ConversationQueue<string>("queue", async (key, [item]) => {
      if (key === "a") maxConcurrentA = Math.max(maxConcurrentA, ++concurrentA);
      log.push(`start ${key}:${item}`);
      await tick(key === "a" ? 20 : 5);
      log.push(`end ${key}:${item}`);
      if (key === "a") concurrentA--;
    });
    for (const item of ["1", "2", "3"]) queue.push("a", item);
    queue.push("b", "x");
    await queue.idle();
    expect(maxConcurrentA).toBe(1);
    expect(log.filter((l) => l.includes("a:"))).toEqual([
      "start a:1",
      "end a:1",
      "start a:2",
      "end a:2",
      "start a:3",
      "end a:3",
    ]);
    // b ran while a's first answer was still under way.
    expect(log.indexOf("end b:x")).toBeLessThan(log.indexOf("end a:1"));
  });

  it("in merge mode, hands everything that waited over as one batch", async () => {
    const batches: string[][] = [];
    const queue = new ConversationQueue<string>("merge", async (_key, batch) => {
      batches.push(batch);
      await tick(10);
    });
    queue.push("a", "first");
    queue.push("a", "second");
    queue.push("a", "third");
    await queue.idle();
    expect(batches).toEqual([["first"], ["second", "third"]]);
  });

  it("keeps going after a failed batch and drops nothing", async () => {
    const done: string[] = [];
    const queue = new ConversationQueue<string>("queue", async (_key, [item]) => {
      if (item === "boom") throw new Error("boom");
      done.push(item ?? "");
    });
    queue.push("a", "one");
    queue.push("a", "boom");
    queue.push("a", "two");
    await queue.idle();
    expect(done).toEqual(["one", "two"]);
    expect(queue.active).toBe(0);
  });
});
