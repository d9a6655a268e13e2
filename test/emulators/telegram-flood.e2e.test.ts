import { describe, expect, it } from "vitest";
import type { EmulatorLimits } from "./telegram.js";
import { FloodControl, retryAfterSeconds } from "./telegram-flood.js";

const LIMITS: EmulatorLimits = {
  privateChat: { perSecond: 1, burst: 4 },
  group: { max: 20, windowMs: 60_000 },
  bot: { max: 30, windowMs: 1_000 },
  maxTextLength: 4096,
  drafts: { perChat: { perSecond: 2, burst: 3 }, bot: { max: 300, windowMs: 1_000 } },
};

/** Charges a call at `at` when it fits, as the emulator does; returns the wait otherwise. */
function call(flood: FloodControl, chatId: number, at: number): number {
  const wait = flood.waitMs(chatId, at);
  if (wait === 0) flood.count(chatId, at);
  return wait;
}

describe("Telegram emulator flood control, on exact arrival times", () => {
  it("lets the bot make 30 calls in any 1,000 ms, counting a call until 1,000 ms after it arrived", () => {
    const flood = new FloodControl(LIMITS);
    for (let i = 0; i < 30; i++) expect(call(flood, 1_000 + i, 100 + i)).toBe(0);
    expect(call(flood, 2_000, 999.5)).toBeCloseTo(100.5);
    // The first call leaves the window at 1,100 exactly: one more fits then, not two.
    expect(call(flood, 2_000, 1_100)).toBe(0);
    expect(call(flood, 2_001, 1_100)).toBe(1);
    expect(call(flood, 2_001, 1_101)).toBe(0);
  });

  it("does not count refused calls", () => {
    const flood = new FloodControl(LIMITS);
    for (let i = 0; i < 30; i++) call(flood, 1_000 + i, 0);
    for (let i = 0; i < 10; i++) expect(call(flood, 2_000 + i, 500)).toBeGreaterThan(0);
    for (let i = 0; i < 30; i++) expect(call(flood, 3_000 + i, 1_000)).toBe(0);
  });

  it("gives a private chat 4 calls at once, then one a second", () => {
    const flood = new FloodControl(LIMITS);
    for (let i = 0; i < 4; i++) expect(call(flood, 42, 0)).toBe(0);
    expect(call(flood, 42, 500)).toBe(500);
    expect(call(flood, 42, 1_000)).toBe(0);
    expect(call(flood, 42, 1_000)).toBe(1_000);
  });

  it("lets a group have 20 calls in any minute", () => {
    const flood = new FloodControl(LIMITS);
    for (let i = 0; i < 20; i++) expect(call(flood, -100, i * 1_000)).toBe(0);
    expect(call(flood, -100, 59_999)).toBe(1);
    expect(call(flood, -100, 60_000)).toBe(0);
    expect(call(flood, -100, 60_000)).toBe(1_000);
  });

  it("answers retry_after in whole seconds, at least one", () => {
    expect([1, 999, 1_000, 1_001, 59_001].map(retryAfterSeconds)).toEqual([1, 1, 1, 2, 60]);
  });
});
