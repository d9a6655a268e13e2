/**
 * N web chat visitors (default 1,000) with their event streams open at once on one `chatbridge start` instance, in a
 * process of its own on its default store (SQLite), answered by a scripted chatbot in this process that streams a
 * 1,000-character answer in 50 fragments 10 ms apart (0.5 s), so that what is measured is the bridge. After a
 * warm-up of 10 visitors, it reads the bridge's resident memory (/proc/<pid>/status) and heap (/metrics), each after
 * a full garbage collection (through the inspector, on loopback), at rest; then N visitors arrive, 50 at a time, each
 * getting an identity (`POST /webchat/visitors`) and opening its stream (`GET /webchat/events`, read with
 * eventsource-parser); the memory read again gives the memory per open visitor. Then every visitor posts one
 * question (`POST /webchat/messages`), all at once or spread evenly over `--over SECONDS`, and it reports, from each
 * post: the chatbot's welcome on the visitor's stream (the bridge shows it before asking), the answer's first text
 * and the whole answer (p50, p95, p99, max); answers delivered whole, refused requests, broken streams, what the
 * bridge logged, its peak memory and its CPU time per answer. Everything stays on 127.0.0.1; the run gives up after
 * 120 s and reports what it measured by then.
 *
 * The web chat's limits on messages, identities and streams are off (1,000 visitors from one address would meet
 * them). `BENCH_BRIDGE_ENV="NAME=value …"` adds variables to the bridge's environment (`WEB_CHAT_LIMITS` to measure
 * with limits, `STORE_URL` to measure another store); `BRIDGE_NODE_ARGS` adds
 * arguments for its node (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`).
 * Run: npx tsx bench/web-visitors.ts [--over SECONDS] [N]   (not a test)
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { Agent, fetch } from "undici";
import { spawnCli } from "../test/support/cli-process.js";
import { freePort } from "../test/support/waiting.js";
import { ScriptedChatbot } from "../test/upstream/scripted-chatbot.js";
import { buildChatbridge } from "./support/build.js";
import { collectGarbage } from "./support/inspector-gc.js";
import { cpuMs, residentBytes } from "./support/proc-stats.js";
import { answerFor, FRAGMENTS, percentile, waitFor } from "./support/streamed-answers.js";
import { openVisitorStream, type VisitorStream } from "./support/visitor-stream.js";

const USAGE = "usage: npx tsx bench/web-visitors.ts [--over SECONDS] [N]   (N visitors, default 1000)";
const WARM_UP = 10;
const FRAGMENT_PAUSE_MS = 10;
/** Visitors arriving at a time: what is measured is the bridge holding the streams, not a thousand connects at once. */
const ARRIVING_AT_ONCE = 50;
/** The whole run's bound: a bridge that stops answering ends the benchmark with what it measured so far. */
const RUN_MS = 120_000;
/** Time for the bridge's memory to settle (buffers allocated, idle timers) before it is read. */
const SETTLE_MS = 2_000;

function usage(problem: string): never {
  console.error(`${problem}\n${USAGE}`);
  process.exit(2);
}

function parseCommandLine() {
  try {
    return parseArgs({ options: { over: { type: "string" } }, allowPositionals: true });
  } catch (error) {
    return usage(error instanceof Error ? error.message : String(error));
  }
}

const { values, positionals } = parseCommandLine();
const n = Number(positionals[0] ?? 1000);
if (!Number.isInteger(n) || n < 1 || positionals.length > 1)
  usage(`N is one whole number from 1, not ${positionals.join(" ")}`);
const overMs = Number(values.over ?? 0) * 1000;
if (!(Number.isFinite(overMs) && overMs >= 0 && overMs < RUN_MS / 2))
  usage(`--over takes seconds, 0 to ${RUN_MS / 2000}`);

