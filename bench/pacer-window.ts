/**
 * The pacer alone against the Telegram emulator (30 calls in any 1,000 ms per bot, by arrival; 429 past it), with
 * no bridge around it: N chats get one final each at once ("short answers"), then N chats stream drafts every
 * 250 ms for 2 s before their final ("streams"). Each pacer sends through a real TelegramChannel; with --redis the
 * budgets are in the local Redis, shared by --instances pacers (each with its own Redis connection and HTTP
 * client, as separate processes would have). Reports, per N and scenario: finals delivered, 429s, the time from
 * the first to the last final against the least the 30-in-any-second limit allows, the most calls in any 1,000 ms
 * by arrival, the budget store's round trips per call, and how much later than the pacer started them calls
 * reached the emulator.
 * Run: npx tsx bench/pacer-window.ts [N ...] [--redis] [--instances K] [--margin MS]   (default 1000; not a test)
 */
import { randomBytes } from "node:crypto";
import { performance } from "node:perf_hooks";
import { createClient } from "@keyv/redis";
import { TelegramChannel } from "../adapters/telegram/outbound.js";
import type { ReplyTarget } from "../src/bridge/inbound.js";
import type { ChannelBudgets } from "../src/bridge/reply/budgets/budget-store.js";
import { LocalBudgets } from "../src/bridge/reply/budgets/local-budgets.js";
import { RedisBudgets } from "../src/bridge/reply/budgets/redis-budgets.js";
import { Pacer } from "../src/bridge/reply/pacer.js";
import { TelegramEmulator } from "../test/emulators/telegram.js";
import { percentile, waitFor } from "./support/streamed-answers.js";

const BOT_MAX = 30;
const BOT_WINDOW_MS = 1_000;
const REDIS_URL = "redis://127.0.0.1:6379";

const argv = process.argv.slice(2);
const option = (name: string) => {
  const at = argv.indexOf(name);
  return at < 0 ? undefined : argv[at + 1];
};
const useRedis = argv.includes("--redis");
const instances = Number(option("--instances") ?? 1);
const margin = option("--margin");
const sizes = argv.filter((arg, k) => /^\d+$/.test(arg) && !["--instances", "--margin"].includes(argv[k - 1] ?? ""));
const rounds = sizes.length > 0 ? sizes.map(Number) : [1000];

const TOKEN = "123456789:AAbench-token-of-the-emulator_01";
const telegram = await TelegramEmulator.start({ token: TOKEN });
const namespace = `chatbridge_bench_${randomBytes(4).toString("hex")}`;
async function connectRedis() {
  const client = createClient({ url: REDIS_URL });
  await client.connect();
  return client;
}
const redisClients: Awaited<ReturnType<typeof connectRedis>>[] = [];
const local = new LocalBudgets();
/** Round trips to the budget store: spends (each a batch), calls asked for in them, and late calls moved. */
const trips = { spends: 0, asked: 0, late: 0 };

/** The budgets, counting what is asked of them. */
function counted(budgets: ChannelBudgets): ChannelBudgets {
  return {
    spend: (requests) => {
      trips.spends += 1;
      trips.asked += requests.length;
      return budgets.spend(requests);
    },
    pause: (charges, ms) => budgets.pause(charges, ms),
    late: (charges, stamp, ms) => {
      trips.late += 1;
      return budgets.late(charges, stamp, ms);
    },
  };
}

/** One pacer per instance, each with its own channel (HTTP client) and, on Redis, its own connection. */
async function pacers(): Promise<{ pacer: Pacer; channel: TelegramChannel }[]> {
  return Promise.all(
    Array.from({ length: instances }, async () => {
      const channel = new TelegramChannel({ token: TOKEN, apiRoot: telegram.url });
      let budgets: ChannelBudgets = local.forChannel("telegram", "default");
      if (useRedis) {
        const client = await connectRedis();
        redisClients.push(client);
        budgets = new RedisBudgets(client, namespace).forChannel("telegram", "default");
      }
      const options = { budgets: counted(budgets), ...(margin !== undefined && { windowMarginMs: Number(margin) }) };
      return { pacer: new Pacer(channel, options), channel };
    }),
  );
}

let nextChat = 5_000_000;
const ms = (value: number) => `${Math.round(value)} ms`;

/** The most calls that arrived in any window of `windowMs` (a window ends just before its last call + windowMs). */
function busiestWindow(times: number[], windowMs: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  for (let start = 0, end = 0; end < sorted.length; end++) {
    while ((sorted[start] ?? 0) <= (sorted[end] ?? 0) - windowMs) start++;
    most = Math.max(most, end - start + 1);
  }
  return most;
}

