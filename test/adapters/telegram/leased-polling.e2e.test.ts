import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createClient } from "@keyv/redis";
import { Api } from "grammy/web";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  LeasedTelegramPolling,
  POLLING_LEASE_MS,
  POLLING_RETRY_MS,
} from "../../../adapters/telegram/leased-polling.js";
import { TelegramPoller } from "../../../adapters/telegram/polling.js";
import type { BridgeStore } from "../../../src/bridge/store/bridge-store.js";
import { REDIS_LEASE_PREFIX } from "../../../src/bridge/store/key-prefixes.js";
import { openBridgeStore } from "../../../src/bridge/store/open-bridge-store.js";
import { createLogger } from "../../../src/common/log.js";
import { TelegramEmulator } from "../../emulators/telegram.js";
import { type CliProcess, spawnCli } from "../../support/cli-process.js";
import { RecordingProxy } from "../../support/recording-proxy.js";
import { deleteRedisKeys, freshRedisNamespace, redisForTests, TEST_REDIS_URL } from "../../support/redis.js";
import { freePort, until } from "../../support/waiting.js";
import { ScriptedChatbot } from "../../upstream/scripted-chatbot.js";

const redis = await redisForTests();

/** This file's Redis database; each test uses a namespace no other run uses, and deletes only its keys. */
const STORE_URL = `${TEST_REDIS_URL}/12`;
const TOKEN = "123456789:AApolling-instances-token_01";

const update = (chatId: number, text: string) => ({
  message: {
    message_id: chatId,
    date: 1,
    chat: { id: chatId, type: "private", first_name: "Ana" },
    from: { id: chatId, is_bot: false, first_name: "Ana" },
    text,
  },
});

/** Answers the 409 Conflict that Telegram gives a getUpdates ended by another one. */
const conflicts = (proxy: RecordingProxy) => proxy.callsTo("getUpdates").filter((call) => call.status === 409);