/** BENCH_BRIDGE_ENV's `NAME=value` pairs, separated by spaces. */
function extraEnv(): Record<string, string> {
  const pairs = (process.env.BENCH_BRIDGE_ENV ?? "").split(/\s+/).filter(Boolean);
  return Object.fromEntries(
    pairs.map((pair) => {
      const match = /^([A-Z][A-Z0-9_]*)=(.*)$/.exec(pair);
      return match ? [match[1], match[2]] : usage(`BENCH_BRIDGE_ENV: ${JSON.stringify(pair)} is not NAME=value`);
    }),
  );
}

const bridgeEnv = extraEnv();
const runEnds = performance.now() + RUN_MS;
const remaining = () => Math.max(0, runEnds - performance.now());
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
const ms = (value: number) => `${Math.round(value)} ms`;

const chatbot = await ScriptedChatbot.start();
chatbot.answer = (question) => ({ fragments: answerFor(question), pauseMs: FRAGMENT_PAUSE_MS });
buildChatbridge();
const dataDir = mkdtempSync(path.join(tmpdir(), "chatbridge-bench-"));
const port = await freePort();
const base = `http://127.0.0.1:${port}`;
// The inspector, on loopback, lets the memory be read after a full garbage collection.
const inspectorPort = await freePort();
const bridge = spawnCli(
  ["start"],
  {
    PORT: String(port),
    DATA_DIR: dataDir,
    LOG_LEVEL: "warn",
    CHATBOT_API_URL: chatbot.url,
    CHATBOT_API_KEY: "sk-bench",
    CHATBOT_SERIAL_NUMBER: "bench",
    // The scripted chatbot has no listings to watch.
    ALERTS_POLL_MINUTES: "0",
    // Every visitor here comes from 127.0.0.1: the per-address budgets would refuse all but a few dozen.
    WEB_CHAT_LIMITS: "messages=off,off identities=off streams=off,off",
    ...bridgeEnv,
  },
  {},
  // e.g. BRIDGE_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" profiles chatbridge under this load.
  [`--inspect=127.0.0.1:${inspectorPort}`, ...(process.env.BRIDGE_NODE_ARGS ?? "").split(" ").filter(Boolean)],
  true,
);
const pid = bridge.child.pid as number;
// Every stream holds a connection, and every visitor posts at once while they are open.
const agent = new Agent({ connections: 2 * n + 2 * WARM_UP + 16, bodyTimeout: 0 });
const streams: VisitorStream[] = [];

/**
 * One visitor's identity, and the times of its post and, on its stream, of the welcome, the answer's first text and
 * the whole answer.
 */
interface Visitor {
  token: string;
  question: string;
  postedAt?: number;
  welcomeAt?: number;
  firstTextAt?: number;
  wholeAt?: number;
}

