import { afterAll, beforeAll, expect, it } from "vitest";
import { readUpdate } from "../../adapters/telegram/schema.js";
import type { RunningBridge } from "../../src/app/bridge-app.js";
import { TelegramEmulator } from "../emulators/telegram.js";
import { startBridgeUnderTest } from "../support/bridge-under-test.js";
import { until } from "../support/waiting.js";
import { ScriptedChatbot } from "../upstream/scripted-chatbot.js";
import { fuzzer, type Json } from "./mutate.js";
import { malformedCounts } from "./webhook-fuzz.js";
import { TELEGRAM_BOT, telegramSeeds } from "./webhook-seeds.js";

const TOKEN = "123456789:AApolling-fuzz-token_0001";
const COUNT = 400;

let telegram: TelegramEmulator;
let chatbot: ScriptedChatbot;
let running: RunningBridge;

beforeAll(async () => {
  [telegram, chatbot] = await Promise.all([
    TelegramEmulator.start({ token: TOKEN, bot: { id: TELEGRAM_BOT.id, username: TELEGRAM_BOT.username } }),
    ScriptedChatbot.start(),
  ]);
  running = await startBridgeUnderTest(chatbot, {
    TELEGRAM_BOT_TOKEN: TOKEN,
    TELEGRAM_API_ROOT: telegram.url,
    TELEGRAM_MODE: "polling",
  });
});

afterAll(async () => {
  await running?.close(1000);
  await Promise.all([telegram?.close(), chatbot?.close()]);
});

/**
 * Mutated updates that the schema refuses once the emulator has numbered them (getUpdates always carries a numeric
 * update_id: the poller's handling of others is in test/adapters/telegram/telegram-polling.test.ts).
 */
function malformedUpdates(): object[] {
  const random = fuzzer(7_001);
  const seeds = telegramSeeds();
  const updates: object[] = [];
  while (updates.length < COUNT) {
    const variant = random.mutate(random.pick(seeds)) as Json;
    const update: Record<string, unknown> =
      typeof variant === "object" && variant !== null && !Array.isArray(variant) ? { ...variant } : {};
    delete update.update_id;
    if (!readUpdate({ update_id: 1, ...update }).ok) updates.push(update);
  }
  return updates;
}

it("long polling reports malformed updates, asks and sends nothing for them, and answers the next valid one", async () => {
  await until(() => (telegram.callsTo("getUpdates").length > 0 ? true : undefined));
  const sent = () => telegram.calls.filter((call) => !["getMe", "deleteWebhook", "getUpdates"].includes(call.method));
  for (const update of malformedUpdates()) telegram.enqueue(update);
  const chatId = 9_200_001;
  telegram.enqueue({
    message: {
      message_id: 1,
      date: 1,
      chat: { id: chatId, type: "private" },
      from: { id: chatId, is_bot: false, first_name: "Ana" },
      text: "after the garbage",
    },
  });
  await until(
    () => (telegram.messagesIn(chatId).some((m) => m.text?.endsWith("Answer to after the garbage")) ? true : undefined),
    15_000,
  );
  expect(chatbot.asks.map((ask) => ask.content)).toEqual(["after the garbage"]);
  expect(new Set(sent().map((call) => Number(call.params.chat_id)))).toEqual(new Set([chatId]));
  expect((await malformedCounts(running.url)).telegram).toBe(COUNT);
});