describe.skipIf(!redis.available)("Telegram long polling with several instances on one Redis", () => {
  const namespaces: string[] = [];
  let telegram: TelegramEmulator;
  let chatbot: ScriptedChatbot;

  beforeAll(async () => {
    [telegram, chatbot] = await Promise.all([TelegramEmulator.start({ token: TOKEN }), ScriptedChatbot.start()]);
  });
  afterAll(async () => {
    await Promise.all([telegram?.close(), chatbot?.close()]);
    for (const namespace of namespaces) await deleteRedisKeys(namespace, STORE_URL);
  });

  const fresh = () => {
    const namespace = freshRedisNamespace();
    namespaces.push(namespace);
    return namespace;
  };

  /** The messages in the chat that hold `answer` (a first contact's holds the greeting before it). */
  const answersIn = (chatId: number, answer: string) =>
    telegram.messagesIn(chatId).filter((message) => message.text.endsWith(answer)).length;

  it("exactly one process polls; after kill -9 another takes over within the lease and answers each update once", {
    timeout: 60_000,
  }, async () => {
    const namespace = fresh();
    const proxies = await Promise.all([1, 2].map(() => RecordingProxy.start(telegram.url)));
    const ports = [await freePort(), await freePort()];
    const processes: CliProcess[] = proxies.map((proxy, index) =>
      spawnCli(["start"], {
        PORT: String(ports[index]),
        DATA_DIR: mkdtempSync(path.join(tmpdir(), "chatbridge-polling-")),
        STORE_URL,
        STORE_NAMESPACE: namespace,
        CHATBOT_API_URL: chatbot.url,
        CHATBOT_API_KEY: "sk-test",
        CHATBOT_SERIAL_NUMBER: "homes",
        TELEGRAM_BOT_TOKEN: TOKEN,
        TELEGRAM_MODE: "polling",
        TELEGRAM_API_ROOT: proxy.url,
        LOG_LEVEL: "warn",
      }),
    );
    try {
      for (const running of processes) {
        await until(() => (running.stdout().includes("Open the web chat") ? true : undefined), 30_000).catch(() => {
          throw new Error(`not started: ${running.stdout()}${running.stderr()}`);
        });
      }
      const polls = () => proxies.map((proxy) => proxy.callsTo("getUpdates").length);
      await until(() => (polls().some((count) => count > 0) ? true : undefined), 15_000);
      // Several long polls' worth of time: the other process keeps trying the lease, and never polls.
      await new Promise((resolve) => setTimeout(resolve, POLLING_RETRY_MS * 2));
      const poller = polls().findIndex((count) => count > 0);
      const other = 1 - poller;
      expect(polls()[other]).toBe(0);

      telegram.enqueue(update(901, "first"));
      await until(() => (answersIn(901, "Answer to first") > 0 ? true : undefined), 15_000);

      const killedAt = Date.now();
      processes[poller]?.child.kill("SIGKILL");
      await processes[poller]?.exited;
      telegram.enqueue(update(902, "second"));
      telegram.enqueue(update(903, "third"));
      await until(() => (polls()[other] ?? 0) > 0 || undefined, POLLING_LEASE_MS + POLLING_RETRY_MS + 5_000);
      const takeoverMs = Date.now() - killedAt;
      expect(takeoverMs).toBeLessThan(POLLING_LEASE_MS + POLLING_RETRY_MS + 1_000);
      await until(
        () => (answersIn(902, "Answer to second") > 0 && answersIn(903, "Answer to third") > 0 ? true : undefined),
        15_000,
      );
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect([
        answersIn(901, "Answer to first"),
        answersIn(902, "Answer to second"),
        answersIn(903, "Answer to third"),
      ]).toEqual([1, 1, 1]);
      // The new poller was never ended by another one.
      expect(conflicts(proxies[other] as RecordingProxy)).toEqual([]);
    } finally {
      for (const running of processes) running.child.kill("SIGKILL");
      await Promise.all(processes.map((running) => running.exited));
      await Promise.all(proxies.map((proxy) => proxy.close()));
    }
  });

  it("a holder that loses the lease stops polling at once, so the new holder's long poll is never ended", {
    timeout: 30_000,
  }, async () => {
    const namespace = fresh();
    const log = createLogger("silent");
    const proxies = await Promise.all([1, 2].map(() => RecordingProxy.start(telegram.url)));
    const stores: BridgeStore[] = [];
    const pollings: LeasedTelegramPolling[] = [];
    try {
      for (const [index, proxy] of proxies.entries()) {
        const store = await openBridgeStore({ url: STORE_URL, dataDir: tmpdir(), namespace });
        stores.push(store);
        const api = new Api(TOKEN, { apiRoot: proxy.url });
        pollings.push(
          new LeasedTelegramPolling({
            leases: store.leases,
            botId: "default",
            poller: (until) =>
              new TelegramPoller({ api, deliver: async () => "accepted", log, until, timeoutSeconds: 5 }),
            log,
            leaseMs: 900,
            // The second tries often, so that it is the one taking the lease once it is free.
            retryMs: index === 0 ? 1_500 : 100,
          }),
        );
      }
      const [first, second] = proxies as [RecordingProxy, RecordingProxy];
      pollings[0]?.start();
      await until(() => (first.callsTo("getUpdates").length > 0 ? true : undefined));
      pollings[1]?.start();
      // An update taken by the first: a poller that stops confirms it, one that lost the lease must not.
      telegram.enqueue(update(904, "taken"));
      await until(() => (first.callsTo("getUpdates").length > 1 ? true : undefined));
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(second.callsTo("getUpdates")).toEqual([]);

      // As if the first holder stalled past its lease: the lease is gone from the store, the second takes it.
      const client = createClient({ url: STORE_URL });
      await client.connect();
      await client.del(`${namespace}:${REDIS_LEASE_PREFIX}telegram-polling:default`);
      await client.close();
      await until(() => (second.callsTo("getUpdates").length > 0 ? true : undefined));
      // Its next renewal (a third of the lease) finds the lease taken: the first stops before any retry of its own.
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      const firstCalls = first.requests.length;
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      expect(first.requests.length).toBe(firstCalls);
      expect(conflicts(second)).toEqual([]);
      // The first's long poll, ended by the second's, is the only conflict; it asked for no confirmation after it.
      expect(conflicts(first).length).toBeLessThanOrEqual(1);

      // A holder that stops lets the lease go: the other polls at once, without waiting for the lease to end.
      const before = first.callsTo("getUpdates").length;
      await pollings[1]?.stop();
      await until(() => (first.callsTo("getUpdates").length > before ? true : undefined), 2_500);
    } finally {
      await Promise.all(pollings.map((polling) => polling.stop()));
      await Promise.all(stores.map((store) => store.close()));
      await Promise.all(proxies.map((proxy) => proxy.close()));
    }
  });
});
