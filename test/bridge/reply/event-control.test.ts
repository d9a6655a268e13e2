import { describe, expect, it, vi } from "vitest";
import { ABORTED, AbortableReader, Latch, nap } from "../../../src/bridge/reply/event-control.js";

/** An iterator whose next waits until the test gives it a value. */
function slowSource() {
  const waiting: ((value: IteratorResult<number>) => void)[] = [];
  const iterator: AsyncIterator<number> = {
    next: () => new Promise((resolve) => waiting.push(resolve)),
  };
  return { iterator, give: (value: number) => waiting.shift()?.({ done: false, value }) };
}

describe("AbortableReader", () => {
  it("reads until any of its signals fires, then answers ABORTED without waiting for the source", async () => {
    for (const which of [0, 1]) {
      const signals = [new AbortController(), new AbortController()];
      const { iterator, give } = slowSource();
      const reader = new AbortableReader(iterator, [signals[0]?.signal, undefined, signals[1]?.signal]);
      const first = reader.next();
      give(1);
      expect(await first).toEqual({ done: false, value: 1 });
      const pending = reader.next();
      signals[which]?.abort();
      expect(await pending).toBe(ABORTED);
      expect(reader.aborted).toBe(true);
      expect(await reader.next()).toBe(ABORTED);
      reader.close();
    }
  });

  it("reads straight through without signals", async () => {
    const { iterator, give } = slowSource();
    const reader = new AbortableReader(iterator, []);
    const next = reader.next();
    give(7);
    expect(await next).toEqual({ done: false, value: 7 });
    expect(reader.aborted).toBe(false);
  });
});

describe("Latch and nap", () => {
  it("wakes a nap at once when raised, and only once; a nap after it ends at once", async () => {
    const latch = new Latch();
    const napping = nap(60_000, latch);
    const woken: number[] = [];
    const forget = latch.onRaise(() => woken.push(1));
    latch.onRaise(() => woken.push(2));
    forget();
    latch.raise();
    latch.raise();
    expect(await napping).toBe(false);
    expect(woken).toEqual([2]);
    expect(latch.raised).toBe(true);
    expect(await nap(60_000, latch)).toBe(false);
  });

  it("sleeps its whole time when not raised", async () => {
    vi.useFakeTimers();
    try {
      const latch = new Latch();
      let woke: boolean | undefined;
      void nap(1_000, latch).then((value) => {
        woke = value;
      });
      await vi.advanceTimersByTimeAsync(999);
      expect(woke).toBeUndefined();
      await vi.advanceTimersByTimeAsync(1);
      expect(woke).toBe(true);
      expect(latch.raised).toBe(false);
    } finally {
      vi.useRealTimers();
    }
  });
});
