import { afterAll, beforeAll } from "vitest";
import { TelegramEmulator } from "../emulators/telegram.js";
import { BridgeInstances, type InstanceRole } from "../support/bridge-instances.js";
import { deleteRedisKeys, freshRedisNamespace, TEST_REDIS_URL } from "../support/redis.js";
import { ScriptedChatbot } from "../upstream/scripted-chatbot.js";
import { type SlowAnswers, slowAnswer } from "./slow-answers.js";

/** The durability tests' Redis database; each file's processes share a namespace no other run uses. */
const STORE_URL = `${TEST_REDIS_URL}/12`;

/** What a durability test needs around its chatbridge processes. */
export interface Scene {
  readonly telegram: TelegramEmulator;
  readonly chatbot: ScriptedChatbot;
  /**
   * Starts `chatbridge start` processes with these roles against the scene's Telegram and chatbot (after closing
   * those of an earlier test and clearing what the emulators recorded); `env` adds to or overrides the common
   * variables (on Redis, the scene's STORE_URL and STORE_NAMESPACE).
   */
  start(roles: InstanceRole[], env?: Record<string, string>): Promise<BridgeInstances>;
}

/**
 * A Telegram emulator and a chatbot streaming answers of `shape`, started before the file's tests and closed after
 * them with every process started through {@link Scene.start}; with `redis`, the processes share a fresh namespace
 * whose keys are deleted at the end. Call at the top of a `describe`.
 */
export function durabilityScene(options: { token: string; shape: SlowAnswers; redis: boolean }): Scene {
  const namespace = freshRedisNamespace();
  let telegram: TelegramEmulator | undefined;
  let chatbot: ScriptedChatbot | undefined;
  let bridges: BridgeInstances | undefined;
  const ready = <T>(part: T | undefined): T => {
    if (part === undefined) throw new Error("the scene starts in beforeAll");
    return part;
  };
  beforeAll(async () => {
    [telegram, chatbot] = await Promise.all([
      TelegramEmulator.start({ token: options.token }),
      ScriptedChatbot.start(),
    ]);
    chatbot.answer = (question) => slowAnswer(question, options.shape);
  });
  afterAll(async () => {
    await bridges?.close();
    await Promise.all([telegram?.close(), chatbot?.close()]);
    if (options.redis) await deleteRedisKeys(namespace, STORE_URL);
  });
  return {
    get telegram() {
      return ready(telegram);
    },
    get chatbot() {
      return ready(chatbot);
    },
    async start(roles, env = {}) {
      await bridges?.close();
      ready(telegram).reset();
      ready(chatbot).reset();
      bridges = await BridgeInstances.start({
        roles,
        telegramRoot: ready(telegram).url,
        env: {
          ...(options.redis ? { STORE_URL, STORE_NAMESPACE: namespace } : {}),
          PUBLIC_URL: "https://bridge.example.test",
          CHATBOT_API_URL: ready(chatbot).url,
          CHATBOT_API_KEY: "sk-test",
          CHATBOT_SERIAL_NUMBER: "homes",
          TELEGRAM_BOT_TOKEN: options.token,
          TELEGRAM_WEBHOOK_SECRET: "durability-secret",
          ...env,
        },
      });
      return bridges;
    },
  };
}
