/**
 * Throughput of the streamed-answer decoder in each wire framing, against the ceiling of `JSON.parse`
 * over the same objects already cut apart. Run with `npx tsx bench/stream-decoding.ts`; the target is
 * that decoding reaches at least 70% of that ceiling.
 */

import { performance } from "node:perf_hooks";
import { decodeAnswerStream } from "../src/client/stream/decode-answer-stream.js";
import { seededRandom } from "../src/server/seeded-random.js";

const TARGET_RATIO = 0.7;
const DELTA_BYTES = 8 * 1024 * 1024;
const CHUNK_BYTES = 16 * 1024;
const WARM_UPS = 3;
const RUNS = 9;

// Sentences like a real-estate assistant's answers: markdown prose, mostly ASCII, with accents, CJK and
// emoji, newlines and the odd quote or backslash that JSON has to escape.
const SENTENCES = [
  "The apartment has two bedrooms and a sunny balcony facing the park.",
  "**Price:** $2,400 per month, utilities included.\n",
  "- 2 bedrooms, 1 bathroom\n- 850 sq ft\n- Pets allowed\n",
  'The listing describes it as "recently renovated" with new appliances.',
  "It is a 5-minute walk from the station (東京駅から徒歩5分).",
  "Nearby: Café Müller, the Über Bakery and two schools. 🏡✨",
  "Would you like me to schedule a viewing for Saturday?\n\n",
  "The floor plan is at C:\\Listings\\4711\\plan.pdf in the agent's files.",
  "Square footage: 850; the lease runs for 12 months with an option to renew.",
  "### Summary\nGood value for the area, quiet street, close to transit.\n",
];

/** Cuts an answer into deltas of 5 to 60 characters, the way a model streams it. */
function fragments(bytes: number): string[] {
  const next = seededRandom(42);
  const out: string[] = [];
  let text = "";
  let total = 0;
  while (total < bytes) {
    const length = 5 + Math.floor(next() * 56);
    while (text.length < length) text += `${SENTENCES[Math.floor(next() * SENTENCES.length)]} `;
    // Never cut a surrogate pair: a delta is valid text.
    let end = length;
    if (/[\uD800-\uDBFF]/.test(text.charAt(end - 1))) end++;
    out.push(text.slice(0, end));
    text = text.slice(end);
    total += end + 14;
  }
  return out;
}

const FRAMINGS = {
  sse: (texts: string[]) => `${texts.map((t) => `data: ${t}\n\n`).join("")}data: [DONE]\n\n`,
  ndjson: (texts: string[]) => texts.map((t) => `${t}\n`).join(""),
  concatenated: (texts: string[]) => texts.join(""),
};

function chunksOf(wire: Uint8Array): Uint8Array[] {
  const chunks: Uint8Array[] = [];
  for (let at = 0; at < wire.length; at += CHUNK_BYTES) chunks.push(wire.subarray(at, at + CHUNK_BYTES));
  return chunks;
}

async function* body(chunks: Uint8Array[]): AsyncGenerator<Uint8Array> {
  for (const chunk of chunks) yield chunk;
}

async function decode(chunks: Uint8Array[]): Promise<{ events: number; answerLength: number }> {
  let events = 0;
  let answerLength = 0;
  for await (const event of decodeAnswerStream(body(chunks), { operation: "ClientAsk" })) {
    events++;
    if (event.type === "final") answerLength = event.answer.length;
  }
  return { events, answerLength };
}

function parseAll(texts: string[]): number {
  let members = 0;
  for (const text of texts) if (JSON.parse(text) !== null) members++;
  return members;
}

/**
 * Median times of the decoder and of the ceiling over the same runs. The two alternate, so that a busy
 * machine slows both alike and the ratio stays meaningful.
 */
async function medians(chunks: Uint8Array[], texts: string[]): Promise<{ decoderMs: number; ceilingMs: number }> {
  const decoder: number[] = [];
  const ceiling: number[] = [];
  for (let run = 0; run < WARM_UPS + RUNS; run++) {
    let started = performance.now();
    await decode(chunks);
    const decoderMs = performance.now() - started;
    started = performance.now();
    parseAll(texts);
    const ceilingMs = performance.now() - started;
    if (run < WARM_UPS) continue;
    decoder.push(decoderMs);
    ceiling.push(ceilingMs);
  }
  const median = (times: number[]) => times.sort((x, y) => x - y)[Math.floor(times.length / 2)] ?? Number.NaN;
  return { decoderMs: median(decoder), ceilingMs: median(ceiling) };
}

const pieces = fragments(DELTA_BYTES);
const answer = pieces.join("");
const objects = [
  ...pieces.map((content) => ({ content })),
  { QuestionID: 1, AnswerID: 2, Answer: answer, TotalToken: pieces.length },
];
const texts = objects.map((object) => JSON.stringify(object));

const mb = (bytes: number, ms: number) => (bytes / 1e6 / (ms / 1000)).toFixed(1);
const perSecond = (count: number, ms: number) => Math.round(count / (ms / 1000)).toLocaleString("en-US");

const escaped = texts.filter((text) => text.includes("\\")).length / texts.length;
console.log(
  [
    `${pieces.length.toLocaleString("en-US")} deltas (${(escaped * 100).toFixed(0)}% with escapes) and one final`,
    `whose Answer has ${answer.length.toLocaleString("en-US")} characters, in ${CHUNK_BYTES / 1024} KiB chunks;`,
    `median of ${RUNS} runs after ${WARM_UPS} warm-ups. MB/s counts each framing's wire bytes, for the`,
    "ceiling too (JSON.parse of the same objects, already cut apart), so the ratio is that of the times.\n",
  ].join("\n"),
);

let allPass = true;
for (const [name, frame] of Object.entries(FRAMINGS)) {
  const wire = new TextEncoder().encode(frame(texts));
  const chunks = chunksOf(wire);
  const check = await decode(chunks);
  if (check.events !== objects.length || check.answerLength !== answer.length) {
    throw new Error(`${name}: decoded ${check.events} events, expected ${objects.length}`);
  }
  const { decoderMs, ceilingMs } = await medians(chunks, texts);
  const ratio = ceilingMs / decoderMs;
  const pass = ratio >= TARGET_RATIO;
  allPass &&= pass;
  console.log(`${name}: ${(wire.length / 1e6).toFixed(1)} MB in ${chunks.length} chunks`);
  console.table({
    decodeAnswerStream: {
      ms: decoderMs.toFixed(1),
      "MB/s": mb(wire.length, decoderMs),
      "events/s": perSecond(objects.length, decoderMs),
      "% of ceiling": `${(ratio * 100).toFixed(0)}%`,
    },
    "JSON.parse (ceiling)": {
      ms: ceilingMs.toFixed(1),
      "MB/s": mb(wire.length, ceilingMs),
      "events/s": perSecond(objects.length, ceilingMs),
      "% of ceiling": "100%",
    },
  });
  console.log(
    `${pass ? "PASS" : "FAIL"}: ${name} at ${(ratio * 100).toFixed(0)}% of the JSON.parse ceiling (target ${TARGET_RATIO * 100}%)\n`,
  );
}
console.log(allPass ? "PASS: every framing meets the target" : "FAIL: some framing is below the target");
process.exitCode = allPass ? 0 : 1;
