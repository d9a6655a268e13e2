/**
 * The webhook fuzzing of test/fuzz/webhooks.fuzz.test.ts, bigger: N mutated payloads per route (the Telegram webhook,
 * WhatsApp's, Slack's events and interactivity, the web chat), authenticated as each platform would, against
 * `chatbridge start` with every channel on, in this process on loopback. The payloads that do not fit go first and
 * must leave the chatbot API and the platforms untouched; then the ones that fit. Prints, per route, the verdicts,
 * the answers by status, the throughput and any problem (a 5xx, HTML, a stack, a body that is not JSON), then
 * whether the bridge still answers a valid message.
 * Run: npx tsx bench/fuzz-webhooks.ts [N] [seed]   (default 15000 per route, seed 1; not a test)
 */
import { performance } from "node:perf_hooks";
import { startFuzzBridge } from "../test/fuzz/fuzz-bridge.js";
import {
  CHANNEL_OF,
  describeCase,
  type FuzzCase,
  type FuzzRun,
  fuzzCases,
  malformedCounts,
  postAll,
  TARGETS,
} from "../test/fuzz/webhook-fuzz.js";

const count = Number(process.argv[2] ?? 15_000);
const seed = Number(process.argv[3] ?? 1);

const bridge = await startFuzzBridge();
const base = bridge.running.url;
bridge.chatbot.answer = () => ({ fragments: ["ok"], pauseMs: 0 });

const statuses = (run: FuzzRun) =>
  [...run.statuses]
    .sort(([a], [b]) => a - b)
    .map(([status, n]) => `${status}×${n}`)
    .join(" ");

let failures = 0;
const report = (label: string, cases: FuzzCase[], run: FuzzRun, ms: number) => {
  const rate = Math.round((cases.length / ms) * 1000);
  console.log(
    `  ${label.padEnd(8)} ${String(cases.length).padStart(6)} bodies  ${statuses(run).padEnd(28)} ${rate} bodies/s`,
  );
  for (const { fuzzCase, answer, problem } of run.problems) {
    failures++;
    console.log(`    PROBLEM ${problem}: ${answer.status} ${answer.body.slice(0, 160)} ← ${describeCase(fuzzCase)}`);
  }
};

console.log(`${count} payloads per route, seed ${seed}`);
const totals = { bodies: 0, ms: 0 };
const cases = new Map(TARGETS.map((target) => [target, fuzzCases(target, count, seed)]));
const timed = async (label: string, batch: FuzzCase[]) => {
  const started = performance.now();
  const run = await postAll(base, batch, bridge.secrets);
  const ms = performance.now() - started;
  report(label, batch, run, ms);
  totals.bodies += batch.length;
  totals.ms += ms;
};

// First every payload that does not fit, so that nothing the bridge sends can come from the ones that do.
console.log("payloads that do not fit (malformed, refused, or kinds acknowledged unread):");
const before = bridge.outgoing();
const countedBefore = await malformedCounts(base);
for (const [target, all] of cases) {
  const refused = all.filter((fuzzCase) => fuzzCase.verdict !== "fits");
  const malformed = refused.filter((fuzzCase) => fuzzCase.verdict === "malformed").length;
  console.log(`${target}: ${malformed} malformed, ${refused.length - malformed} refused or ignored unread`);
  await timed("refused", refused);
}
await new Promise((resolve) => setTimeout(resolve, 500));
const after = bridge.outgoing();
const untouched = JSON.stringify(after) === JSON.stringify(before);
console.log(
  `nothing asked upstream or sent to a platform: ${untouched ? "yes" : `NO (${JSON.stringify(before)} → ${JSON.stringify(after)})`}`,
);
if (!untouched) failures++;
const counted = await malformedCounts(base);
for (const channel of ["telegram", "whatsapp", "slack"]) {
  const expected = [...cases.values()]
    .flat()
    .filter((fuzzCase) => fuzzCase.verdict === "malformed" && CHANNEL_OF[fuzzCase.target] === channel).length;
  const got = (counted[channel] ?? 0) - (countedBefore[channel] ?? 0);
  console.log(`chatbridge_malformed_payloads_total{channel="${channel}"}: +${got} (expected ${expected})`);
  if (got !== expected) failures++;
}

console.log("payloads that fit:");
for (const [target, all] of cases) {
  const fitting = all.filter((fuzzCase) => fuzzCase.verdict === "fits");
  console.log(`${target}: ${fitting.length} fit`);
  await timed("fitting", fitting);
}
console.log(
  `all routes: ${totals.bodies} bodies in ${(totals.ms / 1000).toFixed(1)} s, ` +
    `${Math.round((totals.bodies / totals.ms) * 1000)} bodies/s`,
);

bridge.chatbot.answer = (question) => ({ fragments: ["Answer ", "to ", question] });
const chatId = 9_300_001;
await bridge.telegram.deliver({
  update_id: 9_300_001,
  message: {
    message_id: 1,
    date: 1,
    chat: { id: chatId, type: "private" },
    from: { id: chatId, is_bot: false, first_name: "Ana" },
    text: "after the fuzzing",
  },
});
const deadline = Date.now() + 15_000;
while (
  !bridge.telegram.messagesIn(chatId).some((m) => m.text === "Answer to after the fuzzing") &&
  Date.now() < deadline
) {
  await new Promise((resolve) => setTimeout(resolve, 50));
}
const alive = bridge.telegram.messagesIn(chatId).some((m) => m.text === "Answer to after the fuzzing");
console.log(`a valid message afterwards is answered: ${alive ? "yes" : "NO"}`);
const memory = process.memoryUsage();
console.log(
  `memory of this process (the generated bodies, the emulators and the bridge): rss ${Math.round(memory.rss / 2 ** 20)} MB, heap used ${Math.round(memory.heapUsed / 2 ** 20)} MB`,
);
await bridge.close();
if (!alive) failures++;
console.log(failures === 0 ? "no problem found" : `${failures} problem(s) found`);
process.exitCode = failures === 0 ? 0 : 1;
