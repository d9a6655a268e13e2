import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { PassSchedule } from "../../../src/features/alerts/pass-schedule.js";

beforeEach(() => {
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "performance"] });
});

afterEach(() => {
  vi.useRealTimers();
});

describe("alerts' pass schedule", () => {
  it("runs at once, then folds the changes heard during a pass into one more, a second after the last start", async () => {
    const schedule = new PassSchedule(60_000, 1_000);
    const stopping = new AbortController();
    let started = 0;
    const next = () => schedule.next(stopping.signal).then(() => started++);
    await next();
    expect(started).toBe(1);
    for (const _change of [1, 2, 3]) schedule.ask();
    void next();
    await vi.advanceTimersByTimeAsync(999);
    expect(started).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(started).toBe(2);
    // Nothing asked: the poll's interval.
    void next();
    await vi.advanceTimersByTimeAsync(30_000);
    expect(started).toBe(2);
    schedule.ask();
    await vi.advanceTimersByTimeAsync(0);
    expect(started).toBe(3);
    void next();
    await vi.advanceTimersByTimeAsync(59_999);
    expect(started).toBe(3);
    await vi.advanceTimersByTimeAsync(1);
    expect(started).toBe(4);
  });

  it("keeps a poll's interval shorter than the gap between asked passes", async () => {
    const schedule = new PassSchedule(100, 1_000);
    const stopping = new AbortController();
    let started = 0;
    await schedule.next(stopping.signal);
    void schedule.next(stopping.signal).then(() => started++);
    await vi.advanceTimersByTimeAsync(100);
    expect(started).toBe(1);
  });

  it("stops waiting when the duty is released", async () => {
    const schedule = new PassSchedule(60_000, 1_000);
    const stopping = new AbortController();
    await schedule.next(stopping.signal);
    const waiting = schedule.next(stopping.signal);
    stopping.abort();
    await expect(waiting).resolves.toBeUndefined();
  });
});
