/**
 * N conversations at once through `chatbridge start` in webhook mode, against the Telegram emulator (which enforces
 * the Bot API's limits and answers 429 past them) and a scripted chatbot streaming 1,000-character answers in 50
 * fragments over 5 s. Each conversation was greeted in a warm-up round, so the measured round is one question and
 * one streamed answer per conversation. Reports, per N: answers delivered whole, 429s, time from the webhook post to
 * the first visible text, delay from the upstream's last byte to the final text on Telegram, Telegram calls per
 * answer, webhook acknowledgements per second, memory per conversation, and the total delivery time against the
 * least the per-bot limit (30 messages/s) allows: 5 s of streaming, then one final message per answer at 30/s.
 * chatbridge runs in its own process, as in production (its memory is read from its /metrics); the emulator and
 * the chatbot run in this one.
 * Run: npx tsx bench/telegram-bridge.ts [N ...]   (default 1 100 1000; not a test)
 */
import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { TelegramEmulator } from "../test/emulators/telegram.js";
import { freePort } from "../test/support/waiting.js";
import { ScriptedChatbot } from "../test/upstream/scripted-chatbot.js";
import { ANSWER_CHARS, answerFor, FRAGMENTS, percentile, STREAM_MS, waitFor } from "./support/streamed-answers.js";

const TOKEN = "123456789:AAbench-token-of-the-emulator_01";
const BOT_LIMIT_PER_SECOND = 30;

const sizes = process.argv
  .slice(2)
  .map(Number)
  .filter((n) => n > 0);
const rounds = sizes.length > 0 ? sizes : [1, 100, 1000];

const telegram = await TelegramEmulator.start({ token: TOKEN });
const chatbot = await ScriptedChatbot.start();
chatbot.answer = (question) => ({ fragments: answerFor(question), pauseMs: STREAM_MS / FRAGMENTS });
const port = await freePort();
const bridgeUrl = `http://127.0.0.1:${port}`;
// e.g. BRIDGE_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" profiles chatbridge under this load.
const nodeArgs = (process.env.BRIDGE_NODE_ARGS ?? "").split(" ").filter(Boolean);
const bridge = spawn(process.execPath, [...nodeArgs, "--import", "tsx", "src/main.ts", "start"], {
  cwd: fileURLToPath(new URL("..", import.meta.url)),
  stdio: ["ignore", "ignore", "inherit"],
  env: {
    PATH: process.env.PATH,
    LOG_LEVEL: "warn",
    PORT: String(port),
    DATA_DIR: mkdtempSync(path.join(tmpdir(), "chatbridge-bench-")),
    PUBLIC_URL: bridgeUrl,
    CHATBOT_API_URL: chatbot.url,
    CHATBOT_API_KEY: "sk-bench",
    CHATBOT_SERIAL_NUMBER: "bench",
    TELEGRAM_BOT_TOKEN: TOKEN,
    TELEGRAM_WEBHOOK_SECRET: "bench-secret",
    TELEGRAM_API_ROOT: telegram.url,
  },
});
const bridgeExit = new Promise((resolve) => bridge.once("exit", resolve));

/** chatbridge's heap in use, from its Prometheus metrics. */
async function bridgeHeap(): Promise<number> {
  const metrics = await (await fetch(`${bridgeUrl}/metrics`)).text();
  return Number(/^nodejs_heap_size_used_bytes (\S+)/m.exec(metrics)?.[1] ?? Number.NaN);
}

let nextUpdate = 1;
let nextChat = 1_000_000;
const update = (chatId: number, text: string) => ({
  update_id: nextUpdate++,
  message: {
    message_id: nextUpdate,
    date: Math.floor(Date.now() / 1000),
    chat: { id: chatId, type: "private", first_name: "Bench" },
    from: { id: chatId, is_bot: false, first_name: "Bench" },
    text,
  },
});

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

