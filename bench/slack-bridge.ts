/**
 * N threads at once in one Slack workspace through `chatbridge start`, against the Slack emulator (which enforces
 * the Web API's per-method tiers and answers 429 past them) and a scripted chatbot streaming 1,000-character
 * answers in 50 fragments over 5 s. Each thread is an assistant thread in its own DM, greeted in a warm-up round.
 * Reports answers delivered whole, 429s, Web API calls per answer (and how many answers streamed natively), the
 * first visible text (after the event's post and after the chatbot's first fragment, p50/p95, and how many answers
 * showed none before their whole answer) and the delay from the upstream's last byte to the final text in Slack
 * (p50/p95).
 * chatbridge runs in its own process, as in production.
 * Run: npx tsx bench/slack-bridge.ts [N]   (default 100; not a test)
 */
import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { SlackEmulator } from "../test/emulators/slack.js";
import { freePort } from "../test/support/waiting.js";
import { ScriptedChatbot } from "../test/upstream/scripted-chatbot.js";
import { buildChatbridge } from "./support/build.js";
import { ANSWER_CHARS, answerFor, FRAGMENTS, percentile, STREAM_MS, waitFor } from "./support/streamed-answers.js";

const SIGNING_SECRET = "bench-signing-secret";
const n = Number(process.argv[2] ?? 100);

buildChatbridge();
const slack = await SlackEmulator.start({ token: "xoxb-bench-token", botUserId: "U0BENCHBOT", teamId: "T0BENCH" });
const chatbot = await ScriptedChatbot.start();
chatbot.answer = (question) => ({ fragments: answerFor(question), pauseMs: STREAM_MS / FRAGMENTS });
const port = await freePort();
const events = `http://127.0.0.1:${port}/webhooks/slack/events`;
const bridge = spawn(process.execPath, ["dist/src/main.js", "start"], {
  cwd: fileURLToPath(new URL("..", import.meta.url)),
  stdio: ["ignore", "ignore", "inherit"],
  env: {
    PATH: process.env.PATH,
    LOG_LEVEL: "warn",
    PORT: String(port),
    DATA_DIR: mkdtempSync(path.join(tmpdir(), "chatbridge-bench-")),
    CHATBOT_API_URL: chatbot.url,
    CHATBOT_API_KEY: "sk-bench",
    CHATBOT_SERIAL_NUMBER: "bench",
    // The scripted chatbot has no listings to watch.
    ALERTS_POLL_MINUTES: "0",
    SLACK_BOT_TOKEN: slack.token,
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
    SLACK_API_URL: slack.url,
  },
});
const bridgeExit = new Promise((resolve) => bridge.once("exit", resolve));
if (!(await waitFor(() => slack.callsTo("auth.test").length > 0, 60_000))) throw new Error("chatbridge did not start");
await new Promise((resolve) => setTimeout(resolve, 500));

let nextTs = 1767390000;
const threads = Array.from({ length: n }, (_, i) => ({ channel: `D0BENCH${i}`, threadTs: `${++nextTs}.000001` }));
const post = (thread: (typeof threads)[number], text: string) =>
  slack.deliver(
    events,
    {
      type: "event_callback",
      team_id: "T0BENCH",
      event_id: `Ev${++nextTs}`,
      event: {
        type: "message",
        channel_type: "im",
        channel: thread.channel,
        user: `U${thread.channel}`,
        text,
        ts: `${++nextTs}.000002`,
        thread_ts: thread.threadTs,
      },
    },
    { signingSecret: SIGNING_SECRET },
  );

console.log(`chatbridge → Slack emulator: ${n} assistant threads, answers of ${ANSWER_CHARS} characters over 5 s`);
// Warm-up: every thread gets its greeting first, so the measured round holds only the answers.
await Promise.all(threads.map((thread) => post(thread, "/start")));
await waitFor(() => threads.every((t) => slack.messagesIn(t.channel, t.threadTs).length >= 1), 600_000);
await new Promise((resolve) => setTimeout(resolve, 5_000));
const warmUpLimited = slack.rateLimited().length;
slack.reset();
chatbot.reset();

const start = performance.now();
const postedAt = new Map<string, number>();
const acks = await Promise.all(
  threads.map(async (thread) => {
    postedAt.set(thread.channel, performance.now());
    return (await post(thread, `Question ${thread.channel}`)).status;
  }),
);
const expected = (thread: (typeof threads)[number]) => answerFor(`Question ${thread.channel}`).join("").trim();
const finalOf = (thread: (typeof threads)[number]) =>
  slack
    .messagesIn(thread.channel, thread.threadTs)
    .find(
      (m) =>
        !m.streaming && m.text.trim().startsWith(expected(thread).slice(0, 40)) && m.text.length >= ANSWER_CHARS - 5,
    );
const complete = await waitFor(() => threads.every((thread) => finalOf(thread) !== undefined), 900_000);
const totalSeconds = (performance.now() - start) / 1000;

const finalDelay: number[] = [];
const firstAfterPost: number[] = [];
const firstAfterFragment: number[] = [];
let streamed = 0;
let firstWasWhole = 0;
for (const thread of threads) {
  const final = finalOf(thread);
  const ask = chatbot.asks.find((a) => a.content === `Question ${thread.channel}`);
  if (!final || ask?.answeredAt === undefined) continue;
  if (final.format === "markdown") streamed += 1;
  const finalAt = final.stoppedAt ?? final.changedAt ?? final.postedAt;
  finalDelay.push(finalAt - ask.answeredAt);
  // The first text: the earliest of the answer's messages in the thread (posted, or a stream started, with text).
  const firstAt = Math.min(
    ...slack
      .messagesIn(thread.channel, thread.threadTs)
      .filter((m) => m.text.trim() !== "")
      .map((m) => m.postedAt),
  );
  if (final.edits === 0 && final.appends === 0 && final.postedAt === firstAt) firstWasWhole += 1;
  firstAfterPost.push(firstAt - (postedAt.get(thread.channel) ?? start));
  if (ask.firstFragmentAt !== undefined) firstAfterFragment.push(firstAt - ask.firstFragmentAt);
}
const calls = slack.calls.filter((call) => call.ok).length;
const ms = (value: number) => `${Math.round(value)} ms`;
console.log(
  [
    `N=${n}: ${finalDelay.length}/${n} answers delivered whole${complete ? "" : " (timed out)"}, ${slack.rateLimited().length} × 429 (${warmUpLimited} in the warm-up), acks ${acks.filter((s) => s === 200).length}/${n} 200 OK`,
    `  Web API calls per answer: ${(calls / n).toFixed(1)}; streamed natively: ${streamed}/${n}`,
    `  first visible text after the event post: p50 ${ms(percentile(firstAfterPost, 50))}, p95 ${ms(percentile(firstAfterPost, 95))}; after the chatbot's first fragment: p50 ${ms(percentile(firstAfterFragment, 50))}, p95 ${ms(percentile(firstAfterFragment, 95))}; ${firstWasWhole}/${n} answers showed no text before their whole answer (one post)`,
    `  upstream's last byte → final text in Slack: p50 ${ms(percentile(finalDelay, 50))}, p95 ${ms(percentile(finalDelay, 95))}`,
    `  all answers delivered after ${totalSeconds.toFixed(1)} s`,
  ].join("\n"),
);
bridge.kill("SIGTERM");
await bridgeExit;
await slack.close();
await chatbot.close();
