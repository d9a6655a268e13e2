/**
 * N conversations at once through `chatbridge start` in webhook mode, against the Telegram emulator (which enforces
 * the Bot API's limits and answers 429 past them) and a scripted chatbot streaming 1,000-character answers in 50
 * fragments over 5 s. Each conversation was greeted in a warm-up round, so the measured round is one question and
 * one streamed answer per conversation. Reports, per N: answers delivered whole, 429s, time from the webhook post and
 * from the chatbot's first fragment to the first visible text, the users who saw no text before their final message,
 * delay from the upstream's last byte to the final text on Telegram, Telegram calls per answer, webhook
 * acknowledgements per second, memory (resident at boot and at peak, heap per conversation), and the total delivery
 * time against the least the per-bot limit (30 messages/s) allows: 5 s of streaming, then one final message per
 * answer at 30/s.
 * chatbridge runs in processes of its own, as in production (their memory is read from their /metrics); the
 * emulator and the chatbot run in this one.
 *
 * By default one instance (role all) on SQLite takes every webhook. Options:
 * - `--instances K`: K instances (role all) on one Redis (redis://127.0.0.1:6379/11, a fresh STORE_NAMESPACE per
 *   run, its keys deleted at the end), the webhook posts spread round-robin over them as a load balancer would;
 * - `--web K --workers M`: K instances of role web, which take the webhooks (round-robin), and M of role worker,
 *   which answer, on that Redis;
 * - `--kill-at S`: in each measured round, S seconds after the first post, `kill -9` the first instance that answers
 *   (role all or worker) and start it again at once, as a supervisor would (same port, DATA_DIR and store); posts
 *   it misses go to the next instance, or are retried until it is back. Prints the answers lost, duplicated and
 *   half-finished (each chat must end with exactly one message, the whole answer) and the questions asked upstream
 *   twice. Works on SQLite with the one instance, and on Redis with K.
 * - `--live-heap-at S`: with the one instance, the heap in use after a full garbage collection (forced through the
 *   inspector, on loopback) before the measured round and S seconds into it, divided by the conversations then
 *   waiting for their whole answer (streaming upstream, or complete and waiting for the per-bot limit to send it):
 *   what a conversation under way holds, without the garbage of the moment (the collection pauses the bridge for a
 *   moment at S); the same for the memory outside the heap (array buffers). The answers still streaming upstream
 *   are printed alongside. Before the rounds, 20 conversations are answered once, so that the code an answer runs
 *   is compiled before the heap is read.
 * - `--heap-snapshot PATH` (with `--live-heap-at`): also writes a heap snapshot at that moment, after the
 *   collection, to PATH.N.heapsnapshot for the round of N, and one before the round to PATH.N.before.heapsnapshot
 *   (open both in Chrome DevTools' Memory tab and compare them).
 * With several instances, the heap per conversation is summed over all of them; after a kill it is not measured.
 * WORK_LEASE_MS in the environment is passed to the instances (default 15000, chatbridge's own).
 *
 * Run: npx tsx bench/telegram-bridge.ts [--instances K | --web K --workers M] [--kill-at S] [--live-heap-at S
 * [--heap-snapshot PATH]] [N ...]
 *      (default N: 1 100 1000; not a test)
 */
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { TelegramEmulator } from "../test/emulators/telegram.js";
import { describeTally, tallyAnswers } from "../test/support/answer-tally.js";
import {
  type BridgeInstance,
  BridgeInstances,
  type InstanceRole,
  privateText,
} from "../test/support/bridge-instances.js";
import { deleteRedisKeys, freshRedisNamespace, TEST_REDIS_URL } from "../test/support/redis.js";
import { freePort } from "../test/support/waiting.js";
import { ScriptedChatbot } from "../test/upstream/scripted-chatbot.js";
import { buildChatbridge } from "./support/build.js";
import { collectGarbage, writeHeapSnapshot } from "./support/inspector-gc.js";
import { ANSWER_CHARS, answerFor, FRAGMENTS, percentile, STREAM_MS, waitFor } from "./support/streamed-answers.js";

