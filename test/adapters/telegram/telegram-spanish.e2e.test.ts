/**
 * The bridge's own words in a Spanish-speaking chatbot (AIResponseLanguage "Spanish"), over Telegram (emulator →
 * bridge → scripted chatbot): the card's buttons, the viewing flow's question and the listing link's question.
 */
import type { Update } from "grammy/types";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningBridge } from "../../../src/app/bridge-app.js";
import { viewingTexts } from "../../../src/features/viewings/viewing-texts.js";
import { type EmulatedMessage, TelegramEmulator } from "../../emulators/telegram.js";
import { startBridgeUnderTest } from "../../support/bridge-under-test.js";
import { until } from "../../support/waiting.js";
import { listingItem, ScriptedChatbot } from "../../upstream/scripted-chatbot.js";

const TOKEN = "123456789:AAtest-token-of-the-spanish-bot";
const SECRET = "spanish-secret";

let telegram: TelegramEmulator;
let chatbot: ScriptedChatbot;
let running: RunningBridge;

beforeAll(async () => {
  [telegram, chatbot] = await Promise.all([
    TelegramEmulator.start({ token: TOKEN, bot: { id: 778, username: "casas_bot" } }),
    ScriptedChatbot.start(),
  ]);
  chatbot.listings = [listingItem("TX-1001")];
  Object.assign(chatbot.welcome, { WelcomeMessage: "¡Hola!", SuggestedMessage: "", AIResponseLanguage: "Spanish" });
  chatbot.answer = () => ({ fragments: ["Mira MLS# TX-1001"] });
  running = await startBridgeUnderTest(chatbot, {
    CHATBOT_SESSION_KEY: "session-key-test",
    TELEGRAM_BOT_TOKEN: TOKEN,
    TELEGRAM_WEBHOOK_SECRET: SECRET,
    TELEGRAM_API_ROOT: telegram.url,
  });
});

afterAll(async () => {
  await running?.close(1000);
  await Promise.all([telegram?.close(), chatbot?.close()]);
});

let nextUpdate = 80_000;

function message(chatId: number, text: string): Update {
  const id = ++nextUpdate;
  return {
    update_id: id,
    message: {
      message_id: id,
      date: 1767225000,
      chat: { id: chatId, type: "private", first_name: "Ana" },
      from: { id: chatId, is_bot: false, first_name: "Ana", username: "ana_compra" },
      text,
    },
  } as Update;
}

async function send(update: object): Promise<void> {
  expect((await telegram.deliver(update, { secret: SECRET })).status).toBe(200);
}

async function settled(chatId: number, count: number): Promise<EmulatedMessage[]> {
  await until(() => (telegram.messagesIn(chatId).length >= count ? true : undefined), 20_000);
  await until(() => (performance.now() - (telegram.calls.at(-1)?.at ?? 0) > 600 ? true : undefined), 20_000);
  return telegram.messagesIn(chatId);
}

const buttons = (card: EmulatedMessage | undefined) =>
  (card?.replyMarkup as { inline_keyboard?: { text: string; callback_data?: string }[][] } | undefined)
    ?.inline_keyboard?.[0] ?? [];

describe("a Spanish-speaking chatbot over Telegram", () => {
  it("labels the card's buttons and asks the viewing flow's question in Spanish", async () => {
    const chatId = 81_001;
    await send(message(chatId, "¿una casa en Austin?"));
    const [, card] = await settled(chatId, 2);
    expect(buttons(card).map((button) => button.text)).toEqual(["Detalles", "Casas similares", "Reservar visita"]);
    const data = buttons(card).find((button) => button.text === "Reservar visita")?.callback_data as string;
    const tap = telegram.tap(chatId, card?.messageId as number, data, { id: chatId, first_name: "Ana" });
    nextUpdate = Math.max(nextUpdate, tap.update_id);
    await send(tap);
    const messages = await settled(chatId, 3);
    expect(messages[2]?.text).toBe(viewingTexts("Spanish").askTime("12 Oak St, Austin, TX 78701"));
  });

  it("opens a listing's link with the greeting, the card and the viewing question in Spanish", async () => {
    const chatId = 81_002;
    await send(message(chatId, "/start l-TX-1001"));
    const [greeting, card, question] = await settled(chatId, 3);
    expect(greeting?.text).toBe("¡Hola!");
    expect(buttons(card).map((button) => button.text)).toEqual(["Detalles", "Casas similares", "Reservar visita"]);
    expect(question?.text).toBe("¿Te gustaría reservar una visita?");
  });

  it("guides an alert's set-up in Spanish, with Spanish buttons", async () => {
    const chatId = 81_003;
    await send(message(chatId, "hola"));
    await settled(chatId, 2);
    await send(message(chatId, "/alert"));
    const messages = await settled(chatId, 3);
    expect(messages[2]?.text).toBe('Creemos una alerta de casas nuevas. ¿En qué ciudad? (o "cualquiera")');
    await send(message(chatId, "Austin"));
    const [, , , question] = await settled(chatId, 4);
    expect(question?.text).toBe('¿En venta o en alquiler? (o "cualquiera")');
    const keyboard = (question?.replyMarkup as { keyboard?: { text: string }[][] } | undefined)?.keyboard ?? [];
    expect(keyboard.flat().map((button) => button.text)).toEqual(["En venta", "En alquiler", "Cualquiera"]);
  });
});
