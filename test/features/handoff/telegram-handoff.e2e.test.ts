import type { Update } from "grammy/types";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { RunningBridge } from "../../../src/app/bridge-app.js";
import { run } from "../../../src/cli/run.js";
import { handoffTexts } from "../../../src/features/handoff/handoff-texts.js";
import { privateUpdateIn } from "../../adapters/telegram/telegram-fixtures.js";
import { repliesIn, textsIn } from "../../adapters/telegram/telegram-replies.js";
import { TelegramEmulator } from "../../emulators/telegram.js";
import { startBridgeUnderTest } from "../../support/bridge-under-test.js";
import { SmtpSink } from "../../support/smtp-sink.js";
import { terminal } from "../../support/terminal.js";
import { until } from "../../support/waiting.js";
import { ScriptedChatbot } from "../../upstream/scripted-chatbot.js";

const HANDOFF_TEXTS = handoffTexts(undefined);

const TOKEN = "123456789:AAtest-token-of-the-handoff-bot";
const SECRET = "handoff-secret";
const CONFIRMATION = "An agent will write to you here shortly.";
const ADMIN_TOKEN = "admin-token-of-the-handoff-test";
/** The scripted chatbot's WelcomeMessage as Telegram shows it: at first contact it opens the first answer. */
const WELCOME = "Welcome to Homes!";

let telegram: TelegramEmulator;
let chatbot: ScriptedChatbot;
let smtp: SmtpSink;
let running: RunningBridge;

beforeAll(async () => {
  [telegram, chatbot, smtp] = await Promise.all([
    TelegramEmulator.start({ token: TOKEN, bot: { id: 999, username: "handoff_homes_bot" } }),
    ScriptedChatbot.start(),
    SmtpSink.start(),
  ]);
  Object.assign(chatbot.welcome, {
    TalkToHumanEmail: "agents@homes.example",
    TalkToHumanResponseMessage: CONFIRMATION,
    TimeZone: "America/Chicago",
  });
  running = await startBridgeUnderTest(chatbot, {
    TELEGRAM_BOT_TOKEN: TOKEN,
    TELEGRAM_WEBHOOK_SECRET: SECRET,
    TELEGRAM_API_ROOT: telegram.url,
    SMTP_URL: smtp.url(),
    MAIL_FROM: "Homes bot <bot@homes.example>",
    HANDOFF_TIMEOUT: "3s",
    ADMIN_TOKEN,
  });
});

afterAll(async () => {
  await running?.close(1000);
  await Promise.all([telegram?.close(), chatbot?.close(), smtp?.stop()]);
});

beforeEach(() => {
  chatbot.answer = (question) => ({ fragments: ["Answer to ", question] });
});

afterEach(() => {
  expect(telegram.rateLimited()).toEqual([]);
});

let nextChat = 30_000;

/** A message from Ana (@ana_buyer) in her own chat. */
function from(chatId: number, text: string): Update {
  return privateUpdateIn(chatId, {
    text,
    from: { id: chatId, is_bot: false, first_name: "Ana", username: "ana_buyer" },
  });
}