const TOKEN = "123456789:AAbench-token-of-the-emulator_01";
const BOT_LIMIT_PER_SECOND = 30;
/** Conversations answered before the rounds with `--live-heap-at`, to compile what an answer runs. */
const WARM_CONVERSATIONS = 20;
/** The Redis database of the multi-instance runs; each run keeps to a namespace of its own. */
const STORE_URL = `${TEST_REDIS_URL}/11`;
/**
 * The instances' WORK_LEASE_MS: after a kill, what the dead process held is resumed once this has passed. chatbridge's
 * default (15 s) unless WORK_LEASE_MS is set in this process's environment.
 */
const WORK_LEASE_MS = Number(process.env.WORK_LEASE_MS ?? 15_000);
const USAGE =
  "usage: npx tsx bench/telegram-bridge.ts [--instances K | --web K --workers M] [--kill-at SECONDS] [--live-heap-at SECONDS [--heap-snapshot PATH]] [N ...]";

function usage(problem: string): never {
  console.error(`${problem}\n${USAGE}`);
  process.exit(2);
}

const OPTIONS = {
  instances: { type: "string" },
  web: { type: "string" },
  workers: { type: "string" },
  "kill-at": { type: "string" },
  "live-heap-at": { type: "string" },
  "heap-snapshot": { type: "string" },
} as const;

function parseCommandLine() {
  try {
    return parseArgs({ options: OPTIONS, allowPositionals: true });
  } catch (error) {
    return usage(error instanceof Error ? error.message : String(error));
  }
}

function parseOptions() {
  const { values, positionals } = parseCommandLine();
  const count = (name: string, value: string | undefined): number | undefined => {
    if (value === undefined) return undefined;
    const n = Number(value);
    if (!Number.isInteger(n) || n < 1) usage(`${name} takes a whole number from 1, not ${JSON.stringify(value)}`);
    return n;
  };
  const instances = count("--instances", values.instances);
  const web = count("--web", values.web);
  const workers = count("--workers", values.workers);
  if ((web === undefined) !== (workers === undefined)) usage("--web and --workers go together");
  if (instances !== undefined && web !== undefined) usage("--instances and --web/--workers exclude each other");
  const killAt = values["kill-at"] === undefined ? undefined : Number(values["kill-at"]);
  if (killAt !== undefined && !(Number.isFinite(killAt) && killAt >= 0)) {
    usage(`--kill-at takes seconds (0 or more), not ${JSON.stringify(values["kill-at"])}`);
  }
  const liveHeapAt = values["live-heap-at"] === undefined ? undefined : Number(values["live-heap-at"]);
  if (liveHeapAt !== undefined && !(Number.isFinite(liveHeapAt) && liveHeapAt > 0)) {
    usage(`--live-heap-at takes seconds (more than 0), not ${JSON.stringify(values["live-heap-at"])}`);
  }
  const heapSnapshot = values["heap-snapshot"];
  if (heapSnapshot !== undefined && liveHeapAt === undefined) usage("--heap-snapshot goes with --live-heap-at");
  if (liveHeapAt !== undefined && (instances !== undefined || web !== undefined || killAt !== undefined)) {
    usage("--live-heap-at measures the one instance, without a kill");
  }
  const sizes = positionals.map((value) => count("N", value) as number);
  const roles: InstanceRole[] =
    web !== undefined && workers !== undefined
      ? [...Array<InstanceRole>(web).fill("web"), ...Array<InstanceRole>(workers).fill("worker")]
      : Array<InstanceRole>(instances ?? 1).fill("all");
  return {
    roles,
    redis: instances !== undefined || web !== undefined,
    killAt,
    liveHeapAt,
    heapSnapshot,
    rounds: sizes.length > 0 ? sizes : [1, 100, 1000],
  };
}

const { roles, redis, killAt, liveHeapAt, heapSnapshot, rounds } = parseOptions();
/** The one instance's inspector, for --live-heap-at. */
const inspectorPort = liveHeapAt === undefined ? undefined : await freePort();

