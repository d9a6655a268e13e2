/**
 * Throughput of the streamed-answer decoder in each wire framing, against the ceiling of `JSON.parse`
 * over the same objects already cut apart. Run with `npx tsx bench/stream-decoding.ts`; the target is
 * that decoding reaches at least 70% of that ceiling.
 *
 * Each timed step starts from a collected heap, so that neither pays for the other's garbage: without
 * that, the full collection the decoder's garbage called for mostly fell into the ceiling's time, which
 * flattered the decoder by about ten points. The ratio is the median of the runs' own ratios (decoder and
 * ceiling run back to back), which a machine slowing down for a while changes less than a ratio of medians.
 */

import { performance } from "node:perf_hooks";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { AnswerStreamDecoding } from "../src/client/stream/answer-stream-decoding.js";
import { decodeAnswerStream } from "../src/client/stream/decode-answer-stream.js";
import { seededRandom } from "../src/server/seeded-random.js";

const TARGET_RATIO = 0.7;
const DELTA_BYTES = 8 * 1024 * 1024;
const CHUNK_BYTES = 16 * 1024;
const WARM_UPS = 3;
const RUNS = 15;

setFlagsFromString("--expose-gc");
const collectGarbage = runInNewContext("gc") as () => void;

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

/** The decoding alone, without handing each event out through `for await`. */
function decodeOnly(chunks: Uint8Array[]): number {
  const decoding = new AnswerStreamDecoding({ operation: "ClientAsk" }, true);
  let events = 0;
  for (const chunk of chunks) {
    decoding.push(chunk);
    events += decoding.take().events.length;
  }
  return events;
}

async function timed(step: () => unknown): Promise<number> {
  collectGarbage();
  const started = performance.now();
  await step();
  return performance.now() - started;
}

const median = (values: number[]) => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)] ?? Number.NaN;

/** Median times of the decoder (whole, and without `for await`) and of the ceiling, and the median of the runs' ratios. */
async function measure(chunks: Uint8Array[], texts: string[]) {
  const decoder: number[] = [];
  const decodingOnly: number[] = [];
  const ceiling: number[] = [];
  for (let run = 0; run < WARM_UPS + RUNS; run++) {
    const decoderMs = await timed(() => decode(chunks));
    const ceilingMs = await timed(() => parseAll(texts));
    const decodingMs = await timed(() => decodeOnly(chunks));
    if (run < WARM_UPS) continue;
    decoder.push(decoderMs);
    ceiling.push(ceilingMs);
    decodingOnly.push(decodingMs);
  }
  return {
    decoderMs: median(decoder),
    decodingMs: median(decodingOnly),
    ceilingMs: median(ceiling),
    ratio: median(decoder.map((ms, run) => (ceiling[run] as number) / ms)),
  };
}

/**
 * The objects' texts (the ceiling's input, from which each framing's wire is made), and the counts to check a
 * decoding against. Only the texts stay: the objects and their pieces, kept as well, made the heap three times
 * what the measure needs, and every full collection (which a decoding's large final can start) marked them all
 * within the step it fell into.
 */
function corpus(): { texts: string[]; deltas: number; answerLength: number } {
  const pieces = fragments(DELTA_BYTES);
  const answer = pieces.join("");
  const objects = [
    ...pieces.map((content) => ({ content })),
    { QuestionID: 1, AnswerID: 2, Answer: answer, TotalToken: pieces.length },
  ];
  return { texts: objects.map((object) => JSON.stringify(object)), deltas: pieces.length, answerLength: answer.length };
}

const { texts, deltas, answerLength } = corpus();
const events = deltas + 1;

const mb = (bytes: number, ms: number) => (bytes / 1e6 / (ms / 1000)).toFixed(1);
const perSecond = (count: number, ms: number) => Math.round(count / (ms / 1000)).toLocaleString("en-US");

const escaped = texts.filter((text) => text.includes("\\")).length / texts.length;
console.log(
  [
    `${deltas.toLocaleString("en-US")} deltas (${(escaped * 100).toFixed(0)}% with escapes) and one final`,
    `whose Answer has ${answerLength.toLocaleString("en-US")} characters, in ${CHUNK_BYTES / 1024} KiB chunks;`,
    `median of ${RUNS} runs after ${WARM_UPS} warm-ups, each from a collected heap. MB/s counts each framing's`,
    "wire bytes, for the ceiling too (JSON.parse of the same objects, already cut apart); the decoder's share",
    "of the ceiling is the median of the runs' ratios.\n",
  ].join("\n"),
);

let allPass = true;
for (const [name, frame] of Object.entries(FRAMINGS)) {
  const wire = new TextEncoder().encode(frame(texts));
  const chunks = chunksOf(wire);
  const check = await decode(chunks);
  if (check.events !== events || check.answerLength !== answerLength) {
    throw new Error(`${name}: decoded ${check.events} events, expected ${events}`);
  }
  const { decoderMs, decodingMs, ceilingMs, ratio } = await measure(chunks, texts);
  const pass = ratio >= TARGET_RATIO;
  allPass &&= pass;
  console.log(`${name}: ${(wire.length / 1e6).toFixed(1)} MB in ${chunks.length} chunks`);
  const row = (ms: number, share: string) => ({
    ms: ms.toFixed(1),
    "MB/s": mb(wire.length, ms),
    "events/s": perSecond(events, ms),
    "% of ceiling": share,
  });
  console.table({
    decodeAnswerStream: row(decoderMs, `${(ratio * 100).toFixed(0)}%`),
    "  of which decoding (no for await)": row(decodingMs, `${((ceilingMs / decodingMs) * 100).toFixed(0)}%`),
    "JSON.parse (ceiling)": row(ceilingMs, "100%"),
  });
  console.log(
    `${pass ? "PASS" : "FAIL"}: ${name} at ${(ratio * 100).toFixed(0)}% of the JSON.parse ceiling (target ${TARGET_RATIO * 100}%)\n`,
  );
}
console.log(allPass ? "PASS: every framing meets the target" : "FAIL: some framing is below the target");
process.exitCode = allPass ? 0 : 1;
