import type { Update } from "grammy/types";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { RunningBridge } from "../../../src/app/bridge-app.js";
import { VIEWING_TEXTS } from "../../../src/features/viewings/viewing-texts.js";
import { describeTime, understandTime } from "../../../src/features/viewings/viewing-time.js";
import { type EmulatedMessage, TelegramEmulator } from "../../emulators/telegram.js";
import { startBridgeUnderTest } from "../../support/bridge-under-test.js";
import { SmtpSink } from "../../support/smtp-sink.js";
import { until } from "../../support/waiting.js";
import { listingItem, ScriptedChatbot } from "../../upstream/scripted-chatbot.js";

const TOKEN = "123456789:AAtest-token-of-the-viewing-bot";
const SECRET = "viewing-secret";
const ZONE = "Europe/Madrid";

let telegram: TelegramEmulator;
let chatbot: ScriptedChatbot;
let smtp: SmtpSink;
let running: RunningBridge;

beforeAll(async () => {
  [telegram, chatbot, smtp] = await Promise.all([
    TelegramEmulator.start({ token: TOKEN, bot: { id: 777, username: "viewing_homes_bot" } }),
    ScriptedChatbot.start(),
    SmtpSink.start(),
  ]);
  chatbot.listings = [listingItem("TX-1001")];
  Object.assign(chatbot.welcome, { TalkToHumanEmail: "agents@homes.example", TimeZone: ZONE });
  running = await startBridgeUnderTest(chatbot, {
    // RealEstateList takes the session key.
    CHATBOT_SESSION_KEY: "session-key-test",
    TELEGRAM_BOT_TOKEN: TOKEN,
    TELEGRAM_WEBHOOK_SECRET: SECRET,
    TELEGRAM_API_ROOT: telegram.url,
    SMTP_URL: smtp.url(),
    MAIL_FROM: "Homes bot <bot@homes.example>",
  });
});

afterAll(async () => {
  await running?.close(1000);
  await Promise.all([telegram?.close(), chatbot?.close(), smtp?.stop()]);
});

beforeEach(() => {
  chatbot.answer = () => ({ fragments: ["Have a look at MLS# TX-1001"] });
});

afterEach(() => {
  expect(telegram.rateLimited()).toEqual([]);
});

let nextUpdate = 60_000;
let nextChat = 70_000;

/** Ana, with a @username unless `anonymous`: then the channel gives no way to reach her. */
const ana = (chatId: number, anonymous = false) => ({
  id: chatId,
  first_name: "Ana",
  ...(anonymous ? {} : { username: "ana_buyer" }),
});

function message(chatId: number, text: string, anonymous = false): Update {
  const id = ++nextUpdate;
  return {
    update_id: id,
    message: {
      message_id: id,
      date: 1767225000,
      chat: { id: chatId, type: "private", first_name: "Ana" },
      from: { is_bot: false, ...ana(chatId, anonymous) },
      text,
    },
  } as Update;
}

async function send(update: object): Promise<void> {
  expect((await telegram.deliver(update, { secret: SECRET })).status).toBe(200);
}

async function quiet(ms = 600): Promise<void> {
  await until(() => (performance.now() - (telegram.calls.at(-1)?.at ?? 0) > ms ? true : undefined), 20_000);
}

async function settled(chatId: number, count: number): Promise<EmulatedMessage[]> {
  await until(() => (telegram.messagesIn(chatId).length >= count ? true : undefined), 20_000);
  await quiet();
  return telegram.messagesIn(chatId);
}

const texts = (messages: EmulatedMessage[]) => messages.map((sent) => sent.text);

/**
 * Asks a question whose answer names TX-1001, then taps "Book a viewing" under its card; resolves once the bot
 * asked for the time, with the tap (to deliver again).
 */
async function tapBookAViewing(chatId: number, anonymous = false): Promise<object> {
  await send(message(chatId, "a house in Austin?", anonymous));
  const [, card] = await settled(chatId, 2);
  const tap = viewingTap(chatId, card, anonymous);
  await send(tap);
  const messages = await settled(chatId, 3);
  expect(messages[2]?.text).toBe(VIEWING_TEXTS.askTime("12 Oak St, Austin, TX 78701"));
  return tap;
}

/** A tap on the "Book a viewing" button of the card `card`. */
function viewingTap(chatId: number, card: EmulatedMessage | undefined, anonymous = false) {
  const keyboard = card?.replyMarkup as { inline_keyboard?: { text: string; callback_data?: string }[][] } | undefined;
  const buttons = keyboard?.inline_keyboard?.[0];
  const data = buttons?.find((button) => button.text === "Book a viewing")?.callback_data;
  expect(data).toBe("card:viewing:TX-1001");
  const tap = telegram.tap(chatId, card?.messageId as number, data as string, ana(chatId, anonymous));
  nextUpdate = Math.max(nextUpdate, tap.update_id);
  return tap;
}

/** The mails to the agency since `before`, once `count` came. */
async function mailsSince(before: number, count: number) {
  await until(() => (smtp.received.length >= before + count ? true : undefined), 15_000);
  return smtp.received.slice(before);
}