buildChatbridge();
const telegram = await TelegramEmulator.start({ token: TOKEN });
const chatbot = await ScriptedChatbot.start();
chatbot.answer = (question) => ({ fragments: answerFor(question), pauseMs: STREAM_MS / FRAGMENTS });
const namespace = redis ? freshRedisNamespace() : undefined;
let group: BridgeInstances | undefined;
try {
  group = await BridgeInstances.start({
    roles,
    built: true,
    telegramRoot: telegram.url,
    // Calls are counted at the emulator; a recording proxy would be one more hop in this (busy) process.
    recordTelegram: false,
    // e.g. BRIDGE_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" profiles chatbridge under this load.
    nodeArgs: [
      ...(inspectorPort === undefined ? [] : [`--inspect=127.0.0.1:${inspectorPort}`]),
      ...(process.env.BRIDGE_NODE_ARGS ?? "").split(" ").filter(Boolean),
    ],
    env: {
      LOG_LEVEL: "warn",
      // Not where the posts go (they go straight to the instances), but setWebhook needs one.
      PUBLIC_URL: "https://bridge.example.test",
      CHATBOT_API_URL: chatbot.url,
      CHATBOT_API_KEY: "sk-bench",
      CHATBOT_SERIAL_NUMBER: "bench",
      TELEGRAM_BOT_TOKEN: TOKEN,
      TELEGRAM_WEBHOOK_SECRET: "bench-secret",
      WORK_LEASE_MS: String(WORK_LEASE_MS),
      // The scripted chatbot has no listings to watch.
      ALERTS_POLL_MINUTES: "0",
      ...(namespace && { STORE_URL, STORE_NAMESPACE: namespace }),
    },
  });
  for (const instance of group.instances) forwardStderr(instance);
  // Telegram posts over at most the max_connections the bridge registered (setWebhook), however many instances a
  // balancer spreads them over.
  const connections = telegram.webhook?.maxConnections ?? 40;
  const receivers = group.receivers;
  for (const instance of receivers) await instance.useConnections(Math.ceil(connections / receivers.length));
  console.log(`webhook posts over ${connections} connections (the max_connections the bridge registered)`);
  await measure(group);
} finally {
  if (group) {
    await Promise.all(group.instances.map((instance) => (instance.running ? instance.terminate() : undefined)));
    await group.close();
  }
  await telegram.close();
  await chatbot.close();
  if (namespace) await deleteRedisKeys(namespace, STORE_URL);
}

/** Copies what the instance's current process writes to stderr (warnings, errors) to this one's, line by line. */
function forwardStderr(instance: BridgeInstance): void {
  const { process: cli } = instance.current;
  const prefix = roles.length > 1 ? `[${instance.name}] ` : "";
  const write = (text: string) => {
    const lines = text.split("\n").filter(Boolean);
    if (lines.length > 0) process.stderr.write(`${lines.map((line) => `${prefix}${line}`).join("\n")}\n`);
  };
  write(cli.stderr());
  cli.child.stderr?.on("data", (chunk: Buffer) => write(chunk.toString()));
}

/**
 * The heap in use after a full garbage collection, forced through the instance's inspector, and the memory outside
 * the heap that JavaScript objects hold then (array buffers' bytes, mostly: `nodejs_external_memory_bytes`).
 */
async function liveHeap(
  port: number,
  instances: readonly BridgeInstance[],
): Promise<{ heap: number; external: number }> {
  await collectGarbage(port);
  const externals = await Promise.all(instances.map((instance) => instance.metric("nodejs_external_memory_bytes")));
  return { heap: await bridgeHeap(instances), external: externals.reduce((sum, bytes) => sum + bytes, 0) };
}

/** The instances' heap in use, summed, from their Prometheus metrics. */
async function bridgeHeap(instances: readonly BridgeInstance[]): Promise<number> {
  const heaps = await Promise.all(instances.map((instance) => instance.metric("nodejs_heap_size_used_bytes")));
  return heaps.reduce((sum, heap) => sum + heap, 0);
}

