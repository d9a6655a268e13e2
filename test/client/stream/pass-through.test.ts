import { describe, expect, it } from "vitest";
import { openedLater, prepended, tapped } from "../../../src/client/stream/pass-through.js";

/** An iterator over `items` that records what was asked of it. */
function recorded<T>(items: T[], failAt?: number) {
  const calls: string[] = [];
  let index = 0;
  const iterator: AsyncIterator<T> = {
    next: async () => {
      calls.push("next");
      if (index === failAt) throw new Error(`item ${index} failed`);
      return index < items.length ? { done: false, value: items[index++] as T } : { done: true, value: undefined };
    },
    return: async () => {
      calls.push("return");
      index = items.length;
      return { done: true, value: undefined };
    },
  };
  return { iterator, calls };
}

async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const items: T[] = [];
  for await (const item of iterable) items.push(item);
  return items;
}

describe("openedLater", () => {
  it("opens on the first next, once, and then hands out the opened iterator's items", async () => {
    const inner = recorded([1, 2, 3]);
    let opened = 0;
    const iterator = openedLater(async () => {
      opened++;
      return inner.iterator;
    });
    expect(opened).toBe(0);
    const [first, second] = await Promise.all([iterator.next(), iterator.next()]);
    expect(opened).toBe(1);
    expect([first, second]).toEqual([
      { done: false, value: 1 },
      { done: false, value: 2 },
    ]);
    expect(await collect(iterator)).toEqual([3]);
    expect(await iterator.next()).toEqual({ done: true, value: undefined });
  });

  it("throws a failure to open from the first next, and is done after it", async () => {
    const iterator = openedLater<number>(async () => {
      throw new Error("no connection");
    });
    await expect(iterator.next()).rejects.toThrow("no connection");
    expect(await iterator.next()).toEqual({ done: true, value: undefined });
  });

  it("opens nothing when returned before any next", async () => {
    let opened = 0;
    const iterator = openedLater(async () => {
      opened++;
      return recorded([1]).iterator;
    });
    expect(await iterator.return?.()).toEqual({ done: true, value: undefined });
    expect(await iterator.next()).toEqual({ done: true, value: undefined });
    expect(opened).toBe(0);
  });

  it("closes what it opened when returned while opening, and hands nothing out", async () => {
    const inner = recorded([1, 2]);
    let finishOpening: () => void = () => undefined;
    const iterator = openedLater(
      () =>
        new Promise<AsyncIterator<number>>((resolve) => {
          finishOpening = () => resolve(inner.iterator);
        }),
    );
    const first = iterator.next();
    const closing = iterator.return?.();
    finishOpening();
    await closing;
    expect(await first).toEqual({ done: true, value: undefined });
    expect(inner.calls).toEqual(["return"]);
  });

  it("passes a return on to the opened iterator, as leaving a for await does", async () => {
    const inner = recorded([1, 2, 3]);
    const iterator = openedLater(async () => inner.iterator);
    for await (const item of iterator) if (item === 1) break;
    expect(inner.calls).toEqual(["next", "return"]);
  });
});

describe("prepended", () => {
  it("hands out the head, then the rest's items", async () => {
    const rest = recorded(["b", "c"]);
    expect(await collect(prepended({ done: false, value: "a" }, rest.iterator))).toEqual(["a", "b", "c"]);
  });

  it("is done at once when the head was the end, without reading the rest", async () => {
    const rest = recorded(["never"]);
    const iterator = prepended({ done: true, value: undefined }, rest.iterator);
    expect(await collect(iterator)).toEqual([]);
    expect(await iterator.next()).toEqual({ done: true, value: undefined });
    expect(rest.calls).toEqual([]);
  });

  it("closes the rest when left early, and hands nothing more out, the head included", async () => {
    const rest = recorded(["b", "c"]);
    const iterator = prepended({ done: false, value: "a" }, rest.iterator);
    await iterator.return?.();
    expect(rest.calls).toEqual(["return"]);
    expect(await iterator.next()).toEqual({ done: true, value: undefined });
  });

  it("passes the rest's failure on", async () => {
    const rest = recorded(["b", "c"], 1);
    const iterator = prepended({ done: false, value: "a" }, rest.iterator);
    await expect(collect(iterator)).rejects.toThrow("item 1 failed");
  });
});

describe("tapped", () => {
  it("shows each item to its watcher before the consumer gets it, and not the end", async () => {
    const source = recorded([1, 2]);
    const seen: number[] = [];
    const got: Array<[number, number[]]> = [];
    for await (const item of tapped(source.iterator, (item) => seen.push(item))) got.push([item, [...seen]]);
    expect(got).toEqual([
      [1, [1]],
      [2, [1, 2]],
    ]);
    expect(seen).toEqual([1, 2]);
  });

  it("passes a return and a failure on", async () => {
    const left = recorded([1, 2]);
    for await (const item of tapped(left.iterator, () => undefined)) if (item === 1) break;
    expect(left.calls).toEqual(["next", "return"]);
    const failing = recorded([1, 2], 1);
    await expect(collect(tapped(failing.iterator, () => undefined))).rejects.toThrow("item 1 failed");
  });
});