async function scenario(name: string, n: number, streamMs: number): Promise<void> {
  const instancesNow = await pacers();
  const chats = Array.from({ length: n }, () => nextChat++);
  telegram.reset();
  Object.assign(trips, { spends: 0, asked: 0, late: 0 });
  /** performance.now() when the pacer started each call, by chat and text: arrival minus this is the jitter. */
  const started = new Map<string, number>();
  const track =
    <T>(key: string, call: () => Promise<T>) =>
    () => {
      started.set(key, performance.now());
      return call();
    };
  const begin = performance.now();
  const finals = chats.map(async (chat, k) => {
    const { pacer, channel } = instancesNow[k % instances] as { pacer: Pacer; channel: TelegramChannel };
    const target: ReplyTarget = { chatId: String(chat), isGroup: false };
    const stream = {};
    for (let at = 0, draft = 1; at < streamMs; at += 250, draft++) {
      const text = { text: `Draft ${draft} for ${chat}`, format: "plain" as const };
      void pacer.schedule(
        target,
        "update",
        track(`${chat}:${text.text}`, () => channel.draft(target, 1, text)),
        stream,
      );
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    const text = { text: `Answer for ${chat}`, format: "plain" as const };
    return pacer.schedule(
      target,
      "final",
      track(`${chat}:${text.text}`, () => channel.send(target, text)),
      stream,
    );
  });
  const settled = await Promise.allSettled(finals);
  await waitFor(() => false, 200);
  const delivered = chats.filter((chat) => telegram.messagesIn(chat).some((m) => m.text === `Answer for ${chat}`));
  const ok = telegram.calls.filter((call) => call.ok && call.method !== "getMe");
  const finalCalls = ok.filter((call) => call.method === "sendMessage").map((call) => call.at);
  const firstFinal = begin + streamMs;
  const lastFinal = Math.max(...finalCalls);
  const least = Math.floor((n - 1) / BOT_MAX) * BOT_WINDOW_MS;
  const jitter = ok.flatMap((call) => {
    const at = started.get(`${call.params.chat_id}:${call.params.text}`);
    return at === undefined ? [] : [call.at - at];
  });
  const failed = settled.filter((result) => result.status === "rejected").length;
  console.log(
    [
      `N=${n} ${name}: ${delivered.length}/${n} finals delivered${failed ? ` (${failed} failed)` : ""}, ${telegram.rateLimited().length} × 429, ${ok.length - finalCalls.length} drafts`,
      `  finals from ${ms(firstFinal - begin)} to ${ms(lastFinal - begin)}: ${ms(lastFinal - firstFinal)}; least the 30-in-any-second limit allows ${ms(least)}` +
        (least > 0 ? `; ratio ${((lastFinal - firstFinal) / least).toFixed(3)}` : ""),
      `  most calls in any 1000 ms by arrival: ${busiestWindow(
        ok.map((call) => call.at),
        BOT_WINDOW_MS,
      )}`,
      `  budget store: ${trips.spends} spends asking for ${trips.asked} calls, ${trips.late} late calls moved (${((trips.spends + trips.late) / ok.length).toFixed(2)} round trips per call made)`,
      `  start → arrival: p50 ${(percentile(jitter, 50) ?? 0).toFixed(1)} ms, p99 ${(percentile(jitter, 99) ?? 0).toFixed(1)} ms, max ${Math.max(...jitter).toFixed(1)} ms, min ${Math.min(...jitter).toFixed(1)} ms`,
    ].join("\n"),
  );
}

console.log(
  `pacer → Telegram emulator: ${instances} pacer${instances > 1 ? "s" : ""} on ${useRedis ? "Redis" : "local"} budgets` +
    (margin === undefined ? "" : `, window margin ${margin} ms`),
);
for (const n of rounds) {
  await scenario("short answers at once", n, 0);
  await new Promise((resolve) => setTimeout(resolve, 1_100));
  await scenario("streams of drafts, then finals", n, 2_000);
  await new Promise((resolve) => setTimeout(resolve, 1_100));
}
await telegram.close();
for (const client of redisClients) {
  for await (const keys of client.scanIterator({ MATCH: `${namespace}:*`, COUNT: 500 })) {
    if (keys.length > 0) await client.del(keys);
  }
  await client.close();
}
