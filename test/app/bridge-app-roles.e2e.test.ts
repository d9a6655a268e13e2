import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningBridge, startBridge } from "../../src/app/bridge-app.js";
import type { BridgeRole } from "../../src/app/bridge-role.js";
import { createLogger } from "../../src/common/log.js";
import { ConfigError, loadConfig } from "../../src/config/config.js";
import { SlackEmulator } from "../emulators/slack.js";
import { TelegramEmulator } from "../emulators/telegram.js";
import { freePort, holds, until } from "../support/waiting.js";
import { newVisitor, openWebChatStream } from "../support/web-chat-stream.js";
import { ScriptedChatbot } from "../upstream/scripted-chatbot.js";

const TELEGRAM_TOKEN = "123456789:AAroles-in-process-token_01";
const SLACK_TOKEN = "xoxb-roles-in-process";

let chatbot: ScriptedChatbot;
let telegram: TelegramEmulator;
let slack: SlackEmulator;

beforeAll(async () => {
  [chatbot, telegram, slack] = await Promise.all([
    ScriptedChatbot.start(),
    TelegramEmulator.start({ token: TELEGRAM_TOKEN }),
    SlackEmulator.start({ token: SLACK_TOKEN, botUserId: "U0ROLES" }),
  ]);
});
afterAll(async () => {
  await Promise.all([chatbot?.close(), telegram?.close(), slack?.close()]);
});

async function startRole(role: BridgeRole, env: Record<string, string>): Promise<RunningBridge> {
  const config = loadConfig(
    {
      PORT: String(await freePort()),
      CHATBOT_API_URL: chatbot.url,
      CHATBOT_API_KEY: "sk-test",
      CHATBOT_SERIAL_NUMBER: "homes",
      ...env,
    },
    { envFile: undefined },
  );
  return startBridge(config, createLogger("silent"), { host: "127.0.0.1", role });
}

describe("startBridge's roles", () => {
  it("refuses web and worker on the memory store with a ConfigError, before listening", async () => {
    for (const role of ["web", "worker"] as const) {
      const port = await freePort();
      const failure = await startRole(role, {
        PORT: String(port),
        DATA_DIR: mkdtempSync(path.join(tmpdir(), "chatbridge-roles-")),
        STORE_URL: "memory://",
      }).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(failure).toBeInstanceOf(ConfigError);
      expect((failure as ConfigError).problems).toEqual([
        `--role ${role} needs a store that the other processes share, but STORE_URL=memory:// is this process's memory alone: set STORE_URL=redis://… (or leave it unset for the SQLite file in DATA_DIR, which processes on one machine share).`,
      ]);
      await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
    }
  });

  it("web records the web chat's messages without answering; a worker on the same SQLite file answers them", async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), "chatbridge-roles-"));
    const env = { DATA_DIR: dataDir, ADMIN_TOKEN: "admin-token-of-the-roles" };
    const web = await startRole("web", env);
    let worker: RunningBridge | undefined;
    const visitor = await newVisitor(web.url);
    const page = await openWebChatStream(web.url, visitor);
    try {
      const posted = await fetch(`${web.url}/webchat/messages`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ visitorId: visitor, messageId: "q1", text: "lofts" }),
      });
      expect(posted.status).toBe(202);
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      expect(chatbot.asks.filter((ask) => ask.content === "lofts")).toEqual([]);
      // What waits shows in /readyz and /metrics, with the engine that keeps it.
      const ready = (await (await fetch(`${web.url}/readyz`)).json()) as { queue: Record<string, unknown> };
      expect(ready.queue).toMatchObject({ backend: "sqlite", waiting: 1, conversations: 1 });
      expect(ready.queue.oldestSeconds).toBeGreaterThanOrEqual(0);
      const metrics = await (await fetch(`${web.url}/metrics`)).text();
      expect(metrics).toMatch(/^chatbridge_work_items 1$/m);
      expect(Number(/^chatbridge_work_oldest_seconds (\S+)$/m.exec(metrics)?.[1])).toBeGreaterThanOrEqual(0.9);
      worker = await startRole("worker", env);
      expect(worker.channels[0]).toEqual({ name: "web chat", enabled: true, detail: "answering only (role worker)" });
      await until(() => page.messages().find((message) => message.text?.endsWith("Answer to lofts")), 15_000);
      expect(chatbot.asks.filter((ask) => ask.content === "lofts")).toHaveLength(1);
      // Answered and removed: the web process's metrics show the store's queue, whoever answered.
      await holds(async () => /^chatbridge_work_items 0$/m.test(await (await fetch(`${web.url}/metrics`)).text()));
      // The worker serves neither the page nor the web chat's routes nor admin; the web process does.
      for (const route of ["/", "/webchat/events?visitor=x", "/admin/handoffs"]) {
        expect((await fetch(`${worker.url}${route}`)).status, route).toBe(404);
      }
      expect((await fetch(`${web.url}/`)).status).toBe(200);
      expect((await fetch(`${web.url}/admin/handoffs`)).status).toBe(401);
    } finally {
      await page.close();
      await worker?.close(1000);
      await web.close(1000);
    }
  });

  it("worker attaches every channel to answer, without webhooks, setWebhook or the secrets that receiving needs", async () => {
    const worker = await startRole("worker", {
      DATA_DIR: mkdtempSync(path.join(tmpdir(), "chatbridge-roles-")),
      TELEGRAM_BOT_TOKEN: TELEGRAM_TOKEN,
      TELEGRAM_API_ROOT: telegram.url,
      SLACK_BOT_TOKEN: SLACK_TOKEN,
      SLACK_API_URL: slack.url,
      WHATSAPP_ACCESS_TOKEN: "EAAroles",
      WHATSAPP_PHONE_NUMBER_ID: "1234567890",
    });
    try {
      expect(worker.channels.map(({ name, enabled, detail }) => `${name}: ${enabled} — ${detail}`)).toEqual([
        "web chat: true — answering only (role worker)",
        "Telegram: true — @vercelchatsdkbot, answering only (role worker)",
        expect.stringMatching(/^Slack: true — @.+ in .+, answering only \(role worker\)$/),
        "WhatsApp: true — phone number id 1234567890, answering only (role worker)",
      ]);
      expect(telegram.callsTo("setWebhook")).toEqual([]);
      expect(telegram.callsTo("deleteWebhook")).toEqual([]);
      for (const route of ["/webhooks/telegram", "/webhooks/slack/events", "/webhooks/whatsapp"]) {
        expect((await fetch(`${worker.url}${route}`, { method: "POST" })).status, route).toBe(404);
      }
      expect((await fetch(`${worker.url}/readyz`)).status).toBe(200);
    } finally {
      await worker.close(1000);
    }
  });
});