/** The CPU time the instances used so far, summed, in seconds (process_cpu_seconds_total). */
async function bridgeCpu(instances: readonly BridgeInstance[]): Promise<number> {
  const times = await Promise.all(instances.map((instance) => instance.metric("process_cpu_seconds_total")));
  return times.reduce((sum, time) => sum + time, 0);
}

/** The instances' heap in use (summed) and largest resident memory, from one scrape of each one's metrics. */
async function bridgeMemory(instances: readonly BridgeInstance[]): Promise<{ heap: number; rss: number }> {
  const samples = await Promise.all(
    instances.map((instance) => instance.metrics(["nodejs_heap_size_used_bytes", "process_resident_memory_bytes"])),
  );
  return {
    heap: samples.reduce((sum, [heap]) => sum + (heap as number), 0),
    rss: Math.max(...samples.map(([, rss]) => rss as number)),
  };
}

/** The largest resident memory of the instances, from their Prometheus metrics. */
async function bridgeRss(instances: readonly BridgeInstance[]): Promise<number> {
  const sizes = await Promise.all(instances.map((instance) => instance.metric("process_resident_memory_bytes")));
  return Math.max(...sizes);
}

function mib(bytes: number): string {
  return `${(bytes / 2 ** 20).toFixed(0)} MB`;
}

/**
 * The smallest delays from each answer's end to its final message that a bot limited to 30 messages in any second
 * could achieve, sending nothing but finals, each as soon as its answer ended and the limit allowed: the k-th final
 * goes at the later of its answer's end and one second after the (k-30)-th.
 */
function leastFinalDelays(answeredAt: number[]): number[] {
  const ends = [...answeredAt].sort((a, b) => a - b);
  const sent: number[] = [];
  return ends.map((end, k) => {
    sent[k] = Math.max(end, k >= BOT_LIMIT_PER_SECOND ? (sent[k - BOT_LIMIT_PER_SECOND] ?? 0) + 1000 : 0);
    return (sent[k] ?? end) - end;
  });
}

function describeSetup(): string {
  const count = (role: InstanceRole) => roles.filter((r) => r === role).length;
  const store = redis ? `Redis (${STORE_URL}, namespace ${namespace})` : "SQLite";
  const who =
    count("all") > 0
      ? `${count("all")} instance${count("all") > 1 ? "s" : ""} (role all)`
      : `${count("web")} web instance${count("web") > 1 ? "s" : ""} and ${count("worker")} worker${count("worker") > 1 ? "s" : ""}`;
  const spread = roles.length > 1 ? ", webhook posts round-robin over the instances that take them" : "";
  const kill = killAt === undefined ? "" : `; kill -9 of one answering instance ${killAt} s into each measured round`;
  return `${who} on ${store}${spread}${kill}`;
}