async function post(pathname: string, body?: object): Promise<{ status: number; json: unknown }> {
  const response = await fetch(`${base}${pathname}`, {
    method: "POST",
    dispatcher: agent,
    ...(body && { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
  });
  return { status: response.status, json: await response.json().catch(() => undefined) };
}

/** The bridge's resident memory and heap in use (from its Prometheus metrics) after a full garbage collection. */
async function memory(): Promise<{ rss: number; heap: number }> {
  await collectGarbage(inspectorPort);
  const text = await (await fetch(`${base}/metrics`, { dispatcher: agent })).text();
  const heap = Number(/^nodejs_heap_size_used_bytes (\S+)$/m.exec(text)?.[1] ?? Number.NaN);
  return { rss: residentBytes(pid), heap };
}

/** Why requests failed: a status or an error's message, and how often. */
const problems = new Map<string, number>();
function problem(what: string, error: unknown): undefined {
  const why = typeof error === "number" ? `answered ${error}` : error instanceof Error ? error.message : String(error);
  const key = `${what}: ${why}`;
  problems.set(key, (problems.get(key) ?? 0) + 1);
  return undefined;
}

/** Runs `task` for 0 … count-1, at most `atOnce` at a time. */
async function pooled<T>(count: number, atOnce: number, task: (index: number) => Promise<T>): Promise<T[]> {
  const results: T[] = [];
  let next = 0;
  const worker = async () => {
    for (let index = next++; index < count; index = next++) results[index] = await task(index);
  };
  await Promise.all(Array.from({ length: Math.min(atOnce, count) }, worker));
  return results;
}

/** A new visitor with its open stream (numbered `number`), or undefined when the bridge refused either. */
async function arrive(number: number): Promise<Visitor | undefined> {
  const issued = await post("/webchat/visitors").catch((error) => problem("POST /webchat/visitors", error));
  if (!issued) return undefined;
  const token = (issued.json as { visitor?: string } | undefined)?.visitor;
  if (issued.status !== 201 || !token) return problem("POST /webchat/visitors", issued.status);
  const visitor: Visitor = { token, question: `Question ${number}` };
  const fragments = answerFor(visitor.question);
  const whole = fragments.join("").trim();
  // A new conversation's first answer comes after the chatbot's welcome, in the same message, which the bridge
  // shows before it asks: the welcome is the first text, the answer's first fragment its first text upstream.
  const stream = await openVisitorStream(base, token, agent, (event) => {
    if (event.type !== "message" || event.from === "visitor" || visitor.postedAt === undefined) return;
    const now = performance.now();
    const text = event.text.trim();
    if (text !== "") visitor.welcomeAt ??= now;
    if (text.includes(fragments[0] ?? "")) visitor.firstTextAt ??= now;
    if (text.endsWith(whole)) visitor.wholeAt ??= now;
  }).catch((error) => problem("GET /webchat/events", error));
  if (!stream) return undefined;
  streams.push(stream);
  return visitor;
}

/** `count` visitors arriving, a few at a time as a busy site's would; those refused are left out. */
async function arriving(count: number, first: number): Promise<Visitor[]> {
  const visitors = await pooled(count, ARRIVING_AT_ONCE, (index) => arrive(first + index));
  return visitors.filter((visitor) => visitor !== undefined);
}

/**
 * Every visitor posts its question, spread evenly over `overMs` (0: all at once); resolves when every post was
 * answered, with how many were accepted (202).
 */
async function ask(visitors: Visitor[], overMs: number): Promise<number> {
  const statuses = await Promise.all(
    visitors.map(async (visitor, index) => {
      await sleep((overMs * index) / visitors.length);
      visitor.postedAt = performance.now();
      const body = { visitorId: visitor.token, messageId: `bench${index}`, text: visitor.question };
      const posted = await post("/webchat/messages", body).catch((error) => problem("POST /webchat/messages", error));
      if (posted && posted.status !== 202) problem("POST /webchat/messages", posted.status);
      return posted?.status;
    }),
  );
  return statuses.filter((status) => status === 202).length;
}

async function measure(): Promise<void> {
  const ready = await waitForReady();
  if (!ready) throw new Error(`chatbridge did not get ready:\n${bridge.stdout()}${bridge.stderr()}`);
  // The warm-up runs every path once (compiled, pooled, cached), so the memory at rest is that of a running bridge.
  const warm = await arriving(WARM_UP, -WARM_UP);
  await ask(warm, 0);
  await waitFor(() => warm.every((visitor) => visitor.wholeAt !== undefined), remaining());
  await Promise.all(streams.splice(0).map((stream) => stream.close()));
  problems.clear();
  await sleep(SETTLE_MS);
  const rest = await memory();

  const opening = performance.now();
  const visitors = await arriving(n, 0);
  const openSeconds = (performance.now() - opening) / 1000;
  await sleep(SETTLE_MS);
  const held = await memory();
  const open = visitors.length;

  let peakRss = held.rss;
  const sampler = setInterval(() => {
    if (bridge.child.exitCode === null) peakRss = Math.max(peakRss, residentBytes(pid));
  }, 100);
  const cpuBefore = cpuMs(pid);
  const asking = performance.now();
  const accepted = await ask(visitors, overMs);
  const complete = await waitFor(() => visitors.every((visitor) => visitor.wholeAt !== undefined), remaining());
  const answerSeconds = (performance.now() - asking) / 1000;
  const cpuUsed = cpuMs(pid) - cpuBefore;
  clearInterval(sampler);

  const since = (visitor: Visitor, at: number | undefined) =>
    at === undefined || visitor.postedAt === undefined ? [] : [at - visitor.postedAt];
  const welcome = visitors.flatMap((visitor) => since(visitor, visitor.welcomeAt));
  const firstText = visitors.flatMap((visitor) => since(visitor, visitor.firstTextAt));
  const whole = visitors.flatMap((visitor) => since(visitor, visitor.wholeAt));
  const spread = (values: number[]) =>
    values.length === 0
      ? "none"
      : `p50 ${ms(percentile(values, 50))}, p95 ${ms(percentile(values, 95))}, p99 ${ms(percentile(values, 99))}, max ${ms(Math.max(...values))}`;
  const perVisitor = (bytes: number) => `${(bytes / open / 1024).toFixed(1)} KiB`;
  const store = process.env.BENCH_BRIDGE_ENV ? `BENCH_BRIDGE_ENV="${process.env.BENCH_BRIDGE_ENV}"` : "SQLite store";
  const posting = overMs === 0 ? "all at once" : `spread over ${overMs / 1000} s`;
  const lines = [
    `chatbridge web chat, one instance (${store}); answers of ${FRAGMENTS} fragments ${FRAGMENT_PAUSE_MS} ms apart`,
    `N=${n}: ${open}/${n} visitors with open event streams, ${ARRIVING_AT_ONCE} arriving at a time, in ${openSeconds.toFixed(1)} s`,
    `  bridge at rest ${mib(rest.rss)} RSS, ${mib(rest.heap)} heap; with the streams open ${mib(held.rss)} RSS, ${mib(held.heap)} heap (after a full GC)`,
    `  per open visitor: ${perVisitor(held.rss - rest.rss)} RSS, ${perVisitor(held.heap - rest.heap)} heap`,
    `  questions posted ${posting}: ${accepted}/${open} accepted (202); ${whole.length}/${open} answers whole on their streams in ${answerSeconds.toFixed(1)} s${complete ? "" : ` (gave up at the ${RUN_MS / 1000} s bound)`}; streams broken: ${streams.filter((stream) => stream.endedEarly()).length}`,
    `  post → the welcome shown: ${spread(welcome)}`,
    `  post → the answer's first text: ${spread(firstText)}`,
    `  post → the whole answer (${(FRAGMENTS * FRAGMENT_PAUSE_MS) / 1000} s of streaming upstream): ${spread(whole)}`,
    `  bridge while answering: peak ${mib(peakRss)} RSS, ${(cpuUsed / Math.max(1, whole.length)).toFixed(1)} ms of CPU per answer`,
    ...[...problems].map(([what, count]) => `  failed: ${count} × ${what}`),
  ];
  console.log(lines.join("\n"));
}

/** What chatbridge logged at warn and above (JSON lines; the inspector's own lines are not), counted by message. */
function reportLog(stderr: string): void {
  const counts = new Map<string, number>();
  for (const line of stderr.split("\n").filter((text) => text.startsWith("{"))) {
    const entry = JSON.parse(line) as { msg?: string; err?: { message?: string } };
    const key = `${entry.msg ?? ""}${entry.err?.message ? ` (${entry.err.message})` : ""}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  for (const [message, count] of counts) console.log(`  chatbridge logged ${count} × ${message}`);
}

async function waitForReady(): Promise<boolean> {
  while (remaining() > 0 && bridge.child.exitCode === null) {
    const status = await fetch(`${base}/readyz`, { dispatcher: agent }).then(
      (response) => response.body?.cancel().then(() => response.status),
      () => 0,
    );
    if (status === 200) return true;
    await sleep(200);
  }
  return false;
}

try {
  await measure();
} finally {
  await Promise.all(streams.map((stream) => stream.close()));
  bridge.child.kill("SIGTERM");
  await bridge.exited;
  reportLog(bridge.stderr());
  await agent.close();
  await chatbot.close();
  rmSync(dataDir, { recursive: true, force: true });
}
