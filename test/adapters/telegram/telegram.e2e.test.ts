// biome-ignore-all lint/suspicious/noTemplateCurlyInString: BRIDGE_CONFIG files hold literal ${NAME} placeholders
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Update } from "grammy/types";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type RunningBridge, startBridge } from "../../../src/app/bridge-app.js";
import { createLogger } from "../../../src/common/log.js";
import { loadConfig } from "../../../src/config/config.js";
import { TelegramEmulator } from "../../emulators/telegram.js";
import { freePort, until } from "../../support/waiting.js";
import { ScriptedChatbot } from "../../upstream/scripted-chatbot.js";
import { FIXTURE_BOT, replayFixture } from "./telegram-fixtures.js";

const TOKEN = "123456789:AAtest-token-of-the-emulator_01";
const SALES_TOKEN = "987654321:AAtest-token-of-the-sales-bot_02";
const SECRET = "webhook-secret_42";

let telegram: TelegramEmulator;
let salesTelegram: TelegramEmulator;
let chatbot: ScriptedChatbot;
let running: RunningBridge;

beforeAll(async () => {
  [telegram, salesTelegram, chatbot] = await Promise.all([
    TelegramEmulator.start({ token: TOKEN, bot: { id: FIXTURE_BOT.id, username: FIXTURE_BOT.username } }),
    TelegramEmulator.start({ token: SALES_TOKEN, bot: { id: 555, username: "sales_homes_bot" } }),
    ScriptedChatbot.start(),
  ]);
  const port = await freePort();
  const dir = mkdtempSync(path.join(tmpdir(), "chatbridge-telegram-"));
  const bots = path.join(dir, "bots.yaml");
  writeFileSync(
    bots,
    [
      "bots:",
      "  - id: sales",
      "    chatbot: { serialNumber: sales-chatbot }",
      "    telegram: { botToken: '${SALES_TOKEN}', webhookSecret: '${SALES_SECRET}', apiRoot: '${SALES_API_ROOT}' }",
    ].join("\n"),
  );
  const config = loadConfig(
    {
      PORT: String(port),
      DATA_DIR: dir,
      STORE_URL: "memory://",
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      CHATBOT_API_URL: chatbot.url,
      CHATBOT_API_KEY: "sk-test",
      CHATBOT_SERIAL_NUMBER: "homes-chatbot",
      ANSWER_TIMEOUT_MS: "3000",
      TELEGRAM_BOT_TOKEN: TOKEN,
      TELEGRAM_WEBHOOK_SECRET: SECRET,
      TELEGRAM_API_ROOT: telegram.url,
      BRIDGE_CONFIG: bots,
      SALES_TOKEN,
      SALES_SECRET: "sales-secret",
      SALES_API_ROOT: salesTelegram.url,
    },
    { envFile: undefined },
  );
  running = await startBridge(config, createLogger("silent"), { host: "127.0.0.1" });
});

afterAll(async () => {
  await running?.close(1000);
  await Promise.all([telegram?.close(), salesTelegram?.close(), chatbot?.close()]);
});

afterEach(() => {
  // The pacer keeps every call within Telegram's limits: the emulator never had to refuse one.
  expect(telegram.rateLimited()).toEqual([]);
});

let nextUpdate = 9000;
let nextChat = 70_000;

/** A private message from a new user (a new chat, so every test starts a fresh conversation). */
function privateMessage(text: string, chatId = ++nextChat): Update {
  const id = ++nextUpdate;
  const user = { id: chatId, is_bot: false, first_name: "Ana" };
  return {
    update_id: id,
    message: {
      message_id: id,
      date: 1767225000,
      chat: { id: chatId, type: "private", first_name: "Ana" },
      from: user,
      text,
    },
  } as Update;
}

/** Visible texts of the bot's messages in a chat, welcome included. */
const textsIn = (chatId: number) => telegram.messagesIn(chatId).map((message) => message.text);

/** Resolves once the emulator has received no call for `ms` (the bridge has nothing more to say). */
async function quiet(emulator = telegram, ms = 400): Promise<void> {
  await until(() => (performance.now() - (emulator.calls.at(-1)?.at ?? 0) > ms ? true : undefined), 15_000);
}

