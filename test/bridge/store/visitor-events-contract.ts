import { setTimeout as sleep } from "node:timers/promises";
import { expect, it } from "vitest";
import type {
  LoggedVisitorEvent,
  VisitorEvent,
  VisitorEventRetention,
} from "../../../src/bridge/store/visitor-events.js";
import { until } from "../../support/waiting.js";
import { type StoreHarness, storesOf } from "./contract.js";

const KEEP: VisitorEventRetention = { messages: 200, idleMs: 60_000 };
const message = (id: string, text: string): VisitorEvent => ({ message: id, data: { type: "message", id, text } });
const typing: VisitorEvent = { data: { type: "typing" } };
const texts = (events: LoggedVisitorEvent[]) => events.map((event) => (event.data as { text?: string }).text ?? "…");

/** Collects what a subscription delivers. */
function recorder() {
  const events: LoggedVisitorEvent[] = [];
  return { events, listener: (event: LoggedVisitorEvent) => events.push(event) };
}

/** The behaviour of every backend's visitor event log (`store.visitorEvents`); call inside a `describe`. */
export function visitorEventsContract(harness: StoreHarness): void {
  const open = storesOf(harness);

  it("hands out increasing ids and replays the latest state of each message, in id order, without typing", async () => {
    const { visitorEvents: log } = await open();
    const ids = [
      await log.append("visitor-a", message("m1", "Hel"), KEEP),
      await log.append("visitor-a", typing, KEEP),
      await log.append("visitor-a", message("m2", "Second"), KEEP),
      await log.append("visitor-a", message("m1", "Hello"), KEEP),
      await log.append("visitor-a", typing, KEEP),
    ];
    for (const [index, id] of ids.entries()) {
      expect(Number.isSafeInteger(id)).toBe(true);
      if (index > 0) expect(id).toBeGreaterThan(ids[index - 1] as number);
    }
    const replay = await log.since("visitor-a", undefined);
    expect(replay).toEqual([
      { id: ids[2], message: "m2", data: { type: "message", id: "m2", text: "Second" } },
      { id: ids[3], message: "m1", data: { type: "message", id: "m1", text: "Hello" } },
    ]);
  });

  it("replays only the messages whose latest event came after the given id", async () => {
    const { visitorEvents: log } = await open();
    const first = await log.append("visitor-a", message("m1", "one"), KEEP);
    const second = await log.append("visitor-a", message("m2", "two"), KEEP);
    await log.append("visitor-a", message("m3", "three"), KEEP);
    await log.append("visitor-a", message("m1", "one, edited"), KEEP);
    expect(texts(await log.since("visitor-a", first))).toEqual(["two", "three", "one, edited"]);
    expect(texts(await log.since("visitor-a", second))).toEqual(["three", "one, edited"]);
    const last = (await log.since("visitor-a", undefined)).at(-1)?.id;
    expect(await log.since("visitor-a", last)).toEqual([]);
  });

  it("keeps visitors apart", async () => {
    const { visitorEvents: log } = await open();
    await log.append("visitor-a", message("m1", "for a"), KEEP);
    await log.append("visitor-b", message("m2", "for b"), KEEP);
    expect(texts(await log.since("visitor-a", undefined))).toEqual(["for a"]);
    expect(texts(await log.since("visitor-b", undefined))).toEqual(["for b"]);
    expect(await log.since("visitor-c", undefined)).toEqual([]);
  });

  it("keeps the newest messages up to the retention, counting an edited one as new", async () => {
    const { visitorEvents: log } = await open();
    const three = { ...KEEP, messages: 3 };
    for (const n of [1, 2, 3, 4]) await log.append("visitor-a", message(`m${n}`, `text ${n}`), three);
    expect(texts(await log.since("visitor-a", undefined))).toEqual(["text 2", "text 3", "text 4"]);
    await log.append("visitor-a", message("m2", "text 2, edited"), three);
    await log.append("visitor-a", typing, three);
    await log.append("visitor-a", message("m5", "text 5"), three);
    expect(texts(await log.since("visitor-a", undefined))).toEqual(["text 4", "text 2, edited", "text 5"]);
  });

  it("forgets a visitor's log once it was idle for the retention's time, and its ids never restart", async () => {
    const { visitorEvents: log } = await open();
    const short = { ...KEEP, idleMs: 400 };
    await log.append("visitor-a", message("m1", "early"), short);
    await sleep(250);
    // An event (typing too) keeps the whole log alive.
    await log.append("visitor-a", typing, short);
    await sleep(250);
    expect(texts(await log.since("visitor-a", undefined))).toEqual(["early"]);
    const before = await log.append("visitor-a", message("m2", "later"), short);
    await sleep(600);
    expect(await log.since("visitor-a", undefined)).toEqual([]);
    const after = await log.append("visitor-a", message("m3", "after the expiry"), short);
    expect(after).toBeGreaterThan(before);
    expect(texts(await log.since("visitor-a", undefined))).toEqual(["after the expiry"]);
  });

  it("delivers every event appended after subscribing, typing included, in order, until closed", async () => {
    const { visitorEvents: log } = await open();
    await log.append("visitor-a", message("m0", "before"), KEEP);
    const mine = recorder();
    const also = recorder();
    const subscription = await log.subscribe("visitor-a", mine.listener);
    const other = await log.subscribe("visitor-a", also.listener);
    const ids = [
      await log.append("visitor-a", message("m1", "Hel"), KEEP),
      await log.append("visitor-a", typing, KEEP),
      await log.append("visitor-b", message("m9", "someone else's"), KEEP),
      await log.append("visitor-a", message("m1", "Hello"), KEEP),
    ];
    await until(() => (mine.events.length >= 3 && also.events.length >= 3 ? true : undefined), 5_000);
    expect(mine.events.map((event) => event.id)).toEqual([ids[0], ids[1], ids[3]]);
    expect(texts(mine.events)).toEqual(["Hel", "…", "Hello"]);
    expect(also.events).toEqual(mine.events);
    expect(subscription.lost.aborted).toBe(false);
    subscription.close();
    await log.append("visitor-a", message("m2", "after close"), KEEP);
    await until(() => (also.events.length >= 4 ? true : undefined), 5_000);
    // Given time to arrive, had it been delivered.
    await sleep(300);
    expect(mine.events).toHaveLength(3);
    other.close();
  });

  it("ends its subscriptions with `lost` when the store closes", async () => {
    const store = await harness.open();
    const subscription = await store.visitorEvents.subscribe("visitor-a", () => {});
    await store.close();
    expect(subscription.lost.aborted).toBe(true);
  });

  it("keeps namespaces apart", async () => {
    const store = await open();
    const other = await open("other");
    const theirs = recorder();
    await other.visitorEvents.subscribe("visitor-a", theirs.listener);
    await store.visitorEvents.append("visitor-a", message("m1", "mine"), KEEP);
    expect(await other.visitorEvents.since("visitor-a", undefined)).toEqual([]);
    await sleep(300);
    expect(theirs.events).toEqual([]);
  });

  if (harness.shared) {
    it("shares the log between stores on one backend: ids increase across them, events reach the other's subscribers", async () => {
      const one = await open();
      const two = await open();
      const onTwo = recorder();
      const onOne = recorder();
      await two.visitorEvents.subscribe("visitor-a", onTwo.listener);
      await one.visitorEvents.subscribe("visitor-a", onOne.listener);
      const ids: number[] = [];
      for (const [n, store] of [one, two, one, two].entries()) {
        ids.push(await store.visitorEvents.append("visitor-a", message(`m${n}`, `from ${n}`), KEEP));
      }
      ids.push(await one.visitorEvents.append("visitor-a", typing, KEEP));
      expect([...ids].sort((a, b) => a - b)).toEqual(ids);
      expect(new Set(ids).size).toBe(ids.length);
      const expected = ["from 0", "from 1", "from 2", "from 3", "…"];
      await until(() => (onTwo.events.length >= 5 && onOne.events.length >= 5 ? true : undefined), 5_000);
      expect(texts(onTwo.events)).toEqual(expected);
      expect(texts(onOne.events)).toEqual(expected);
      expect(onTwo.events.map((event) => event.id)).toEqual(ids);
      expect(texts(await two.visitorEvents.since("visitor-a", ids[1]))).toEqual(["from 2", "from 3"]);
    });
  }
}
