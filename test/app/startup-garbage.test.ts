import { describe, expect, it } from "vitest";
import { collectStartupGarbage } from "../../src/app/startup-garbage.js";

describe("collectStartupGarbage", () => {
  it("frees what nothing holds any more, at once", async () => {
    const garbage = (() => new WeakRef({ rows: Array.from({ length: 10_000 }, (_, n) => ({ n })) }))();
    // A WeakRef's target is kept until the job that made it ends.
    await new Promise((resolve) => setImmediate(resolve));
    expect(garbage.deref()).toBeDefined();
    await collectStartupGarbage();
    expect(garbage.deref()).toBeUndefined();
  });
});
