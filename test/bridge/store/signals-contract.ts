import { setTimeout as sleep } from "node:timers/promises";
import { expect, it } from "vitest";
import { until } from "../../support/waiting.js";
import { type StoreHarness, storesOf } from "./contract.js";

/** Long enough for a signal that was going to arrive to have arrived (SQLite polls every 250 ms). */
const SETTLE_MS = 700;

/** Collects what a subscription hears. */
function recorder() {
  const heard: string[] = [];
  return { heard, listener: (message: string) => heard.push(message) };
}

/** The behaviour of every backend's signals (`store.signals`); call inside a `describe`. */
export function signalsContract(harness: StoreHarness): void {
  const open = storesOf(harness);

  it("delivers a signal to its topic's listeners in the publishing process, in order, and not to other topics", async () => {
    const store = await open();
    const stops = recorder();
    const others = recorder();
    const stopping = store.signals.subscribe("stop", stops.listener);
    store.signals.subscribe("other", others.listener);
    await stopping.live;
    for (const message of ["first", "second", "third"]) await store.signals.publish("stop", message);
    await until(() => (stops.heard.length >= 3 ? true : undefined));
    await sleep(SETTLE_MS);
    expect(stops.heard).toEqual(["first", "second", "third"]);
    expect(others.heard).toEqual([]);
  });

  it("stops delivering to a listener that unsubscribed, while the others of the topic keep hearing", async () => {
    const store = await open();
    const leaving = recorder();
    const staying = recorder();
    const left = store.signals.subscribe("stop", leaving.listener);
    await store.signals.subscribe("stop", staying.listener).live;
    await store.signals.publish("stop", "before");
    await until(() => (leaving.heard.length > 0 && staying.heard.length > 0 ? true : undefined));
    left.unsubscribe();
    await store.signals.publish("stop", "after");
    await until(() => (staying.heard.length >= 2 ? true : undefined));
    await sleep(SETTLE_MS);
    expect(leaving.heard).toEqual(["before"]);
    expect(staying.heard).toEqual(["before", "after"]);
  });

  it("reports a listener that throws on keyv's error event, and still delivers to the others", async () => {
    const store = await open();
    const errors: unknown[] = [];
    store.keyv.on("error", (error: unknown) => errors.push(error));
    const listening = recorder();
    store.signals.subscribe("stop", () => {
      throw new Error("a broken listener");
    });
    await store.signals.subscribe("stop", listening.listener).live;
    await store.signals.publish("stop", "heard anyway");
    await until(() => (listening.heard.length > 0 ? true : undefined));
    expect(errors).toEqual([expect.objectContaining({ message: "a broken listener" })]);
  });

  it("refuses to publish or subscribe once the store is closed, and delivers nothing more to its listeners", async () => {
    const store = await open();
    const listening = recorder();
    await store.signals.subscribe("stop", listening.listener).live;
    await store.close();
    await expect(store.signals.publish("stop", "too late")).rejects.toThrow();
    expect(() => store.signals.subscribe("stop", () => {})).toThrow();
    expect(listening.heard).toEqual([]);
  });

  if (!harness.shared) return;

  it("delivers a signal published by another store on the same backend and namespace, and to the publisher's own", async () => {
    const [publisher, listener] = [await open(), await open()];
    const there = recorder();
    const here = recorder();
    await listener.signals.subscribe("stop", there.listener).live;
    await publisher.signals.subscribe("stop", here.listener).live;
    for (const message of ["one", "two", "three"]) await publisher.signals.publish("stop", message);
    await until(() => (there.heard.length >= 3 && here.heard.length >= 3 ? true : undefined));
    await sleep(SETTLE_MS);
    expect(there.heard).toEqual(["one", "two", "three"]);
    expect(here.heard).toEqual(["one", "two", "three"]);
  });

  it("delivers only what was published after the subscription, and nothing across namespaces", async () => {
    const [publisher, listener, elsewhere] = [await open(), await open(), await open("elsewhere")];
    await publisher.signals.publish("stop", "before anyone listened");
    const there = recorder();
    const apart = recorder();
    await listener.signals.subscribe("stop", there.listener).live;
    await elsewhere.signals.subscribe("stop", apart.listener).live;
    await publisher.signals.publish("stop", "after");
    await until(() => (there.heard.length > 0 ? true : undefined));
    await sleep(SETTLE_MS);
    expect(there.heard).toEqual(["after"]);
    expect(apart.heard).toEqual([]);
  });

  it("a closed store's listeners hear nothing more, while the other stores keep hearing", async () => {
    const [publisher, closing, staying] = [await open(), await open(), await open()];
    const gone = recorder();
    const kept = recorder();
    await closing.signals.subscribe("stop", gone.listener).live;
    await staying.signals.subscribe("stop", kept.listener).live;
    await publisher.signals.publish("stop", "both");
    await until(() => (gone.heard.length > 0 && kept.heard.length > 0 ? true : undefined));
    await closing.close();
    await publisher.signals.publish("stop", "only the open one");
    await until(() => (kept.heard.length >= 2 ? true : undefined));
    await sleep(SETTLE_MS);
    expect(gone.heard).toEqual(["both"]);
    expect(kept.heard).toEqual(["both", "only the open one"]);
  });
}
