import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import type { Update } from "grammy/types";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningBridge, startBridge } from "../../src/app/bridge-app.js";
import type { BridgeRole } from "../../src/app/bridge-role.js";
import { AnswerStops } from "../../src/bridge/answer-stops.js";
import { conversationKey } from "../../src/bridge/conversation-key.js";
import { openBridgeStore } from "../../src/bridge/store/open-bridge-store.js";
import { createLogger } from "../../src/common/log.js";
import { loadConfig } from "../../src/config/config.js";
import { TelegramEmulator } from "../emulators/telegram.js";
import { deleteRedisKeys, freshRedisNamespace, redisForTests, TEST_REDIS_URL } from "../support/redis.js";
import { freePort, until } from "../support/waiting.js";
import { ScriptedChatbot } from "../upstream/scripted-chatbot.js";

const redis = await redisForTests();

const TOKEN = "123456789:AAstop-across-roles-token_1";
const SECRET = "stop-across-roles-secret_1";
const CHAT_ID = 7_301;

describe.skipIf(!redis.available)(
  "the user's stop, pressed on the web instance, of an answer the worker streams",
  () => {
    const namespace = freshRedisNamespace();
    let chatbot: ScriptedChatbot;
    let telegram: TelegramEmulator;
    let web: RunningBridge;
    let worker: RunningBridge;

    beforeAll(async () => {
      [chatbot, telegram] = await Promise.all([ScriptedChatbot.start(), TelegramEmulator.start({ token: TOKEN })]);
      const webPort = await freePort();
      const startRole = async (role: BridgeRole, port: number) => {
        const config = loadConfig(
          {
            PORT: String(port),
            DATA_DIR: mkdtempSync(path.join(tmpdir(), `chatbridge-stop-${role}-`)),
            STORE_URL: TEST_REDIS_URL,
            STORE_NAMESPACE: namespace,
            PUBLIC_URL: `http://127.0.0.1:${webPort}`,
            CHATBOT_API_URL: chatbot.url,
            CHATBOT_API_KEY: "sk-test",
            CHATBOT_SERIAL_NUMBER: "homes",
            TELEGRAM_BOT_TOKEN: TOKEN,
            TELEGRAM_WEBHOOK_SECRET: SECRET,
            TELEGRAM_API_ROOT: telegram.url,
          },
          { envFile: undefined },
        );
        return startBridge(config, createLogger("silent"), { host: "127.0.0.1", role });
      };
      web = await startRole("web", webPort);
      worker = await startRole("worker", await freePort());
    });

    afterAll(async () => {
      await worker?.close(1000);
      await web?.close(1000);
      await Promise.all([chatbot?.close(), telegram?.close()]);
      if (redis.available) await deleteRedisKeys(namespace);
    });

    let nextUpdate = 500;
    const message = (text: string): Update =>
      ({
        update_id: ++nextUpdate,
        message: {
          message_id: nextUpdate,
          date: 1767225000,
          chat: { id: CHAT_ID, type: "private", first_name: "Ana" },
          from: { id: CHAT_ID, is_bot: false, first_name: "Ana" },
          text,
        },
      }) as Update;
    const draftShows = (text: string) =>
      until(() => (telegram.draftsIn(CHAT_ID).some((draft) => draft.text.includes(text)) ? true : undefined), 15_000);
    /** Waits until the chat shows `count` messages and nobody has called Telegram for a while. */
    const settled = async (count: number) => {
      await until(() => (telegram.messagesIn(CHAT_ID).length >= count ? true : undefined), 15_000);
      await until(() => (performance.now() - (telegram.calls.at(-1)?.at ?? 0) > 600 ? true : undefined), 15_000);
      return telegram.messagesIn(CHAT_ID).map((shown) => shown.text);
    };

    /** `promise`, or a failure naming `what` after `ms`. */
    const within = (promise: Promise<void>, ms: number, what: string) =>
      Promise.race([promise, sleep(ms).then(() => Promise.reject(new Error(what)))]);

    it("stops it there, keeping the text so far; a stop delivered late does not cut the next answer", {
      timeout: 60_000,
    }, async () => {
      chatbot.answer = (question) =>
        question === "talk a lot"
          ? { fragments: Array.from({ length: 40 }, (_, i) => `word${i} `), pauseMs: 100 }
          : { fragments: Array.from({ length: 20 }, (_, i) => `more${i} `), pauseMs: 50 };
      // The webhook is the web instance's: only it receives the updates.
      expect(telegram.webhook?.url).toBe(`${web.url}/webhooks/telegram`);
      expect((await telegram.deliver(message("talk a lot"))).status).toBe(200);
      await draftShows("word2");
      const ask = await until(() => chatbot.asks.find((asked) => asked.content === "talk a lot"));
      const pressedAt = Date.now();
      const stop = { update_id: ++nextUpdate, stopped_message_generation: { chat: { id: CHAT_ID }, draft_id: 1 } };
      expect((await telegram.deliver(stop)).status).toBe(200);
      await within(ask.clientGone, 10_000, "the chatbot request was not cancelled");
      const [stopped, ...rest] = await settled(1);
      expect(stopped).toMatch(/^Welcome to Homes!\n\nword0 word1 word2/);
      expect(stopped).not.toContain("word39");
      expect(rest).toEqual([]);

      // The next answer streams; a stop pressed before it was asked arrives only now, as a slow delivery would.
      expect((await telegram.deliver(message("and then?"))).status).toBe(200);
      await draftShows("more2");
      const next = await until(() => chatbot.asks.find((asked) => asked.content === "and then?"));
      let nextCut = false;
      void next.clientGone.then(() => {
        nextCut = true;
      });
      const elsewhere = await openBridgeStore({ url: TEST_REDIS_URL, dataDir: "unused", namespace });
      try {
        const conversation = conversationKey(
          {
            channel: "telegram",
            botId: "default",
            target: { chatId: String(CHAT_ID), isGroup: false },
            user: { id: "" },
          },
          "thread",
        );
        await new AnswerStops(elsewhere.signals).press(conversation, pressedAt);
      } finally {
        await elsewhere.close();
      }
      const texts = await settled(2);
      expect(texts[1]).toBe(Array.from({ length: 20 }, (_, i) => `more${i}`).join(" "));
      expect(nextCut).toBe(false);
    });
  },
);
