import { tmpdir } from "node:os";
import { afterEach, describe, expect, it } from "vitest";
import type { AnswerStep } from "../../src/bridge/answer-step.js";
import { Bridge } from "../../src/bridge/bridge.js";
import { type AnswerSteps, type Feature, stepOf } from "../../src/bridge/feature.js";
import { createBridgeMetrics } from "../../src/bridge/metrics.js";
import { ask } from "../../src/bridge/steps/ask.js";
import type { BridgeStore } from "../../src/bridge/store/bridge-store.js";
import { openBridgeStore } from "../../src/bridge/store/open-bridge-store.js";
import { createLogger } from "../../src/common/log.js";
import { loadConfig } from "../../src/config/config.js";

const config = loadConfig({}, { envFile: undefined }).bridge;
let store: BridgeStore | undefined;
afterEach(async () => {
  await store?.close();
  store = undefined;
});

async function bridgeWith(steps: AnswerSteps): Promise<Bridge> {
  store = await openBridgeStore({ url: "memory://", dataDir: tmpdir(), namespace: "features" });
  return new Bridge({
    store,
    config,
    chatbots: [],
    log: createLogger("silent"),
    metrics: createBridgeMetrics(),
    steps,
  });
}

const step = (name: string): AnswerStep => ({ name, handle: async () => "next" });

describe("the features a step list names", () => {
  it("opens each once, a used feature before its user, and gathers their apis and passes", async () => {
    const opened: string[] = [];
    const pass = { start() {}, stop: async () => {} };
    const base: Feature<{ answer: number }> = {
      name: "base",
      open() {
        opened.push("base");
        return { api: { answer: 42 }, steps: { "base-step": step("base-step") }, passes: [pass] };
      },
    };
    const user: Feature<number> = {
      name: "user",
      open(context) {
        const { answer } = context.use(base);
        opened.push("user");
        return { api: answer + 1, steps: { "user-step": step("user-step") } };
      },
    };
    const bridge = await bridgeWith({
      answer: [stepOf(user, "user-step"), stepOf(base, "base-step"), ask],
      afterAnswer: [],
    });
    expect(opened).toEqual(["base", "user"]);
    expect(bridge.api(user)).toBe(43);
    expect(bridge.api(base)).toEqual({ answer: 42 });
    expect(bridge.passes).toEqual([pass]);
  });

  it("refuses a step list that names a step its feature has not", async () => {
    const none: Feature<undefined> = { name: "none", open: () => ({ api: undefined, steps: {} }) };
    await expect(bridgeWith({ answer: [stepOf(none, "missing"), ask], afterAnswer: [] })).rejects.toThrow(
      "the step list names step missing of feature none, which has none such",
    );
    await expect(bridgeWith({ answer: [ask], afterAnswer: [stepOf(none, "after")] })).rejects.toThrow(
      "the step list names after-answer step after of feature none, which has none such",
    );
  });

  it("refuses features that use each other, and two jobs of one kind of work", async () => {
    const a: Feature<undefined> = {
      name: "a",
      open(context) {
        context.use(b);
        return { api: undefined, steps: { a: step("a") } };
      },
    };
    const b: Feature<undefined> = {
      name: "b",
      open(context) {
        context.use(a);
        return { api: undefined };
      },
    };
    await expect(bridgeWith({ answer: [stepOf(a, "a"), ask], afterAnswer: [] })).rejects.toThrow(
      "feature a uses itself through a → b",
    );
    const job = async () => {};
    const first: Feature<undefined> = {
      name: "first",
      open: () => ({ api: undefined, steps: { s: step("s") }, jobs: { chore: job } }),
    };
    const second: Feature<undefined> = {
      name: "second",
      open: () => ({ api: undefined, steps: { t: step("t") }, jobs: { chore: job } }),
    };
    await expect(
      bridgeWith({ answer: [stepOf(first, "s"), stepOf(second, "t"), ask], afterAnswer: [] }),
    ).rejects.toThrow("feature second: work of kind chore has a job already");
  });
});