async function say(chatId: number, text: string): Promise<Update> {
  const update = from(chatId, text);
  expect((await telegram.deliver(update, { secret: SECRET })).status).toBe(200);
  return update;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("Talk to a human over Telegram (emulator → bridge → SMTP on loopback)", () => {
  it("mails the conversation to TalkToHumanEmail, then tells the user TalkToHumanResponseMessage", async () => {
    const chatId = ++nextChat;
    await say(chatId, "3 bedrooms in Austin?");
    const answer = `${WELCOME}\n\nAnswer to 3 bedrooms in Austin?`;
    expect(await textsIn(telegram, chatId, 1)).toEqual([answer]);
    const asked = chatbot.asks.length;
    await say(chatId, "I want to talk to a human please");
    expect(await textsIn(telegram, chatId, 2)).toEqual([answer, CONFIRMATION]);
    // The request itself is not a question for the chatbot.
    expect(chatbot.asks.length).toBe(asked);
    const mail = smtp.received.at(-1);
    expect(mail?.envelope.to).toEqual(["agents@homes.example"]);
    expect(mail?.from).toEqual({ name: "Homes bot", address: "bot@homes.example" });
    expect(mail?.subject).toBe("Talk to a human: Ana (@ana_buyer) on Telegram");
    expect(mail?.text).toContain("Reach them: https://t.me/ana_buyer");
    expect(mail?.text).toMatch(
      // The greeting went out as the start of the first answer's message, and the transcript shows that message.
      /\] Ana: 3 bedrooms in Austin\?\n\[.*\] Bot: Welcome to \*\*Homes\*\*!\n\nAnswer to 3 bedrooms in Austin\?\n\[.*\] Ana: I want to talk to a human please/,
    );
    expect(mail?.text).toContain("(America/Chicago)");
    expect(mail?.html).toContain('href="https://t.me/ana_buyer"');
  });

  it("stays silent while a person has the conversation, forwards what the user writes, and hands back on /bot", async () => {
    const chatId = ++nextChat;
    await say(chatId, "/human");
    expect(await repliesIn(telegram, chatId, 1)).toEqual([CONFIRMATION]);
    const asked = chatbot.asks.length;
    const mails = smtp.received.length;
    await say(chatId, "my budget is 450k");
    await say(chatId, "and I need parking");
    await sleep(500);
    expect(await repliesIn(telegram, chatId, 1)).toEqual([CONFIRMATION]);
    expect(chatbot.asks.length).toBe(asked);
    await say(chatId, "/bot");
    expect(await repliesIn(telegram, chatId, 2)).toEqual([CONFIRMATION, HANDOFF_TEXTS.botBack]);
    // What the user wrote meanwhile went to the same address in one mail when the bot took over again.
    await until(() => (smtp.received.length > mails ? true : undefined));
    const followUp = smtp.received.at(-1);
    expect(followUp?.subject).toBe("Re: Talk to a human: Ana (@ana_buyer) on Telegram");
    expect(followUp?.text).toMatch(/my budget is 450k[\s\S]*and I need parking/);
    await say(chatId, "any lofts?");
    expect((await repliesIn(telegram, chatId, 3)).at(-1)).toBe("Answer to any lofts?");
  });

  it("offers a Talk to a human button after an answer the chatbot did not have, and the tap hands over", async () => {
    const chatId = ++nextChat;
    chatbot.answer = (question) => ({ fragments: [`I don't know about ${question}.`], noAnswer: true });
    await say(chatId, "pools?");
    expect(await textsIn(telegram, chatId, 2)).toEqual([
      `${WELCOME}\n\nI don't know about pools?.`,
      HANDOFF_TEXTS.offer,
    ]);
    expect(telegram.messagesIn(chatId).at(-1)?.replyMarkup).toMatchObject({
      keyboard: [[{ text: "Talk to a human" }]],
    });
    const mails = smtp.received.length;
    await say(chatId, "Talk to a human");
    expect((await textsIn(telegram, chatId, 3)).at(-1)).toBe(CONFIRMATION);
    await until(() => (smtp.received.length > mails ? true : undefined));
    chatbot.answer = (question) => ({ fragments: ["Answer to ", question] });
  });

  it("lets an operator list the conversations with a person and give one back, by CLI over the admin endpoint", async () => {
    const chatId = ++nextChat;
    await say(chatId, "/human");
    expect(await repliesIn(telegram, chatId, 1)).toEqual([CONFIRMATION]);
    const env = { ADMIN_TOKEN, PORT: "1" };
    const listed = terminal(env);
    expect(await run(["handoff", "list", "--url", running.url], listed.io)).toBe(0);
    const line = listed
      .out()
      .split("\n")
      .find((entry) => entry.includes("@ana_buyer") && entry.includes(`${chatId}`));
    expect(line).toMatch(/^telegram:\S+ +Ana @ana_buyer on telegram · since .* · mailed to agents@homes\.example/);
    const conversation = line?.split(" ")[0] as string;
    const resumed = terminal(env);
    expect(await run(["handoff", "resume", conversation, "--url", running.url], resumed.io)).toBe(0);
    expect(resumed.out()).toBe(`${conversation} is back with the bot; the user was told.\n`);
    expect(await repliesIn(telegram, chatId, 2)).toEqual([CONFIRMATION, HANDOFF_TEXTS.botBack]);
    const again = terminal(env);
    expect(await run(["handoff", "resume", conversation, "--url", running.url], again.io)).toBe(1);
    expect(again.err()).toContain("is with a person");
    // A wrong token is refused, and says so.
    const wrong = terminal({ ADMIN_TOKEN: "not-the-admin-token-at-all" });
    expect(await run(["handoff", "list", "--url", running.url], wrong.io)).toBe(1);
    expect(wrong.err()).toContain("ADMIN_TOKEN differs");
    const raw = await fetch(`${running.url}/admin/handoffs`);
    expect(raw.status).toBe(401);
  });

  it("sends one mail when Telegram delivers the request twice", async () => {
    const chatId = ++nextChat;
    const mails = smtp.received.length;
    const update = await say(chatId, "talk to a person");
    await telegram.deliver(update, { secret: SECRET });
    expect(await repliesIn(telegram, chatId, 1)).toEqual([CONFIRMATION]);
    await sleep(300);
    expect(smtp.received.length - mails).toBe(1);
  });

  it("gives the conversation back to the bot when the handoff times out", async () => {
    const chatId = ++nextChat;
    await say(chatId, "/human");
    expect(await repliesIn(telegram, chatId, 1)).toEqual([CONFIRMATION]);
    await sleep(3200);
    await say(chatId, "still there?");
    expect(await repliesIn(telegram, chatId, 3)).toEqual([
      CONFIRMATION,
      HANDOFF_TEXTS.botBack,
      "Answer to still there?",
    ]);
  });

  it("tells the user honestly when the mail server is down, keeps the request and steps aside", async () => {
    const chatId = ++nextChat;
    await smtp.stop();
    try {
      await say(chatId, "/human");
      expect(await repliesIn(telegram, chatId, 1)).toEqual([HANDOFF_TEXTS.delayed]);
      const asked = chatbot.asks.length;
      await say(chatId, "hello?");
      await sleep(400);
      expect(chatbot.asks.length).toBe(asked);
    } finally {
      await smtp.restart();
    }
  });
});
