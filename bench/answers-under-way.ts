/**
 * The heap an answer holds on the asking side while it streams: N answers asked at once the way an answer job
 * asks (`askWithRecovery` on the chatbot client, through `openedLater` and `tapped` as the job reads them), each
 * having handed out its first event and waiting for the next, against a chatbot in a worker thread (whose heap is
 * its own, so only the asking side is counted) that sends one fragment and keeps the response open. Prints the heap
 * in use per answer under way after a full collection, against the same before the answers, and the memory outside
 * the heap (array buffers) likewise: the connection,
 * the decoder and the layers of iterators, without the reply or the job around them (`bench/telegram-bridge.ts
 * --live-heap-at` measures a whole conversation).
 * Run: npx tsx bench/answers-under-way.ts [N]   (default 1000; not a test)
 */
import { setMaxListeners } from "node:events";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { Worker } from "node:worker_threads";
import { askWithRecovery } from "../src/bridge/ask-with-recovery.js";
import type { AnswerEvent } from "../src/client/index.js";
import { ChatbotClient } from "../src/client/index.js";
import { openedLater, tapped } from "../src/client/stream/pass-through.js";

const n = Number(process.argv[2] ?? 1000);
if (!Number.isInteger(n) || n < 1 || n > 1000) {
  console.error("usage: npx tsx bench/answers-under-way.ts [N from 1 to 1000]");
  process.exit(2);
}

setFlagsFromString("--expose-gc");
const collectGarbage = runInNewContext("gc") as () => void;

// The chatbot: every ask gets its first fragment at once, then nothing until the benchmark ends.
const chatbot = new Worker(
  `
  const http = require("node:http");
  const { parentPort } = require("node:worker_threads");
  const server = http.createServer((req, res) => {
    req.resume();
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.write('data: {"content":"A bright flat near the park, "}\\n\\n');
  });
  server.keepAliveTimeout = 120000;
  server.listen(0, "127.0.0.1", () => parentPort.postMessage(server.address().port));
  `,
  { eval: true },
);
const port = await new Promise<number>((resolve) => chatbot.once("message", resolve));
const client = new ChatbotClient({ baseUrl: `http://127.0.0.1:${port}`, apiKey: "bench-key" });
const stopping = new AbortController();
// Every answer listens to it, as a thousand answers listen to their holders' signals.
setMaxListeners(0, stopping.signal);

/** An answer asked as the answer job asks it, read up to its first event. */
async function ask(): Promise<AsyncIterableIterator<AnswerEvent>> {
  let finals = 0;
  const events = openedLater(async () => {
    const source = await askWithRecovery(
      client,
      { sessionId: 1, content: "3 bedroom homes?" },
      async () => 2,
      stopping.signal,
    );
    return tapped(source.events, (event) => {
      if (event.type === "final") finals++;
    });
  });
  const first = await events.next();
  if (first.done || first.value.type !== "delta" || finals !== 0) throw new Error("the first event is not a delta");
  return events;
}

const settle = async () => {
  await new Promise((resolve) => setTimeout(resolve, 200));
  collectGarbage();
  collectGarbage();
};

// One answer first, so that what every answer shares (code, the connection pool) is there before the count.
const held = [await ask()];
await settle();
const before = process.memoryUsage();
held.push(...(await Promise.all(Array.from({ length: n }, ask))));
// Each waits for its next event, as a reply does.
const waiting = held.map((events) => events.next());
await settle();
const after = process.memoryUsage();
const perAnswer = (bytes: number) => `${(bytes / n / 1024).toFixed(2)} KiB`;
console.log(`${n} answers under way on the asking side (each read up to its first event, waiting for the next)`);
console.log(
  `per answer under way, after a full collection: ${perAnswer(after.heapUsed - before.heapUsed)} of heap, ${perAnswer(after.external - before.external)} outside it (array buffers' bytes)`,
);

stopping.abort();
await Promise.allSettled(waiting);
await Promise.all(held.map((events) => events.return?.()));
await client.close?.();
await chatbot.terminate();
