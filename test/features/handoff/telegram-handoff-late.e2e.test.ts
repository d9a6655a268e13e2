import type { Update } from "grammy/types";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { RunningBridge } from "../../../src/app/bridge-app.js";
import { handoffTexts } from "../../../src/features/handoff/handoff-texts.js";
import { privateUpdateIn } from "../../adapters/telegram/telegram-fixtures.js";
import { repliesIn } from "../../adapters/telegram/telegram-replies.js";
import { TelegramEmulator } from "../../emulators/telegram.js";
import { startBridgeUnderTest } from "../../support/bridge-under-test.js";
import { SmtpSink } from "../../support/smtp-sink.js";
import { removeDataDir, tempDataDir } from "../../support/sqlite.js";
import { ScriptedChatbot } from "../../upstream/scripted-chatbot.js";

const HANDOFF_TEXTS = handoffTexts(undefined);

const TOKEN = "123456789:AAtest-token-of-the-late-handoff-bot";
const SECRET = "late-handoff-secret";
const CONFIRMATION = "An agent will write to you here shortly.";
/** A retry 1.5 s after a failed attempt, looked for every 100 ms: slow enough to see the first reply alone. */
const RETRY_DELAY_MS = 1500;
const MAIL_RETRY = { delaysMs: [RETRY_DELAY_MS], passIntervalMs: 100 };

let telegram: TelegramEmulator;
let chatbot: ScriptedChatbot;
let smtp: SmtpSink;
const running: RunningBridge[] = [];
const dataDirs: string[] = [];

beforeAll(async () => {
  [telegram, chatbot, smtp] = await Promise.all([
    TelegramEmulator.start({ token: TOKEN, bot: { id: 998, username: "late_homes_bot" } }),
    ScriptedChatbot.start(),
    SmtpSink.start(),
  ]);
  Object.assign(chatbot.welcome, {
    TalkToHumanEmail: "agents@homes.example",
    TalkToHumanResponseMessage: CONFIRMATION,
  });
});

afterEach(async () => {
  for (const bridge of running.splice(0)) await bridge.close(1000);
  for (const dataDir of dataDirs.splice(0)) removeDataDir(dataDir);
  expect(telegram.rateLimited()).toEqual([]);
});

afterAll(async () => {
  await Promise.all([telegram?.close(), chatbot?.close(), smtp?.stop()]);
});

/** A bridge with Telegram and SMTP, retrying mails quickly; `env` adds to it (a SQLite store). */
async function bridge(env: Record<string, string> = {}): Promise<RunningBridge> {
  const started = await startBridgeUnderTest(
    chatbot,
    {
      TELEGRAM_BOT_TOKEN: TOKEN,
      TELEGRAM_WEBHOOK_SECRET: SECRET,
      TELEGRAM_API_ROOT: telegram.url,
      SMTP_URL: smtp.url(),
      MAIL_FROM: "Homes bot <bot@homes.example>",
      ...env,
    },
    { mailRetry: MAIL_RETRY },
  );
  running.push(started);
  return started;
}

let nextChat = 70_000;

async function say(chatId: number, text: string): Promise<void> {
  const update: Update = privateUpdateIn(chatId, {
    text,
    from: { id: chatId, is_bot: false, first_name: "Ana", username: "ana_buyer" },
  });
  expect((await telegram.deliver(update, { secret: SECRET })).status).toBe(200);
}

/** The handoff mails the sink accepted for this chat's user so far. */
function handoffMails(chatId: number) {
  return smtp.received.filter(
    (mail) => mail.subject === "Talk to a human: Ana (@ana_buyer) on Telegram" && mail.text.includes(`:${chatId}`),
  );
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("Talk to a human over Telegram when the mail goes out later (emulator → bridge → SMTP sink)", () => {
  it("says it will be sent as soon as possible, then confirms once when a retry gets the mail accepted", async () => {
    await bridge();
    const chatId = ++nextChat;
    smtp.failNext("RCPT", 451);
    await say(chatId, "/human");
    expect(await repliesIn(telegram, chatId, 1)).toEqual([HANDOFF_TEXTS.delayed]);
    expect(handoffMails(chatId)).toHaveLength(0);

    expect(await repliesIn(telegram, chatId, 2)).toEqual([HANDOFF_TEXTS.delayed, CONFIRMATION]);
    expect(handoffMails(chatId)).toHaveLength(1);
    // Past another retry cycle and many passes: neither the mail nor the confirmation comes again.
    await sleep(2 * RETRY_DELAY_MS);
    expect(await repliesIn(telegram, chatId, 2)).toEqual([HANDOFF_TEXTS.delayed, CONFIRMATION]);
    expect(handoffMails(chatId)).toHaveLength(1);
  });

  it("confirms after a restart: the next process on the same SQLite store delivers the mail and tells the user", async () => {
    const dataDir = tempDataDir();
    dataDirs.push(dataDir);
    const store = { DATA_DIR: dataDir, STORE_URL: "sqlite://bridge.db" };
    const first = await bridge(store);
    const chatId = ++nextChat;
    await smtp.stop();
    try {
      await say(chatId, "talk to a person");
      expect(await repliesIn(telegram, chatId, 1)).toEqual([HANDOFF_TEXTS.delayed]);
      // A retry fails too while the server is still down.
      await sleep(RETRY_DELAY_MS + 300);
      await first.close(1000);
      running.splice(running.indexOf(first), 1);
    } finally {
      await smtp.restart();
    }
    expect(await repliesIn(telegram, chatId, 1)).toEqual([HANDOFF_TEXTS.delayed]);
    expect(handoffMails(chatId)).toHaveLength(0);
    // The mail is due when the next process starts, so the very first pass of its outbox sends it.
    await sleep(RETRY_DELAY_MS);

    await bridge(store);
    expect(await repliesIn(telegram, chatId, 2)).toEqual([HANDOFF_TEXTS.delayed, CONFIRMATION]);
    expect(handoffMails(chatId)).toHaveLength(1);
    await sleep(2 * RETRY_DELAY_MS);
    expect(await repliesIn(telegram, chatId, 2)).toEqual([HANDOFF_TEXTS.delayed, CONFIRMATION]);
    expect(handoffMails(chatId)).toHaveLength(1);
  });
});
