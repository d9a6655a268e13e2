import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ChannelError, type ChannelLimits } from "../../../src/bridge/channel.js";
import { Pacer, type RateLimitNotice } from "../../../src/bridge/reply/pacer.js";
import { chat, drive, FakeChannel, TELEGRAM_LIMITS } from "./fake-channel.js";

/** Wall-clock time, captured before the fake timers replace `performance.now`. */
const wallClock = performance.now.bind(performance);

beforeEach(() => {
  vi.useFakeTimers({ now: 1_000_000 });
});
afterEach(() => {
  vi.useRealTimers();
});

/** The tests below check the bucket arithmetic exactly, so without the headroom for network jitter. */
const EXACT = { jitterMs: 0 };

const send = (channel: FakeChannel, id: number | string, text = "x", isGroup = false) => {
  const target = chat(id, isGroup);
  return () => channel.send(target, { text, format: "markdown" });
};

describe("Pacer", () => {
  it("keeps one chat within its budget: a burst, then one call per second", async () => {
    const channel = new FakeChannel();
    const pacer = new Pacer(channel, EXACT);
    const t0 = Date.now();
    const all = Promise.all(Array.from({ length: 8 }, () => pacer.schedule(chat(1), "final", send(channel, 1))));
    await drive(all);
    expect(channel.rateLimited).toBe(0);
    expect(channel.calls.map((call) => call.at - t0)).toEqual([0, 0, 0, 1000, 2000, 3000, 4000, 5000]);
  });

  it("leaves headroom for network jitter in each burst", async () => {
    const channel = new FakeChannel();
    const pacer = new Pacer(channel, { jitterMs: 200 });
    const t0 = Date.now();
    await drive(Promise.all(Array.from({ length: 4 }, () => pacer.schedule(chat(1), "final", send(channel, 1)))));
    // A burst of 3 at 1/s less 0.2 token: two calls at once, the third once 0.2 token has refilled.
    expect(channel.calls.map((call) => call.at - t0)).toEqual([0, 0, 200, 1200]);
  });

  it("keeps a group within the group budget", async () => {
    const channel = new FakeChannel();
    const pacer = new Pacer(channel, EXACT);
    const all = Promise.all(
      Array.from({ length: 6 }, () => pacer.schedule(chat(-5, true), "final", send(channel, -5, "x", true))),
    );
    await drive(all);
    expect(channel.rateLimited).toBe(0);
    const gaps = channel.calls.slice(3).map((call, k) => call.at - (channel.calls[k + 2]?.at ?? 0));
    for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(3000);
  });

  it("keeps the bot within its budget and serves finals first-in-first-out across chats", async () => {
    const channel = new FakeChannel();
    const pacer = new Pacer(channel, EXACT);
    const t0 = Date.now();
    const order: number[] = [];
    const all = Promise.all(
      Array.from({ length: 300 }, (_, i) =>
        pacer.schedule(chat(i), "final", async () => {
          order.push(i);
          return send(channel, i)();
        }),
      ),
    );
    await drive(all, 10);
    expect(channel.rateLimited).toBe(0);
    expect(order).toEqual(Array.from({ length: 300 }, (_, i) => i));
    // 30 at once, then 30 per second.
    expect((channel.calls.at(-1)?.at ?? 0) - t0).toBeLessThanOrEqual(9_000 + 50);
  });

  it("runs a final before updates waiting for the bot budget", async () => {
    const channel = new FakeChannel({ limits: { ...TELEGRAM_LIMITS, perBot: { perSecond: 2, burst: 2 } } });
    const pacer = new Pacer(channel, EXACT);
    const updates = Array.from({ length: 5 }, (_, i) => pacer.schedule(chat(i), "update", send(channel, i, "update")));
    const final = pacer.schedule(chat(99), "final", send(channel, 99, "final"));
    await drive(Promise.all([final, ...updates]));
    expect(channel.rateLimited).toBe(0);
    const texts = channel.calls.map((call) => call.text);
    // The first update took the one token the reserve allows; the final went next.
    expect(texts.slice(0, 2)).toEqual(["update", "final"]);
  });

  it("keeps a token for the final: updates wait while the chat is down to its reserve", async () => {
    const channel = new FakeChannel();
    const pacer = new Pacer(channel, EXACT);
    const stream = {};
    const t0 = Date.now();
    await pacer.schedule(chat(1), "update", send(channel, 1, "u1"), stream);
    await pacer.schedule(chat(1), "update", send(channel, 1, "u2"), stream);
    const third = pacer.schedule(chat(1), "update", send(channel, 1, "u3"), stream);
    await vi.advanceTimersByTimeAsync(10);
    expect(channel.calls).toHaveLength(2); // one token left: kept for a final
    const final = pacer.schedule(chat(1), "final", send(channel, 1, "final"));
    await vi.advanceTimersByTimeAsync(0);
    expect(channel.calls.map((call) => [call.text, call.at - t0])).toEqual([
      ["u1", 0],
      ["u2", 0],
      ["final", 10],
    ]);
    await drive(Promise.all([third, final]));
    expect(channel.rateLimited).toBe(0);
  });

  it("runs only the newest pending update of a stream, and a final replaces it", async () => {
    const channel = new FakeChannel({ limits: { ...TELEGRAM_LIMITS, perChat: { perSecond: 1, burst: 1 } } });
    const pacer = new Pacer(channel, EXACT);
    const stream = {};
    await pacer.schedule(chat(1), "final", send(channel, 1, "first"));
    const a = pacer.schedule(chat(1), "update", async () => "a", stream);
    const b = pacer.schedule(chat(1), "update", async () => "b", stream);
    const c = pacer.schedule(chat(1), "update", async () => "c", stream);
    expect(await a).toBeUndefined();
    expect(await b).toBeUndefined();
    expect(await drive(c)).toBe("c");

    const d = pacer.schedule(chat(1), "update", async () => "d", stream);
    const final = pacer.schedule(chat(1), "final", async () => "final", stream);
    expect(await d).toBeUndefined();
    expect(await drive(final)).toBe("final");
  });

  describe("drafts paced apart from messages (ChannelLimits.drafts)", () => {
    const DRAFTS = {
      perChat: { perSecond: 2, burst: 3 },
      perBot: { max: 50, windowMs: 1_000 },
      minIntervalMs: 500,
    };
    const WITH_DRAFTS: ChannelLimits = { ...TELEGRAM_LIMITS, drafts: DRAFTS };
    const draft = (channel: FakeChannel, id: number, text: string) => () =>
      channel.draft(chat(id), 1, { text, format: "markdown" });

    it("sends a draft at once when the chat's messages are spent, and a final at once when its drafts are", async () => {
      const channel = new FakeChannel({ limits: WITH_DRAFTS });
      const pacer = new Pacer(channel, EXACT);
      const t0 = Date.now();
      // Three finals spend the chat's burst of messages; a draft does not wait for the fourth second.
      for (let i = 0; i < 3; i++) await pacer.schedule(chat(1), "final", send(channel, 1, `final ${i}`));
      await pacer.schedule(chat(1), "update", draft(channel, 1, "d1"), {}, { operation: "draft" });
      await pacer.schedule(chat(2), "update", draft(channel, 2, "a"), {}, { operation: "draft" });
      await pacer.schedule(chat(2), "update", draft(channel, 2, "ab"), {}, { operation: "draft" });
      await pacer.schedule(chat(2), "update", draft(channel, 2, "abc"), {}, { operation: "draft" });
      // Chat 2's drafts are spent (burst 3, no reserve kept for finals that never use it); its final goes at once.
      await pacer.schedule(chat(2), "final", send(channel, 2, "final"));
      expect(channel.calls.map((call) => [call.text, call.at - t0])).toEqual([
        ["final 0", 0],
        ["final 1", 0],
        ["final 2", 0],
        ["d1", 0],
        ["a", 0],
        ["ab", 0],
        ["abc", 0],
        ["final", 0],
      ]);
      expect(channel.rateLimited).toBe(0);
    });

    it("keeps the drafts of many chats within the drafts' bot budget, not the messages' 30/s", async () => {
      const channel = new FakeChannel({ limits: WITH_DRAFTS });
      const pacer = new Pacer(channel, EXACT);
      const t0 = Date.now();
      const all = Promise.all(
        Array.from({ length: 120 }, (_, i) =>
          pacer.schedule(chat(i), "update", draft(channel, i, `draft ${i}`), {}, { operation: "draft" }),
        ),
      );
      await drive(all, 10);
      expect(channel.rateLimited).toBe(0);
      const times = channel.calls.map((call) => call.at - t0);
      // 50 at once, 50 more a second later, the rest a second after: not 30 a second.
      expect(times.filter((at) => at < 1_000)).toHaveLength(50);
      expect(times.filter((at) => at < 2_000)).toHaveLength(100);
      expect(Math.max(...times)).toBeLessThan(3_000);
    });

    it("sends a draft that opens an answer before the other chats' next drafts waiting for the bot", async () => {
      const channel = new FakeChannel({ limits: WITH_DRAFTS });
      const pacer = new Pacer(channel, EXACT);
      const t0 = Date.now();
      // 120 chats already reading their answers want their next draft: the bot's 50 a second are spoken for.
      const later = Array.from({ length: 120 }, (_, i) =>
        pacer.schedule(chat(i), "update", draft(channel, i, `next ${i}`), {}, { operation: "draft" }),
      );
      await vi.advanceTimersByTimeAsync(10);
      // A chat whose user has seen nothing yet, and one more later draft, arrive behind them.
      const opening = pacer.schedule(
        chat(500),
        "update",
        draft(channel, 500, "first"),
        {},
        {
          operation: "draft",
          opening: true,
        },
      );
      const last = pacer.schedule(chat(501), "update", draft(channel, 501, "next 501"), {}, { operation: "draft" });
      await drive(Promise.all([...later, opening, last]), 10);
      expect(channel.rateLimited).toBe(0);
      const at = (text: string) => (channel.calls.find((call) => call.text === text)?.at ?? Number.NaN) - t0;
      // The opening draft takes the first call of the next second, ahead of the 70 queued before it.
      expect(at("first")).toBeGreaterThanOrEqual(1_000);
      expect(at("first")).toBeLessThan(1_100);
      expect(channel.calls.filter((call) => call.at - t0 < at("first"))).toHaveLength(50);
      expect(at("next 501")).toBeGreaterThanOrEqual(2_000);
      expect(at("next 119")).toBeLessThanOrEqual(at("next 501"));
    });

    it("withdraws a pending draft with the stream, and a 429 on drafts pauses only the chat's drafts", async () => {
      const channel = new FakeChannel({ limits: WITH_DRAFTS });
      const pacer = new Pacer(channel, EXACT);
      const stream = {};
      channel.fail(
        (call) => call.method === "draft",
        () => new ChannelError("rate_limited", "Too Many Requests", 3_000),
      );
      expect(await pacer.schedule(chat(1), "update", draft(channel, 1, "x"), stream, { operation: "draft" })).toBe(
        undefined,
      );
      // Paused for 3 s: a draft now is dropped, while a message to the chat goes at once.
      expect(await pacer.schedule(chat(1), "update", draft(channel, 1, "y"), stream, { operation: "draft" })).toBe(
        undefined,
      );
      await pacer.schedule(chat(1), "final", send(channel, 1, "final"));
      const pending = pacer.schedule(chat(2), "update", async () => "late", stream, { operation: "draft" });
      pacer.drop(chat(2), stream);
      expect(await drive(pending)).toBeUndefined();
      expect(channel.calls.map((call) => [call.method, call.text, call.outcome])).toEqual([
        ["draft", "x", "rate_limited"],
        ["send", "final", "ok"],
      ]);
    });
  });

  it("withdraws a pending update on request", async () => {
    const channel = new FakeChannel({ limits: { ...TELEGRAM_LIMITS, perChat: { perSecond: 1, burst: 1 } } });
    const pacer = new Pacer(channel, EXACT);
    const stream = {};
    await pacer.schedule(chat(1), "final", send(channel, 1));
    const pending = pacer.schedule(chat(1), "update", async () => "late", stream);
    pacer.drop(chat(1), stream);
    expect(await pending).toBeUndefined();
  });

  it("shows typing only when the budget has room", async () => {
    const channel = new FakeChannel({ limits: { ...TELEGRAM_LIMITS, perBot: { perSecond: 1, burst: 3 } } });
    const pacer = new Pacer(channel, EXACT);
    const typing = async () => {
      await channel.typing(chat(1));
      return "typed";
    };
    expect(await pacer.schedule(chat(1), "typing", typing)).toBe("typed");
    await pacer.schedule(chat(2), "final", send(channel, 2));
    // One bot token left: it is the reserve.
    expect(await pacer.schedule(chat(1), "typing", typing)).toBeUndefined();
    expect(channel.calls.filter((call) => call.method === "typing")).toHaveLength(1);
  });

  it("spends only its own budget for an operation apart (Slack's status): the first text does not wait", async () => {
    // Slack-like: one call a second per conversation, no burst; the status has a budget of its own.
    const limits: ChannelLimits = {
      ...TELEGRAM_LIMITS,
      perChat: { perSecond: 0.9, burst: 1 },
      perOperation: { typing: { perSecond: 9, burst: 3 } },
      apart: ["typing"],
    };
    const channel = new FakeChannel({ limits, enforce: false });
    const pacer = new Pacer(channel, EXACT);
    const t0 = Date.now();
    const typing = () => channel.typing(chat(1)).then(() => true);
    expect(await pacer.schedule(chat(1), "typing", typing, undefined, { operation: "typing" })).toBe(true);
    await pacer.schedule(chat(1), "final", send(channel, 1, "first text"));
    expect(channel.calls.map((call) => [call.method, call.at - t0])).toEqual([
      ["typing", 0],
      ["send", 0],
    ]);
    // Without `apart` the status takes the conversation's one call, and the text waits for the next second.
    const shared = new FakeChannel({ limits: { ...limits, apart: undefined }, enforce: false });
    const sharedPacer = new Pacer(shared, EXACT);
    await sharedPacer.schedule(chat(1), "typing", () => shared.typing(chat(1)).then(() => true), undefined, {
      operation: "typing",
    });
    await drive(sharedPacer.schedule(chat(1), "final", send(shared, 1, "first text")));
    expect((shared.calls.at(-1)?.at ?? 0) - (shared.calls[0]?.at ?? 0)).toBeGreaterThanOrEqual(1_000);
  });

  it("waits out an unexpected rate limit and retries the final, however long", async () => {
    const notices: RateLimitNotice[] = [];
    const channel = new FakeChannel();
    const pacer = new Pacer(channel, { ...EXACT, onRateLimited: (notice) => notices.push(notice) });
    channel.fail(
      (call) => call.method === "send",
      () => new ChannelError("rate_limited", "Too Many Requests: retry after 90", 90_000),
    );
    const t0 = Date.now();
    const final = pacer.schedule(chat(1), "final", send(channel, 1, "must land"));
    await vi.advanceTimersByTimeAsync(1_000);
    const update = await pacer.schedule(chat(1), "update", send(channel, 1, "skipped"));
    expect(update).toBeUndefined(); // the chat is paused: intermediate text is not queued
    const sent = await drive(final, 1_000);
    expect(sent.id).toBeDefined();
    expect(channel.messagesIn("1").map((m) => m.text)).toEqual(["must land"]);
    expect((channel.calls.at(-1)?.at ?? 0) - t0).toBeGreaterThanOrEqual(90_000);
    expect(notices).toEqual([{ target: chat(1), priority: "final", retryAfterMs: 90_000, scope: "chat" }]);
  });

  it("drops an update that meets a rate limit", async () => {
    const channel = new FakeChannel();
    const pacer = new Pacer(channel, EXACT);
    channel.fail(
      () => true,
      () => new ChannelError("rate_limited", "Too Many Requests", 5_000),
    );
    expect(await pacer.schedule(chat(1), "update", send(channel, 1))).toBeUndefined();
    expect(channel.calls).toHaveLength(1);
  });

  it("pauses the whole bot when the platform says so", async () => {
    const channel = new FakeChannel();
    const pacer = new Pacer(channel, EXACT);
    channel.fail(
      (call) => call.chatId === "1",
      () => new ChannelError("rate_limited", "slow down", 10_000, { scope: "bot" }),
    );
    const t0 = Date.now();
    await drive(pacer.schedule(chat(1), "final", send(channel, 1)));
    await drive(pacer.schedule(chat(2), "final", send(channel, 2)));
    const other = channel.calls.find((call) => call.chatId === "2");
    expect((other?.at ?? 0) - t0).toBeGreaterThanOrEqual(10_000);
  });

  it("spends a sliding window exactly: `max` calls in each window, no fewer", async () => {
    const limits: ChannelLimits = { ...TELEGRAM_LIMITS, perBot: { max: 30, windowMs: 1_000 } };
    const channel = new FakeChannel({ limits });
    const pacer = new Pacer(channel, { ...EXACT, windowMarginMs: 0 });
    const t0 = Date.now();
    await drive(
      Promise.all(Array.from({ length: 90 }, (_, i) => pacer.schedule(chat(i), "final", send(channel, i)))),
      10,
    );
    expect(channel.rateLimited).toBe(0);
    const when = channel.calls.map((call) => call.at - t0);
    expect(when).toEqual([...Array(30).fill(0), ...Array(30).fill(1_000), ...Array(30).fill(2_000)]);
  });

  it("keeps each window a margin longer than the platform's", async () => {
    const limits: ChannelLimits = { ...TELEGRAM_LIMITS, perBot: { max: 2, windowMs: 1_000 } };
    const channel = new FakeChannel({ limits });
    const pacer = new Pacer(channel, { ...EXACT, windowMarginMs: 25 });
    const t0 = Date.now();
    await drive(
      Promise.all(Array.from({ length: 5 }, (_, i) => pacer.schedule(chat(i), "final", send(channel, i)))),
      5,
    );
    expect(channel.calls.map((call) => call.at - t0)).toEqual([0, 0, 1_025, 1_025, 2_050]);
  });

  it("moves a call answered late in its window, so the calls after it keep their distance", async () => {
    const limits: ChannelLimits = { ...TELEGRAM_LIMITS, perBot: { max: 2, windowMs: 1_000 } };
    // Every answer comes 300 ms after the call: the call may have reached the platform that late.
    const channel = new FakeChannel({ limits, latencyMs: 300 });
    const pacer = new Pacer(channel, { ...EXACT, windowMarginMs: 10 });
    const t0 = Date.now();
    await drive(
      Promise.all(Array.from({ length: 4 }, (_, i) => pacer.schedule(chat(i), "final", send(channel, i)))),
      5,
    );
    // The first two count from 290 ms (300 less the margin), so the next two go at 290 + 1,000 + 10.
    expect(channel.calls.map((call) => call.at - t0)).toEqual([0, 0, 1_300, 1_300]);
  });

  it("reports how long each final and update waited for its budgets", async () => {
    const limits: ChannelLimits = { ...TELEGRAM_LIMITS, perBot: { max: 1, windowMs: 1_000 } };
    const channel = new FakeChannel({ limits });
    const waits: string[] = [];
    const pacer = new Pacer(channel, {
      ...EXACT,
      windowMarginMs: 0,
      onBudgetWait: ({ priority, waitedMs }) => waits.push(`${priority} ${waitedMs}`),
    });
    const finals = [1, 2].map((i) => pacer.schedule(chat(i), "final", send(channel, i)));
    const update = pacer.schedule(chat(3), "update", send(channel, 3));
    await drive(Promise.all([...finals, update]), 10);
    expect(waits).toEqual(["final 0", "final 1000", "update 2000"]);
  });

  it("passes other errors to the caller", async () => {
    const channel = new FakeChannel();
    const pacer = new Pacer(channel, EXACT);
    channel.fail(
      () => true,
      () => new ChannelError("rejected", "bot was blocked by the user"),
    );
    await expect(pacer.schedule(chat(1), "final", send(channel, 1))).rejects.toMatchObject({ kind: "rejected" });
  });

  it("serves 1,000 conversations with one timer per waiting budget, and forgets idle chats", async () => {
    const limits: ChannelLimits = { ...TELEGRAM_LIMITS };
    const channel = new FakeChannel({ limits });
    const pacer = new Pacer(channel, EXACT);
    const started = wallClock();
    const finals = Array.from({ length: 1_000 }, (_, i) => pacer.schedule(chat(i), "final", send(channel, i)));
    const updates = Array.from({ length: 1_000 }, (_, i) =>
      pacer.schedule(chat(i), "update", send(channel, i, "u"), `s${i}`),
    );
    // Every chat is ready; they all wait for the bot budget under a single timer.
    expect(vi.getTimerCount()).toBeLessThanOrEqual(1);
    await drive(Promise.all([...finals, ...updates]), 100);
    expect(channel.rateLimited).toBe(0);
    expect(channel.messages.filter((m) => m.text === "x")).toHaveLength(1_000);
    expect(wallClock() - started).toBeLessThan(5_000); // the pacing itself is cheap
    await vi.advanceTimersByTimeAsync(10_000);
    await pacer.schedule(chat("new"), "final", send(channel, "new"));
    expect(pacer.trackedChats).toBeLessThanOrEqual(1);
  });
});
