import { createClient } from "@keyv/redis";
import { afterEach, describe, expect, it } from "vitest";
import { ChannelError, type ChannelLimits } from "../../../src/bridge/channel.js";
import { RedisBudgets } from "../../../src/bridge/reply/budgets/redis-budgets.js";
import { Pacer } from "../../../src/bridge/reply/pacer.js";
import { deleteRedisKeys, freshRedisNamespace, redisForTests, TEST_REDIS_URL } from "../../support/redis.js";
import { until } from "../../support/waiting.js";
import { chat, FakeChannel } from "./fake-channel.js";

const redis = await redisForTests();

const PLENTY = { perSecond: 1_000, burst: 1_000 };
const limitsWith = (perBot: ChannelLimits["perBot"]): ChannelLimits => ({
  perChat: PLENTY,
  perGroup: PLENTY,
  perBot,
  minUpdateIntervalMs: { private: 0, group: 0 },
});

const opened: { close(): Promise<unknown> }[] = [];
let namespace = "";
afterEach(async () => {
  await Promise.all(opened.splice(0).map((client) => client.close()));
  if (namespace) await deleteRedisKeys(namespace);
});

/**
 * Two bridge processes pacing one bot, as far as the pacer can tell: each pacer has its own channel (recording
 * every call at real time, enforcing nothing) and its own Redis connection on one namespace.
 */
async function twoProcesses(limits: ChannelLimits, windowMarginMs = 20) {
  namespace = freshRedisNamespace();
  return Promise.all(
    [0, 1].map(async () => {
      const client = createClient({ url: TEST_REDIS_URL });
      await client.connect();
      opened.push(client);
      const channel = new FakeChannel({ limits, enforce: false });
      const budgets = new RedisBudgets(client, namespace).forChannel("fake", "bot");
      return { channel, pacer: new Pacer(channel, { budgets, windowMarginMs }) };
    }),
  ) as Promise<[{ channel: FakeChannel; pacer: Pacer }, { channel: FakeChannel; pacer: Pacer }]>;
}

/** The most of `times` in any window of `windowMs` (a call at t counts until t + windowMs, excluded). */
function busiest(times: number[], windowMs: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  for (let start = 0, end = 0; end < sorted.length; end++) {
    while ((sorted[start] ?? 0) <= (sorted[end] ?? 0) - windowMs) start++;
    most = Math.max(most, end - start + 1);
  }
  return most;
}

const send =
  (channel: FakeChannel, id: number | string, text = "x") =>
  () =>
    channel.send(chat(id), { text, format: "plain" });

describe.skipIf(!redis.available)("pacers of several processes on one Redis", () => {
  it("never put more than `max` calls in any window between them", async () => {
    const [a, b] = await twoProcesses(limitsWith({ max: 10, windowMs: 300 }));
    const finals = [a, b].flatMap(({ channel, pacer }, k) =>
      Array.from({ length: 30 }, (_, i) => pacer.schedule(chat(k * 100 + i), "final", send(channel, k * 100 + i))),
    );
    await Promise.all(finals);
    const times = [...a.channel.calls, ...b.channel.calls].map((call) => call.at);
    expect(times).toHaveLength(60);
    expect(a.channel.calls.length).toBe(30);
    expect(busiest(times, 300)).toBeLessThanOrEqual(10);
    // Sixty calls at ten a window cannot take less than five windows after the first ten.
    expect(Math.max(...times) - Math.min(...times)).toBeGreaterThanOrEqual(5 * 300);
  });

  it("pause everywhere when one of them meets a rate limit, and drop updates meanwhile", async () => {
    const [a, b] = await twoProcesses(limitsWith({ max: 100, windowMs: 1_000 }));
    a.channel.fail(
      (call) => call.method === "send",
      () => new ChannelError("rate_limited", "Too Many Requests: retry after 1", 600, { scope: "bot" }),
    );
    const limited = a.pacer.schedule(chat(1), "final", send(a.channel, 1, "retried"));
    await until(() => a.channel.rateLimited === 1 || undefined);
    const refusedAt = a.channel.calls[0]?.at ?? 0;
    expect(await b.pacer.schedule(chat(2), "update", send(b.channel, 2, "update"))).toBeUndefined();
    await b.pacer.schedule(chat(3), "final", send(b.channel, 3, "final"));
    await limited;
    expect(b.channel.calls.map((call) => call.text)).toEqual(["final"]);
    expect((b.channel.calls[0]?.at ?? 0) - refusedAt).toBeGreaterThanOrEqual(600 - 2);
    expect((a.channel.calls[1]?.at ?? 0) - refusedAt).toBeGreaterThanOrEqual(600 - 2);
  });

  it("let the finals waiting in one go before the updates of the other", async () => {
    const [a, b] = await twoProcesses(limitsWith({ max: 5, windowMs: 300 }));
    const finals = Array.from({ length: 15 }, (_, i) =>
      a.pacer.schedule(chat(i), "final", send(a.channel, i, "final")),
    );
    // The window is full and finals wait in the first process: the second one's updates must not take their room.
    await until(() => a.channel.calls.length === 5 || undefined);
    const updates = Array.from({ length: 5 }, (_, i) =>
      b.pacer.schedule(chat(100 + i), "update", send(b.channel, 100 + i, "update"), `stream ${i}`),
    );
    await Promise.all([...finals, ...updates]);
    const lastFinal = Math.max(...a.channel.calls.map((call) => call.at));
    const firstUpdate = Math.min(...b.channel.calls.map((call) => call.at));
    expect(a.channel.calls).toHaveLength(15);
    expect(b.channel.calls.length).toBeGreaterThan(0);
    expect(firstUpdate).toBeGreaterThanOrEqual(lastFinal);
  });

  it("fail a final with a transient error, and skip updates and typing, when Redis cannot be reached", async () => {
    namespace = freshRedisNamespace();
    const client = createClient({ url: TEST_REDIS_URL });
    await client.connect();
    const channel = new FakeChannel({ limits: limitsWith({ max: 10, windowMs: 1_000 }), enforce: false });
    const pacer = new Pacer(channel, { budgets: new RedisBudgets(client, namespace).forChannel("fake", "bot") });
    await client.close();
    await expect(pacer.schedule(chat(1), "final", send(channel, 1))).rejects.toMatchObject({ kind: "transient" });
    expect(await pacer.schedule(chat(2), "update", send(channel, 2))).toBeUndefined();
    expect(await pacer.schedule(chat(3), "typing", send(channel, 3))).toBeUndefined();
    expect(channel.calls).toEqual([]);
  });
});