if (!(await waitFor(() => telegram.webhook !== undefined, 60_000))) throw new Error("chatbridge did not start");
console.log(
  `chatbridge → Telegram emulator: answers of ${ANSWER_CHARS} characters in ${FRAGMENTS} fragments over ${STREAM_MS / 1000} s`,
);
for (const n of rounds) {
  const chats = Array.from({ length: n }, () => nextChat++);
  // Warm-up: every conversation gets its greeting, so the measured round holds only the answers.
  await Promise.all(chats.map((chat) => telegram.deliver(update(chat, "/start"))));
  await waitFor(() => chats.every((chat) => telegram.messagesIn(chat).length >= 1), 120_000);
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  telegram.reset();
  chatbot.reset();
  const heapBefore = await bridgeHeap();
  let heapPeak = heapBefore;
  const sampler = setInterval(async () => {
    heapPeak = Math.max(heapPeak, await bridgeHeap().catch(() => heapPeak));
  }, 250);

  const posted = new Map<number, number>();
  const start = performance.now();
  const acks = await Promise.all(
    chats.map(async (chat) => {
      posted.set(chat, performance.now());
      return (await telegram.deliver(update(chat, `Question ${chat}`))).status;
    }),
  );
  const ackSeconds = (performance.now() - start) / 1000;
  const expected = (chat: number) => answerFor(`Question ${chat}`).join("").trim();
  const answered = (chat: number) => telegram.messagesIn(chat).some((message) => message.text === expected(chat));
  const complete = await waitFor(() => chats.every(answered), 30_000 + n * 200);
  const end = Math.max(...chats.flatMap((chat) => telegram.messagesIn(chat).map((message) => message.sentAt)));
  clearInterval(sampler);
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  const heapAfter = await bridgeHeap();

  const firstText: number[] = [];
  const finalDelay: number[] = [];
  for (const chat of chats) {
    const shown = telegram.calls.find(
      (call) =>
        call.ok &&
        Number(call.params.chat_id) === chat &&
        ["sendMessage", "sendMessageDraft", "editMessageText"].includes(call.method) &&
        String(call.params.text ?? "").trim() !== "",
    );
    if (shown) firstText.push(shown.at - (posted.get(chat) ?? start));
    const ask = chatbot.asks.find((a) => a.content === `Question ${chat}`);
    const final = telegram.messagesIn(chat).find((message) => message.text === expected(chat));
    if (ask?.answeredAt !== undefined && final) finalDelay.push(final.sentAt - ask.answeredAt);
  }
  const calls = telegram.calls.filter((call) => call.ok && call.method !== "getMe").length;
  const delivered = chats.filter(answered).length;
  const totalSeconds = (end - start) / 1000;
  const leastSeconds = STREAM_MS / 1000 + n / BOT_LIMIT_PER_SECOND;
  const leastDelay = leastFinalDelays(
    chats.flatMap((chat) => chatbot.asks.find((a) => a.content === `Question ${chat}`)?.answeredAt ?? []),
  );
  const ms = (value: number) => `${Math.round(value)} ms`;
  console.log(
    [
      `N=${n}: ${delivered}/${n} answers delivered whole${complete ? "" : " (timed out)"}, ${telegram.rateLimited().length} × 429`,
      `  acks: ${acks.filter((status) => status === 200).length}/${n} 200 OK, ${(n / ackSeconds).toFixed(0)} acks/s`,
      `  first visible text after the webhook post: p50 ${ms(percentile(firstText, 50))}, p95 ${ms(percentile(firstText, 95))}`,
      `  upstream's last byte → final text on Telegram: p50 ${ms(percentile(finalDelay, 50))}, p95 ${ms(percentile(finalDelay, 95))}` +
        ` (least the 30/s bot limit allows: p50 ${ms(percentile(leastDelay, 50))}, p95 ${ms(percentile(leastDelay, 95))})`,
      `  Telegram calls per answer: ${(calls / n).toFixed(1)} (typing, drafts, final)`,
      `  total ${totalSeconds.toFixed(1)} s; least the 30/s bot limit allows ${leastSeconds.toFixed(1)} s; ratio ${(totalSeconds / leastSeconds).toFixed(3)}`,
      `  chatbridge heap per conversation: ${((heapPeak - heapBefore) / n / 1024).toFixed(1)} KiB at peak, ${((heapAfter - heapBefore) / n / 1024).toFixed(1)} KiB a second after (no forced GC)`,
    ].join("\n"),
  );
}
bridge.kill("SIGTERM");
await bridgeExit;
await telegram.close();
await chatbot.close();