describe("Book a viewing over Telegram (emulator → bridge → SMTP sink)", () => {
  it("asks for a time, mails the agency with a calendar file, records a lead and confirms", async () => {
    const chatId = ++nextChat;
    const asked = chatbot.asks.length;
    await tapBookAViewing(chatId);
    const before = smtp.received.length;
    const leads = chatbot.leads.length;
    await send(message(chatId, "14 June at 10:00"));
    const understood = understandTime("14 June at 10:00", new Date(), ZONE);
    if (!understood) throw new Error("the test's time was not understood");
    const when = describeTime(understood);
    const messages = await settled(chatId, 4);
    expect(messages[3]?.text).toBe(VIEWING_TEXTS.sent(when));
    // Neither the tap nor the time went to the chatbot as a question.
    expect(chatbot.asks.length).toBe(asked + 1);

    const [mail] = await mailsSince(before, 1);
    expect(mail?.envelope.to).toEqual(["agents@homes.example"]);
    expect(mail?.subject).toBe("Viewing request: 12 Oak St, Austin, TX 78701 — Ana (@ana_buyer) on Telegram");
    expect(mail?.text).toContain("Price: $450,000");
    expect(mail?.text).toContain("Listing: https://homes.test/listing/tx-1001");
    expect(mail?.text).toContain("MLS: TX-1001");
    expect(mail?.text).toContain('Preferred time, as written: "14 June at 10:00"');
    expect(mail?.text).toContain(`Understood as: ${when} (${ZONE})`);
    expect(mail?.text).toContain("Reach them: @ana_buyer — https://t.me/ana_buyer");
    // The transcript has the answer, the tap, the question and the time.
    expect(mail?.text).toMatch(/Ana: Book a viewing of MLS TX-1001\n.*Bot: When would you like to visit/);
    expect(mail?.text).toMatch(/Ana: 14 June at 10:00/);

    expect(mail?.attachments).toHaveLength(1);
    const ics = mail?.attachments[0];
    expect(ics?.filename).toBe("viewing.ics");
    expect(ics?.contentType).toBe("text/calendar");
    const lines = (ics?.content ?? "").replace(/\r\n /g, "").split("\r\n");
    expect(lines).toContain(`DTSTART;TZID=${ZONE}:${understood.year}0614T100000`);
    expect(lines).toContain(`DTEND;TZID=${ZONE}:${understood.year}0614T110000`);
    expect(lines).toContain(`TZID:${ZONE}`);
    expect(lines.some((line) => line.startsWith("UID:telegram:default:"))).toBe(true);
    expect(lines).toContain("LOCATION:12 Oak St\\, Austin\\, TX 78701");
    expect(lines.find((line) => line.startsWith("DESCRIPTION:"))).toContain("https://homes.test/listing/tx-1001");

    await until(() => (chatbot.leads.length > leads ? true : undefined));
    expect(chatbot.leads.slice(leads)).toEqual([
      expect.objectContaining({
        serialNumber: "homes-chatbot",
        Type: "Viewing",
        Name: "Ana",
        Content: expect.stringContaining('Viewing of 12 Oak St, Austin, TX 78701 (MLS TX-1001): "14 June at 10:00"'),
      }),
    ]);
  });

  it("mails a vague time as written, without a calendar file", async () => {
    const chatId = ++nextChat;
    await tapBookAViewing(chatId);
    const before = smtp.received.length;
    await send(message(chatId, "next week, any afternoon"));
    const messages = await settled(chatId, 4);
    expect(messages[3]?.text).toBe(VIEWING_TEXTS.sent('"next week, any afternoon"'));
    const [mail] = await mailsSince(before, 1);
    expect(mail?.text).toContain("Understood as: no date and time could be read from it");
    expect(mail?.attachments).toEqual([]);
  });

  it("asks how to reach a user the channel gives no contact for, until one is written", async () => {
    const chatId = ++nextChat;
    await tapBookAViewing(chatId, true);
    const before = smtp.received.length;
    await send(message(chatId, "Saturday morning", true));
    await settled(chatId, 4);
    await send(message(chatId, "just call me", true));
    await settled(chatId, 5);
    await send(message(chatId, "you can call me on +34 600 123 456", true));
    const messages = await settled(chatId, 6);
    expect(texts(messages.slice(3))).toEqual([
      VIEWING_TEXTS.askContact,
      VIEWING_TEXTS.contactAgain,
      VIEWING_TEXTS.sent('"Saturday morning"'),
    ]);
    const [mail] = await mailsSince(before, 1);
    expect(mail?.subject).toBe("Viewing request: 12 Oak St, Austin, TX 78701 — Ana on Telegram");
    expect(mail?.text).toContain("Reach them: +34 600 123 456 (tel:+34600123456)");
  });

  it("leaves the flow on cancel, and on any other command", async () => {
    const chatId = ++nextChat;
    await tapBookAViewing(chatId);
    const before = smtp.received.length;
    await send(message(chatId, "cancel"));
    await settled(chatId, 4);
    // The flow is over: the next message is a question for the chatbot.
    const asked = chatbot.asks.length;
    await send(message(chatId, "tomorrow at 10am"));
    const messages = await settled(chatId, 6);
    expect(texts(messages.slice(3, 5))).toEqual([VIEWING_TEXTS.cancelled, "Have a look at MLS# TX-1001"]);
    expect(chatbot.asks.slice(asked).map((ask) => ask.content)).toEqual(["tomorrow at 10am"]);

    await tapBookAViewing(chatId);
    await send(message(chatId, "/start"));
    await send(message(chatId, "tomorrow at 10am"));
    // Asked of the chatbot once the greeting of /start went out (the chat's budget paces the two).
    await until(() => (chatbot.asks.length >= asked + 3 ? true : undefined), 20_000);
    await quiet(1000);
    expect(chatbot.asks.slice(asked).map((ask) => ask.content)).toEqual([
      "tomorrow at 10am",
      "a house in Austin?",
      "tomorrow at 10am",
    ]);
    expect(smtp.received.length).toBe(before);
  });

  it("hands the conversation to a person when asked while the flow waits for a time, rather than taking it as one", async () => {
    const chatId = ++nextChat;
    await tapBookAViewing(chatId);
    const mails = smtp.received.length;
    const asked = chatbot.asks.length;
    await send(message(chatId, "Can I talk to a human please?"));
    await settled(chatId, 4);
    const [request] = await mailsSince(mails, 1);
    expect(request?.subject).toMatch(/^Talk to a human/);
    // The flow is over: no viewing request went out, and its time question is not asked again.
    await quiet(1000);
    expect(smtp.received.slice(mails).some((mail) => mail.subject.startsWith("Viewing request"))).toBe(false);
    expect(texts(telegram.messagesIn(chatId)).filter((text) => text?.startsWith("When would you"))).toHaveLength(1);
    expect(chatbot.asks.length).toBe(asked);
  });

  it("sends one mail when the tap or the time is delivered again", async () => {
    const chatId = ++nextChat;
    const tap = await tapBookAViewing(chatId);
    await send(tap);
    await quiet();
    expect(telegram.messagesIn(chatId)).toHaveLength(3);
    const before = smtp.received.length;
    const time = message(chatId, "tomorrow at 11am");
    await send(time);
    await settled(chatId, 4);
    await send(time);
    await quiet(1000);
    expect(telegram.messagesIn(chatId)).toHaveLength(4);
    expect(await mailsSince(before, 1)).toHaveLength(1);
  });

  it("during a handoff, forwards a tap on Book a viewing to the person, naming the listing, and starts no flow", async () => {
    const chatId = ++nextChat;
    await send(message(chatId, "a house in Austin?"));
    const [, card] = await settled(chatId, 2);
    const mails = smtp.received.length;
    await send(message(chatId, "/human"));
    await settled(chatId, 3);
    const [request] = await mailsSince(mails, 1);
    expect(request?.subject).toMatch(/^Talk to a human/);

    const asked = chatbot.asks.length;
    await send(viewingTap(chatId, card));
    await quiet(1000);
    // The bot is paused: no viewing question, nothing asked of the chatbot.
    expect(telegram.messagesIn(chatId)).toHaveLength(3);
    expect(chatbot.asks.length).toBe(asked);

    // Back with the bot, the follow-up the person gets names the listing the user tapped.
    await send(message(chatId, "/bot"));
    const messages = await settled(chatId, 4);
    expect(messages[3]?.text).toBe("You're talking to the assistant again.");
    const [followUp] = await mailsSince(mails + 1, 1);
    expect(followUp?.subject).toMatch(/^Re: Talk to a human/);
    expect(followUp?.text).toContain("Book a viewing of MLS TX-1001");
    expect(smtp.received.slice(mails).some((mail) => mail.subject.startsWith("Viewing request"))).toBe(false);
  });

  it("during a handoff, forwards a listing's link to the person, naming the listing, and sends no card", async () => {
    const chatId = ++nextChat;
    await send(message(chatId, "hello"));
    await settled(chatId, 2);
    const mails = smtp.received.length;
    await send(message(chatId, "/human"));
    await settled(chatId, 3);
    expect((await mailsSince(mails, 1))[0]?.subject).toMatch(/^Talk to a human/);

    const asked = chatbot.asks.length;
    await send(message(chatId, "/start l-TX-1001"));
    await quiet(1000);
    // The bot is paused: no card, no viewing question, nothing asked of the chatbot.
    expect(telegram.messagesIn(chatId)).toHaveLength(3);
    expect(chatbot.asks.length).toBe(asked);

    await send(message(chatId, "/bot"));
    await settled(chatId, 4);
    const [followUp] = await mailsSince(mails + 1, 1);
    expect(followUp?.subject).toMatch(/^Re: Talk to a human/);
    expect(followUp?.text).toContain("Opened the link of MLS TX-1001");
  });
});
