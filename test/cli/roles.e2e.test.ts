import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { run } from "../../src/cli/run.js";
import { START_HELP } from "../../src/cli/usage.js";
import { TelegramEmulator } from "../emulators/telegram.js";
import { type CliProcess, spawnCli } from "../support/cli-process.js";
import { RecordingProxy } from "../support/recording-proxy.js";
import { deleteRedisKeys, freshRedisNamespace, redisForTests, TEST_REDIS_URL } from "../support/redis.js";
import { terminal } from "../support/terminal.js";
import { freePort, until } from "../support/waiting.js";
import { newVisitor, openWebChatStream } from "../support/web-chat-stream.js";
import { ScriptedChatbot } from "../upstream/scripted-chatbot.js";

const redis = await redisForTests();

/** This file's Redis database; its processes share a namespace no other run uses, and only its keys are deleted. */
const STORE_URL = `${TEST_REDIS_URL}/12`;
const TOKEN = "123456789:AAroles-token-of-the-emulator";
const SECRET = "roles-webhook-secret_1";
/** The Bot API methods that answer someone. */
const ANSWERING = ["sendMessage", "sendMessageDraft", "editMessageText", "sendChatAction"];

describe("chatbridge start --role", () => {
  const env = async (extra: Record<string, string>) => ({
    DATA_DIR: mkdtempSync(path.join(tmpdir(), "chatbridge-role-")),
    PORT: String(await freePort()),
    LOG_LEVEL: "silent",
    ...extra,
  });

  it("refuses web and worker on the memory store, in one line, exit 2", async () => {
    for (const role of ["web", "worker"]) {
      const t = terminal(await env({ STORE_URL: "memory://" }));
      expect(await run(["start", "--role", role], t.io)).toBe(2);
      expect(t.err()).toBe(
        `chatbridge: --role ${role} needs a store that the other processes share, but STORE_URL=memory:// is this process's memory alone: set STORE_URL=redis://… (or leave it unset for the SQLite file in DATA_DIR, which processes on one machine share).\n`,
      );
      expect(t.out()).toBe("");
    }
  });

  it("refuses a role it does not know, with the usage", async () => {
    const t = terminal(await env({ STORE_URL: "memory://" }));
    expect(await run(["start", "--role", "api"], t.io)).toBe(2);
    expect(t.err()).toBe(
      `chatbridge: unknown role "api" for "chatbridge start" (use --role web, worker or all)\n\n${START_HELP}\n`,
    );
  });

  it("names the role in the banner, and warns that SQLite is shared by one machine only", async () => {
    const settings = await env({});
    const t = terminal(settings);
    const exit = run(["start", "--role", "worker"], t.io);
    const banner = await until(() => (t.out().includes("talk to a human") ? t.out() : undefined), 30_000);
    t.io.signals.emit("terminate");
    expect(await exit).toBe(0);
    expect(banner).toContain(
      "  role worker: answers the events that processes with --role web (or all) take; no webhooks here\n",
    );
    expect(banner).toContain(
      `  ! --role worker with the SQLite store ${path.resolve(settings.DATA_DIR, "bridge.db")}: only processes on this machine that open this file work together; for processes on several machines set STORE_URL=redis://… on all of them.`,
    );
    expect(banner).not.toContain("Open the web chat");
    const all = terminal(await env({ STORE_URL: "memory://" }));
    const allExit = run(["start"], all.io);
    const allBanner = await until(() => (all.out().includes("Open the web chat") ? all.out() : undefined), 30_000);
    all.io.signals.emit("terminate");
    expect(await allExit).toBe(0);
    expect(allBanner).toContain("  role all: takes the platforms' events and answers them\n");
    expect(allBanner).not.toContain("--role");
  });
});