async function measure(group: BridgeInstances): Promise<void> {
  let nextUpdate = 1;
  let nextChat = 1_000_000;
  const update = (chatId: number, text: string) => privateText(nextUpdate++, chatId, text);
  // The n-th post of a round goes to the n-th receiving instance, round-robin; one that is down passes it on.
  const post = async (body: object, index: number) => (await group.deliver(body, index)).outcome.status;
  const victim = group.instances.find((instance) => instance.role !== "web") as BridgeInstance;

  console.log(
    `chatbridge → Telegram emulator: answers of ${ANSWER_CHARS} characters in ${FRAGMENTS} fragments over ${STREAM_MS / 1000} s`,
  );
  console.log(describeSetup());
  console.log(`resident memory after start: ${mib(await bridgeRss(group.instances))}`);
  if (liveHeapAt !== undefined) {
    // A few conversations greeted and answered first, so that the code an answer runs is loaded and compiled before
    // the heap is read: that code is the process's, once, not a conversation's (about 5 KiB per conversation of
    // the round of 1,000 was code, feedback and module sources without this).
    const warm = Array.from({ length: WARM_CONVERSATIONS }, () => nextChat++);
    for (const text of ["/start", "Warm-up question"]) {
      await Promise.all(warm.map((chat, index) => post(update(chat, text), index)));
      const count = text === "/start" ? 1 : 2;
      await waitFor(() => warm.every((chat) => telegram.messagesIn(chat).length >= count), 120_000);
    }
    await new Promise((resolve) => setTimeout(resolve, 1_500));
  }
  for (const n of rounds) {
    const chats = Array.from({ length: n }, () => nextChat++);
    // Warm-up: every conversation gets its greeting, so the measured round holds only the answers.
    await Promise.all(chats.map((chat, index) => post(update(chat, "/start"), index)));
    await waitFor(() => chats.every((chat) => telegram.messagesIn(chat).length >= 1), 120_000);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    telegram.reset();
    chatbot.reset();
    const killing = killAt !== undefined;
    const liveBefore = inspectorPort === undefined ? undefined : await liveHeap(inspectorPort, group.instances);
    if (inspectorPort !== undefined && heapSnapshot !== undefined) {
      await writeHeapSnapshot(inspectorPort, `${heapSnapshot}.${n}.before.heapsnapshot`);
    }
    let liveAt: { heap: number; external: number } | undefined;
    /** Answers streaming upstream when the live heap was read. */
    let liveStreaming = 0;
    let liveUnderWay = 0;
    const heapBefore = killing ? Number.NaN : await bridgeHeap(group.instances);
    const cpuBefore = killing ? Number.NaN : await bridgeCpu(group.instances);
    let heapPeak = heapBefore;
    let rssPeak = killing ? Number.NaN : await bridgeRss(group.instances);
    const sampler = killing
      ? undefined
      : // One scrape every half second, as a busy Prometheus would not do but a peak needs: each scrape costs the
        // bridge a few milliseconds of CPU, counted in its CPU per answer.
        setInterval(async () => {
          const memory = await bridgeMemory(group.instances).catch(() => undefined);
          heapPeak = Math.max(heapPeak, memory?.heap ?? heapPeak);
          rssPeak = Math.max(rssPeak, memory?.rss ?? rssPeak);
        }, 500);

    const expected = (chat: number) => answerFor(`Question ${chat}`).join("").trim();
    const answered = (chat: number) => telegram.messagesIn(chat).some((message) => message.text === expected(chat));
    const posted = new Map<number, number>();
    const start = performance.now();
    const live =
      liveHeapAt === undefined || inspectorPort === undefined
        ? Promise.resolve()
        : new Promise((resolve) => setTimeout(resolve, liveHeapAt * 1000)).then(async () => {
            liveStreaming = chatbot.asks.filter((ask) => ask.answeredAt === undefined).length;
            liveUnderWay = chats.filter((chat) => !answered(chat)).length;
            liveAt = await liveHeap(inspectorPort, (group as BridgeInstances).instances);
            if (heapSnapshot !== undefined) await writeHeapSnapshot(inspectorPort, `${heapSnapshot}.${n}.heapsnapshot`);
          });
    // The kill: S seconds after the first post, then the restart at once.
    const kill: { at?: number; sent?: number; streaming?: number; restartedAt?: number; done: Promise<void> } = {
      done: Promise.resolve(),
    };
    if (killing) {
      kill.done = new Promise<void>((resolve) => setTimeout(resolve, killAt * 1000)).then(async () => {
        kill.sent = chats.filter(answered).length;
        kill.streaming = chatbot.asks.filter((ask) => ask.answeredAt === undefined).length;
        kill.at = performance.now();
        await victim.kill();
        await victim.start();
        kill.restartedAt = performance.now();
        forwardStderr(victim);
      });
    }
    let killed = !killing;
    const over = () => {
      killed = true;
    };
    kill.done.then(over, over);
    const acks = await Promise.all(
      chats.map(async (chat, index) => {
        posted.set(chat, performance.now());
        return post(update(chat, `Question ${chat}`), index);
      }),
    );
    const ackSeconds = (performance.now() - start) / 1000;
    const complete = await waitFor(
      () => killed && chats.every(answered),
      30_000 + n * 200 + (killing ? killAt * 1000 + WORK_LEASE_MS + 60_000 : 0),
    );
    await kill.done;
    await live;
    const end = Math.max(...chats.flatMap((chat) => telegram.messagesIn(chat).map((message) => message.sentAt)));
    if (sampler) clearInterval(sampler);
    const cpu = killing ? Number.NaN : (await bridgeCpu(group.instances)) - cpuBefore;
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const heapAfter = killing ? Number.NaN : await bridgeHeap(group.instances);
    if (killing) {
      // What the dead process held is resumed when its leases end; wait for that, for every question asked to be
      // answered upstream, and for Telegram to be quiet, so that an answer sent twice shows.
      const quietSince = () => telegram.calls.at(-1)?.at ?? 0;
      await waitFor(
        () =>
          performance.now() > (kill.at ?? 0) + WORK_LEASE_MS + 2_000 &&
          chatbot.asks.every((ask) => ask.answeredAt !== undefined) &&
          performance.now() - quietSince() > 2_000,
        120_000,
      );
    }

    // Each question's answer upstream: the last one that ended before its final text (a question whose holder was
    // killed is asked again).
    const asksOf = new Map<string, number[]>();
    const firstFragments = new Map<string, number>();
    for (const ask of chatbot.asks) {
      if (ask.answeredAt !== undefined) asksOf.set(ask.content, [...(asksOf.get(ask.content) ?? []), ask.answeredAt]);
      if (ask.firstFragmentAt !== undefined && !firstFragments.has(ask.content)) {
        firstFragments.set(ask.content, ask.firstFragmentAt);
      }
    }
    const firstText: number[] = [];
    const afterFragment: number[] = [];
    let nothingBeforeFinal = 0;
    const finalDelay: number[] = [];
    const answerEnds: number[] = [];
    for (const chat of chats) {
      const shown = telegram.calls.find(
        (call) =>
          call.ok &&
          Number(call.params.chat_id) === chat &&
          ["sendMessage", "sendMessageDraft", "editMessageText"].includes(call.method) &&
          String(call.params.text ?? "").trim() !== "",
      );
      if (shown) firstText.push(shown.at - (posted.get(chat) ?? start));
      const fragmentAt = firstFragments.get(`Question ${chat}`);
      if (shown && fragmentAt !== undefined) afterFragment.push(shown.at - fragmentAt);
      const final = telegram.messagesIn(chat).find((message) => message.text === expected(chat));
      if (final && (!shown || shown.at >= final.sentAt)) nothingBeforeFinal += 1;
      const ends = asksOf.get(`Question ${chat}`) ?? [];
      const answeredAt = ends.filter((at) => final === undefined || at <= final.sentAt).at(-1) ?? ends[0];
      if (answeredAt !== undefined) answerEnds.push(answeredAt);
      if (answeredAt !== undefined && final) finalDelay.push(final.sentAt - answeredAt);
    }
    // The calls to the round's chats (not the set-up calls of a restarted process).
    const calls = telegram.calls.filter(
      (call) => call.ok && call.method !== "getMe" && call.params.chat_id !== undefined,
    ).length;
    const delivered = chats.filter(answered).length;
    const totalSeconds = (end - start) / 1000;
    const leastSeconds = STREAM_MS / 1000 + n / BOT_LIMIT_PER_SECOND;
    const leastDelay = leastFinalDelays(answerEnds);
    const ms = (value: number) => `${Math.round(value)} ms`;
    const lines = [
      `N=${n}: ${delivered}/${n} answers delivered whole${complete ? "" : " (timed out)"}, ${telegram.rateLimited().length} × 429`,
      `  acks: ${acks.filter((status) => status === 200).length}/${n} 200 OK, ${(n / ackSeconds).toFixed(0)} acks/s`,
      `  first visible text after the webhook post: p50 ${ms(percentile(firstText, 50))}, p95 ${ms(percentile(firstText, 95))}`,
      `  first visible text after the chatbot's first fragment: p50 ${ms(percentile(afterFragment, 50))}, p95 ${ms(percentile(afterFragment, 95))}; ${nothingBeforeFinal} of ${n} users saw no text before their final message`,
      `  upstream's last byte → final text on Telegram: p50 ${ms(percentile(finalDelay, 50))}, p95 ${ms(percentile(finalDelay, 95))}` +
        ` (least the 30/s bot limit allows: p50 ${ms(percentile(leastDelay, 50))}, p95 ${ms(percentile(leastDelay, 95))})`,
      `  Telegram calls per answer: ${(calls / n).toFixed(1)} (typing, drafts, final)`,
      `  chatbridge CPU: ${cpu.toFixed(1)} s for the round, ${((cpu * 1000) / n).toFixed(1)} ms per answer (from the first post to the last final; /metrics samples included)`,
      `  total ${totalSeconds.toFixed(1)} s; least the 30/s bot limit allows ${leastSeconds.toFixed(1)} s; ratio ${(totalSeconds / leastSeconds).toFixed(3)}`,
    ];
    if (killing) {
      const tally = tallyAnswers(telegram, new Map(chats.map((chat) => [chat, [expected(chat)]])), [kill.at ?? 0]);
      const counts = new Map<string, number>();
      for (const ask of chatbot.asks) counts.set(ask.content, (counts.get(ask.content) ?? 0) + 1);
      const twice = [...counts.values()].filter((count) => count > 1).length;
      const restart = ((kill.restartedAt ?? Number.NaN) - (kill.at ?? Number.NaN)) / 1000;
      const tallied = (performance.now() - start) / 1000;
      lines.push(
        `  kill -9 of ${victim.name} at ${(((kill.at ?? Number.NaN) - start) / 1000).toFixed(1)} s (${kill.sent} of ${n} answers sent, ${kill.streaming} streaming upstream), started again in ${restart.toFixed(1)} s`,
        `  tallied ${tallied.toFixed(0)} s after the first post: ${describeTally(tally)}; ${twice} questions asked upstream twice`,
      );
      const short = (text: string) => (text.length > 40 ? `${text.slice(0, 40)}… (${text.length} characters)` : text);
      const wrong = chats.filter((chat) => {
        const shown = telegram.messagesIn(chat);
        return shown.length !== 1 || shown[0]?.text !== expected(chat);
      });
      for (const chat of wrong.slice(0, 5)) {
        const shown = telegram.messagesIn(chat).map((message) => short(message.text));
        const asked = counts.get(`Question ${chat}`) ?? 0;
        lines.push(`    e.g. chat ${chat}: shows ${JSON.stringify(shown)}; asked upstream ${asked} time(s)`);
      }
      lines.push("  chatbridge heap per conversation: not measured (an instance was restarted during the round)");
    } else {
      const over = roles.length > 1 ? ` (summed over the ${roles.length} instances)` : "";
      const perUnderWay = (bytes: number) => (bytes / Math.max(1, liveUnderWay) / 1024).toFixed(1);
      lines.push(
        `  chatbridge heap per conversation${over}: ${((heapPeak - heapBefore) / n / 1024).toFixed(1)} KiB at peak, ${((heapAfter - heapBefore) / n / 1024).toFixed(1)} KiB a second after (no forced GC); resident memory at peak ${mib(rssPeak)}`,
        ...(liveBefore === undefined || liveAt === undefined
          ? []
          : [
              `  live heap ${liveHeapAt} s into the round (after a full GC, against before it): ${((liveAt.heap - liveBefore.heap) / 2 ** 20).toFixed(1)} MiB with ${liveUnderWay} conversations waiting for their whole answer (${liveStreaming} still streaming upstream): ${perUnderWay(liveAt.heap - liveBefore.heap)} KiB per conversation under way, and ${perUnderWay(liveAt.external - liveBefore.external)} KiB outside the heap (array buffers)`,
            ]),
      );
    }
    console.log(lines.join("\n"));
  }
}