/** Waits until the chat shows `count` messages and the bridge has gone quiet. */
async function settled(chatId: number, count: number): Promise<string[]> {
  await until(() => (telegram.messagesIn(chatId).length >= count ? true : undefined), 15_000);
  await quiet();
  return textsIn(chatId);
}

describe("Telegram end to end (webhook, emulator, scripted chatbot)", () => {
  it("registers its webhook with the secret, the update types it reads and 100 connections at once", () => {
    expect(telegram.webhook).toMatchObject({
      url: `${running.url}/webhooks/telegram`,
      secretToken: SECRET,
      allowedUpdates: ["message", "stopped_message_generation", "callback_query"],
      maxConnections: 100,
    });
    expect(running.channels.find((channel) => channel.name === "Telegram")).toMatchObject({ enabled: true });
  });

  it("answers the recorded update: acknowledged at once, the greeting opening the exact final text", async () => {
    const { mention } = replayFixture();
    const chatId = mention.message?.chat.id as number;
    chatbot.answer = (question) => ({
      fragments: ["**Bold** answer ", "to ", question, " — done."],
      firstFragmentMs: 1_000,
      pauseMs: 150,
    });
    const started = performance.now();
    const ack = await telegram.deliver(mention);
    const ackMs = performance.now() - started;
    expect(ack.status).toBe(200);
    // Telegram's request is answered before the chatbot has even finished streaming (4 × 150 ms).
    expect(ackMs).toBeLessThan(400);
    // At first contact the greeting opens the answer's message (it never delays it), its suggestions at the end.
    expect(await settled(chatId, 1)).toEqual(["Welcome to Homes!\n\nBold answer to hi — done."]);
    const [answer] = telegram.messagesIn(chatId);
    expect(answer?.replyMarkup).toMatchObject({ keyboard: [[{ text: "Homes for sale" }], [{ text: "Rentals" }]] });
    expect(answer?.parseMode).toBe("HTML");
    expect(answer?.rawText).toContain("<b>Bold</b>");
    // The mention is not part of the question, and the answer streamed as a native draft first.
    expect(chatbot.asks.at(-1)?.content).toBe("hi");
    // The greeting shows as a draft at once, long before the chatbot's first fragment (1 s).
    const drafts = telegram.draftsIn(chatId);
    expect(drafts[0]?.text).toBe("Welcome to Homes!");
    expect((drafts[0]?.at ?? Infinity) - started).toBeLessThan(500);
  });

  it("shows typing while the chatbot thinks, until the answer's first text", async () => {
    chatbot.answer = (question) => ({ fragments: ["Thought ", "about ", question], firstFragmentMs: 1_000 });
    const chatId = ++nextChat;
    await telegram.deliver(privateMessage("/start", chatId));
    await settled(chatId, 1);
    await telegram.deliver(privateMessage("think", chatId));
    expect((await settled(chatId, 2))[1]).toBe("Thought about think");
    const asked = chatbot.asks.find((ask) => ask.content === "think");
    const shown = telegram.calls.find(
      (call) =>
        call.ok &&
        Number(call.params.chat_id) === chatId &&
        ["sendMessageDraft", "sendMessage"].includes(call.method) &&
        call.at > (asked?.at ?? Infinity),
    );
    const typing = telegram.callsTo("sendChatAction").filter((call) => Number(call.params.chat_id) === chatId);
    expect(typing.length).toBeGreaterThan(0);
    for (const call of typing) expect(call.at).toBeLessThan(shown?.at ?? 0);
  });

  it("reads the answer in every framing the chatbot API may stream", async () => {
    const framings = ["sse", "ndjson", "concatenated"] as const;
    const chats = framings.map(() => ++nextChat);
    chatbot.answer = (question) => ({
      fragments: ["Streamed ", "as ", question],
      framing: framings.find((framing) => question === framing),
    });
    for (const [index, framing] of framings.entries()) await telegram.deliver(privateMessage(framing, chats[index]));
    for (const [index, framing] of framings.entries()) {
      expect((await settled(chats[index] as number, 1))[0]).toBe(`Welcome to Homes!\n\nStreamed as ${framing}`);
    }
  });

  it("refuses a wrong or missing secret with 401 and processes nothing", async () => {
    const update = privateMessage("let me in");
    const asked = chatbot.asks.length;
    expect((await telegram.deliver(update, { secret: "wrong-secret" })).status).toBe(401);
    expect((await telegram.deliver(update, { secret: null })).status).toBe(401);
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(chatbot.asks.length).toBe(asked);
    expect(telegram.messagesIn(update.message?.chat.id as number)).toEqual([]);
  });

  it("never answers a re-delivered update twice, even while the first answer streams", async () => {
    chatbot.answer = (question) => ({ fragments: ["Once ", "for ", question], pauseMs: 100 });
    const update = privateMessage("only once");
    const chatId = update.message?.chat.id as number;
    expect((await telegram.deliver(update)).status).toBe(200);
    await until(() => (chatbot.asks.some((ask) => ask.content === "only once") ? true : undefined));
    expect((await telegram.deliver(update)).status).toBe(200);
    expect(await settled(chatId, 1)).toEqual(["Welcome to Homes!\n\nOnce for only once"]);
    expect(chatbot.asks.filter((ask) => ask.content === "only once")).toHaveLength(1);
  });

  it("answers a burst strictly in order, one question at a time", async () => {
    chatbot.answer = (question) => ({ fragments: ["Re: ", question], pauseMs: 20 });
    const chatId = ++nextChat;
    const questions = ["one", "two", "three", "four"];
    for (const question of questions) await telegram.deliver(privateMessage(question, chatId));
    const texts = await settled(chatId, 4);
    expect(texts).toEqual(["Welcome to Homes!\n\nRe: one", "Re: two", "Re: three", "Re: four"]);
    const asks = chatbot.asks.filter((ask) => questions.includes(ask.content));
    expect(asks.map((ask) => ask.content)).toEqual(questions);
    // Each question went upstream only after the previous answer had been delivered.
    const sent = telegram.messagesIn(chatId);
    for (let i = 1; i < asks.length; i++) expect(asks[i]?.at).toBeGreaterThan(sent[i - 1]?.sentAt ?? Infinity);
  });

  it("starts a new chatbot session on /reset", async () => {
    chatbot.answer = (question) => ({ fragments: [question.toUpperCase()] });
    const chatId = ++nextChat;
    await telegram.deliver(privateMessage("before", chatId));
    await settled(chatId, 1);
    await telegram.deliver(privateMessage("/reset", chatId));
    await telegram.deliver(privateMessage("after", chatId));
    const texts = await settled(chatId, 3);
    expect(texts).toEqual(["Welcome to Homes!\n\nBEFORE", "Welcome to Homes!", "AFTER"]);
    const before = chatbot.asks.find((ask) => ask.content === "before");
    const after = chatbot.asks.find((ask) => ask.content === "after");
    expect(after?.sessionId).not.toBe(before?.sessionId);
  });

  it("keeps the text shown so far and apologises when the stream breaks; the next message works", async () => {
    chatbot.answer = (question) =>
      question === "break"
        ? { fragments: ["The first part ", "arrives, ", "then nothing"], breakAfter: 2, pauseMs: 100 }
        : { fragments: ["Fine again"] };
    const chatId = ++nextChat;
    await telegram.deliver(privateMessage("break", chatId));
    const texts = await settled(chatId, 2);
    expect(texts[0]).toBe("Welcome to Homes!\n\nThe first part arrives,");
    expect(texts[1]).toBe("Sorry, I couldn't finish that answer. Please try again in a moment.");
    await telegram.deliver(privateMessage("again", chatId));
    expect((await settled(chatId, 3))[2]).toBe("Fine again");
  });

  it("delivers a 5,000-character answer as two well-formed messages", async () => {
    const paragraph = (n: number) => `Paragraph ${n}: ${"The **house** has a garden and a view. ".repeat(12).trim()}`;
    const paragraphs = Array.from({ length: 11 }, (_, i) => paragraph(i + 1));
    const answer = paragraphs.join("\n\n");
    expect(answer.length).toBeGreaterThan(5000);
    chatbot.answer = () => ({ fragments: answer.match(/[\s\S]{1,250}/g) ?? [], pauseMs: 5 });
    const chatId = ++nextChat;
    await telegram.deliver(privateMessage("/start", chatId));
    await settled(chatId, 1);
    await telegram.deliver(privateMessage("tell me everything", chatId));
    const texts = (await settled(chatId, 3)).slice(1);
    expect(texts).toHaveLength(2);
    for (const text of texts) expect(text.length).toBeLessThanOrEqual(4096);
    // Split at a paragraph boundary, the bold markup rendered on both sides, nothing lost.
    const visible = paragraphs.map((p) => p.replaceAll("**", ""));
    expect(texts.join("\n\n")).toBe(visible.join("\n\n"));
    for (const message of telegram.messagesIn(chatId).slice(1)) expect(message.rawText).toContain("<b>house</b>");
  });

  it("stops generating when the user presses stop, keeping the text so far", async () => {
    chatbot.answer = () => ({ fragments: Array.from({ length: 40 }, (_, i) => `word${i} `), pauseMs: 100 });
    const chatId = ++nextChat;
    await telegram.deliver(privateMessage("talk a lot", chatId));
    await until(() => (telegram.draftsIn(chatId).some((draft) => draft.text.includes("word2")) ? true : undefined));
    const ask = await until(() => chatbot.asks.find((a) => a.content === "talk a lot"));
    await telegram.deliver({
      update_id: ++nextUpdate,
      stopped_message_generation: { chat: { id: chatId, type: "private", first_name: "Ana" }, draft_id: 1 },
    });
    await ask.clientGone;
    const texts = await settled(chatId, 1);
    expect(texts[0]).toMatch(/^Welcome to Homes!\n\nword0 word1 word2/);
    expect(texts[0]).not.toContain("word39");
    expect(texts).toHaveLength(1);
  });

  it("in groups answers only when addressed, by editing a reply in the same topic", async () => {
    chatbot.answer = (question) => ({ fragments: ["Group ", "answer ", `to ${question}`], pauseMs: 50 });
    const group = { id: -100_777, type: "supergroup", title: "Agents", is_forum: true };
    const from = { id: 4242, is_bot: false, first_name: "Ada" };
    const groupUpdate = (text: string, extra: object = {}) =>
      ({
        update_id: ++nextUpdate,
        message: { message_id: nextUpdate, date: 1767225000, chat: group, from, text, ...extra },
      }) as Update;
    const asked = chatbot.asks.length;
    await telegram.deliver(groupUpdate("just chatting among agents"));
    const mention = groupUpdate("@vercelchatsdkbot any flats?", {
      entities: [{ type: "mention", offset: 0, length: 17 }],
      message_thread_id: 12,
      is_topic_message: true,
    });
    await telegram.deliver(mention);
    await until(() => (telegram.messagesIn(group.id).some((m) => m.text.endsWith("any flats?")) ? true : undefined));
    await quiet();
    expect(chatbot.asks.slice(asked).map((ask) => ask.content)).toEqual(["any flats?"]);
    const answer = telegram.messagesIn(group.id).find((m) => m.text.endsWith("Group answer to any flats?"));
    expect(answer).toMatchObject({ threadId: 12, replyToMessageId: mention.message?.message_id });
    expect(telegram.draftsIn(group.id)).toEqual([]);
  });

  it("serves a second bot of BRIDGE_CONFIG on /webhooks/telegram/<botId> with its own chatbot", async () => {
    expect(salesTelegram.webhook).toMatchObject({
      url: `${running.url}/webhooks/telegram/sales`,
      secretToken: "sales-secret",
    });
    chatbot.answer = (question) => ({ fragments: [`Sales: ${question}`] });
    const update = privateMessage("a shop to rent?");
    const chatId = update.message?.chat.id as number;
    expect((await salesTelegram.deliver(update, { secret: SECRET })).status).toBe(401);
    expect((await salesTelegram.deliver(update)).status).toBe(200);
    await until(() => (salesTelegram.messagesIn(chatId).length >= 1 ? true : undefined));
    await quiet(salesTelegram);
    expect(salesTelegram.messagesIn(chatId).map((m) => m.text)).toEqual([
      "Welcome to Homes!\n\nSales: a shop to rent?",
    ]);
    expect(telegram.messagesIn(chatId)).toEqual([]);
    expect(chatbot.sessions.some((s) => s.serialNumber === "sales-chatbot")).toBe(true);
  });
});
