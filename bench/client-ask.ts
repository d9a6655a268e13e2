/**
 * ClientAsk on the embedded server with the embedded engine, over real HTTP on loopback:
 * - time to the first SSE `data:` frame of a streamed answer (target p95 ≤ 10 ms), one request at a time;
 * - plain (non-streamed) requests per second with several clients at once.
 * Run: npx tsx bench/client-ask.ts   (not a test)
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { Agent, request } from "undici";
import { createLogger } from "../src/common/log.js";
import { loadConfig } from "../src/config/config.js";
import { openEmbeddedApi, serveApi, shutdownApi } from "../src/server/embedded-api.js";

const QUESTIONS = [
  "3 bedroom homes for sale in Austin under $700k",
  "rentals with parking in Denver",
  "what's the cheapest condo?",
  "hello",
  "homes in Seattle",
  "and with 4 bedrooms?",
];

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

const config = loadConfig({ DATA_DIR: mkdtempSync(path.join(tmpdir(), "chatbridge-bench-")) }, { envFile: undefined });
const api = await openEmbeddedApi(config, createLogger("silent"));
const { server, url } = await serveApi(api, { port: 0, host: "127.0.0.1" });
const dispatcher = new Agent({ connections: 64 });
const headers = { authorization: api.demo.workspace.secretKey, "content-type": "application/json" };

async function session(): Promise<number> {
  const response = await request(`${url}/chat/Chatbot/GetSession`, {
    method: "POST",
    headers,
    body: JSON.stringify({ serialNumber: api.demo.chatbot.serialNumber }),
    dispatcher,
  });
  return ((await response.body.json()) as { Data: { SessionID: number } }).Data.SessionID;
}

async function firstFrame(sessionID: number, content: string): Promise<number> {
  const started = performance.now();
  const response = await request(`${url}/chat/Chat/ClientAsk`, {
    method: "POST",
    headers,
    body: JSON.stringify({ sessionID, content, stream: true }),
    dispatcher,
  });
  let first = Number.NaN;
  for await (const chunk of response.body) {
    if (Number.isNaN(first) && chunk.toString().includes("data:")) first = performance.now() - started;
  }
  return first;
}

async function plain(sessionID: number, content: string): Promise<void> {
  const response = await request(`${url}/chat/Chat/ClientAsk`, {
    method: "POST",
    headers,
    body: JSON.stringify({ sessionID, content }),
    dispatcher,
  });
  const body = (await response.body.json()) as { Success: boolean };
  if (!body.Success) throw new Error("ClientAsk failed");
}

const streamSession = await session();
for (let i = 0; i < 50; i++) await firstFrame(streamSession, QUESTIONS[i % QUESTIONS.length] as string);
const firsts: number[] = [];
for (let i = 0; i < 500; i++) firsts.push(await firstFrame(await session(), QUESTIONS[i % QUESTIONS.length] as string));
firsts.sort((a, b) => a - b);
const p95 = percentile(firsts, 95);
console.log(
  `first SSE data frame: p50 ${percentile(firsts, 50).toFixed(2)} ms · p95 ${p95.toFixed(2)} ms · p99 ${percentile(firsts, 99).toFixed(2)} ms  → ${p95 <= 10 ? "PASS" : "FAIL"} (target p95 ≤ 10 ms)`,
);

const clients = 16;
const seconds = 5;
const sessions = await Promise.all(Array.from({ length: clients }, () => session()));
let done = 0;
const deadline = performance.now() + seconds * 1000;
await Promise.all(
  sessions.map(async (id, client) => {
    for (let i = client; performance.now() < deadline; i++) {
      await plain(id, QUESTIONS[i % QUESTIONS.length] as string);
      done++;
    }
  }),
);
console.log(
  `plain ClientAsk: ${(done / seconds).toFixed(0)} requests/s with ${clients} concurrent clients (SQLite, embedded engine)`,
);

await dispatcher.close();
await shutdownApi(server, api, 1000);