describe.skipIf(!redis.available)("chatbridge start --role web and --role worker sharing one Redis", () => {
  const namespace = freshRedisNamespace();
  const processes: CliProcess[] = [];
  let telegram: TelegramEmulator;
  let chatbot: ScriptedChatbot;
  let webPort: number;

  beforeAll(async () => {
    [telegram, chatbot] = await Promise.all([TelegramEmulator.start({ token: TOKEN }), ScriptedChatbot.start()]);
    webPort = await freePort();
  });
  afterAll(async () => {
    for (const running of processes) running.child.kill("SIGKILL");
    await Promise.all(processes.map((running) => running.exited));
    await Promise.all([telegram?.close(), chatbot?.close()]);
    if (redis.available) await deleteRedisKeys(namespace, STORE_URL);
  });

  /** `chatbridge start --role <role>`, reaching Telegram through `telegramRoot` (a proxy of its own). */
  function startRole(role: "web" | "worker", port: number, telegramRoot: string): CliProcess {
    const running = spawnCli(["start", "--role", role], {
      PORT: String(port),
      DATA_DIR: mkdtempSync(path.join(tmpdir(), `chatbridge-${role}-`)),
      STORE_URL,
      STORE_NAMESPACE: namespace,
      PUBLIC_URL: `http://127.0.0.1:${webPort}`,
      CHATBOT_API_URL: chatbot.url,
      CHATBOT_API_KEY: "sk-test",
      CHATBOT_SERIAL_NUMBER: "homes",
      TELEGRAM_BOT_TOKEN: TOKEN,
      TELEGRAM_WEBHOOK_SECRET: SECRET,
      TELEGRAM_API_ROOT: telegramRoot,
      LOG_LEVEL: "warn",
    });
    processes.push(running);
    return running;
  }

  const started = (running: CliProcess, line: string) =>
    until(() => (running.stdout().includes(line) ? running.stdout() : undefined), 30_000).catch(() => {
      throw new Error(`not started: ${running.stdout()}${running.stderr()}`);
    });

  const update = (updateId: number, chatId: number, text: string) => ({
    update_id: updateId,
    message: {
      message_id: updateId,
      date: 1,
      chat: { id: chatId, type: "private", first_name: "Ana" },
      from: { id: chatId, is_bot: false, first_name: "Ana" },
      text,
    },
  });

  /** The messages in the chat that hold `answer` (a first contact's holds the greeting before it). */
  const answersIn = (chatId: number, answer: string) =>
    telegram.messagesIn(chatId).filter((message) => message.text.endsWith(answer)).length;

  it("the web process takes the updates, the worker answers them, and nothing is answered while no worker runs", {
    timeout: 60_000,
  }, async () => {
    const [webProxy, workerProxy, restartedProxy] = await Promise.all([
      RecordingProxy.start(telegram.url),
      RecordingProxy.start(telegram.url),
      RecordingProxy.start(telegram.url),
    ]);
    try {
      const workerPort = await freePort();
      const web = startRole("web", webPort, webProxy.url);
      let worker = startRole("worker", workerPort, workerProxy.url);
      const [webBanner, workerBanner] = await Promise.all([
        started(web, "Open the web chat"),
        started(worker, "role worker:"),
      ]);
      expect(webBanner).toContain("role web: takes the platforms' events and records them");
      expect(webBanner).toContain(
        `✓ Telegram: enabled — @vercelchatsdkbot, webhook http://127.0.0.1:${webPort}/webhooks/telegram`,
      );
      expect(workerBanner).toContain("✓ Telegram: enabled — @vercelchatsdkbot, answering only (role worker)");
      expect(workerBanner).toContain("✓ web chat: enabled — answering only (role worker)");
      expect(workerBanner).not.toContain("Open the web chat");

      // The worker serves health and metrics, and none of the routes that take events.
      const workerUrl = `http://127.0.0.1:${workerPort}`;
      expect((await fetch(`${workerUrl}/healthz`)).status).toBe(200);
      expect((await fetch(`${workerUrl}/metrics`)).status).toBe(200);
      expect((await fetch(`${workerUrl}/`)).status).toBe(404);
      expect((await fetch(`${workerUrl}/webhooks/telegram`, { method: "POST" })).status).toBe(404);
      expect((await fetch(`${workerUrl}/webchat/messages`, { method: "POST" })).status).toBe(404);
      expect(telegram.webhook?.url).toBe(`http://127.0.0.1:${webPort}/webhooks/telegram`);

      expect((await telegram.deliver(update(1, 801, "homes in Austin"))).status).toBe(200);
      await until(() => (answersIn(801, "Answer to homes in Austin") > 0 ? true : undefined), 15_000);
      // Every answering call came from the worker; the web process only registered the webhook.
      for (const method of ANSWERING) expect(webProxy.callsTo(method), method).toEqual([]);
      expect(workerProxy.callsTo("sendMessage").length).toBeGreaterThan(0);
      expect(webProxy.callsTo("setWebhook")).toHaveLength(1);
      expect(workerProxy.callsTo("setWebhook")).toEqual([]);
      expect([...webProxy.callsTo("getUpdates"), ...workerProxy.callsTo("getUpdates")]).toEqual([]);

      // No worker: the web process still takes the update (Telegram is acknowledged), and nobody answers it.
      worker.child.kill("SIGKILL");
      await worker.exited;
      expect((await telegram.deliver(update(2, 802, "rentals in Dallas"))).status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      expect(telegram.messagesIn(802)).toEqual([]);
      for (const method of ANSWERING) expect(webProxy.callsTo(method), method).toEqual([]);

      // A worker again: the recorded update is answered, once.
      worker = startRole("worker", workerPort, restartedProxy.url);
      await started(worker, "role worker:");
      await until(() => (answersIn(802, "Answer to rentals in Dallas") > 0 ? true : undefined), 15_000);
      expect(restartedProxy.callsTo("sendMessage").length).toBeGreaterThan(0);

      // The web chat: posted to the web process, answered by the worker, streamed by the web process's page.
      const visitor = await newVisitor(`http://127.0.0.1:${webPort}`);
      const page = await openWebChatStream(`http://127.0.0.1:${webPort}`, visitor);
      try {
        const posted = await fetch(`http://127.0.0.1:${webPort}/webchat/messages`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ visitorId: visitor, messageId: "q1", text: "condos" }),
        });
        expect(posted.status).toBe(202);
        await until(() => page.messages().find((message) => message.text?.endsWith("Answer to condos")), 15_000);
      } finally {
        await page.close();
      }
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(answersIn(801, "Answer to homes in Austin")).toBe(1);
      expect(answersIn(802, "Answer to rentals in Dallas")).toBe(1);
      expect(telegram.rateLimited()).toEqual([]);
    } finally {
      await Promise.all([webProxy, workerProxy, restartedProxy].map((proxy) => proxy.close()));
    }
  });
});
