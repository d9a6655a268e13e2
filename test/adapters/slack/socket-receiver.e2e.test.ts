import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningBridge, startBridge } from "../../../src/app/bridge-app.js";
import { createLogger } from "../../../src/common/log.js";
import { loadConfig } from "../../../src/config/config.js";
import { SlackEmulator } from "../../emulators/slack.js";
import { freePort, until } from "../../support/waiting.js";
import { ScriptedChatbot } from "../../upstream/scripted-chatbot.js";

const APP_TOKEN = "xapp-1-A0EMULATOR-test";
let slack: SlackEmulator;
let chatbot: ScriptedChatbot;
let running: RunningBridge;
let closed = false;

beforeAll(async () => {
  [slack, chatbot] = await Promise.all([
    SlackEmulator.start({ token: "xoxb-socket-bot", appToken: APP_TOKEN, botUserId: "U0SOCKBOT" }),
    ScriptedChatbot.start(),
  ]);
  const config = loadConfig(
    {
      PORT: String(await freePort()),
      DATA_DIR: mkdtempSync(path.join(tmpdir(), "chatbridge-slack-socket-")),
      STORE_URL: "memory://",
      CHATBOT_API_URL: chatbot.url,
      CHATBOT_API_KEY: "sk-test",
      CHATBOT_SERIAL_NUMBER: "homes",
      SLACK_BOT_TOKEN: "xoxb-socket-bot",
      SLACK_APP_TOKEN: APP_TOKEN,
      SLACK_API_URL: slack.url,
    },
    { envFile: undefined },
  );
  running = await startBridge(config, createLogger("silent"), { host: "127.0.0.1" });
});

afterAll(async () => {
  if (!closed) await running?.close(1000);
  await Promise.all([slack?.close(), chatbot?.close()]);
});

describe("Slack in Socket Mode (no public URL, no signing secret)", () => {
  it("connects at start, answers an event pushed over the socket, and acknowledges it", async () => {
    expect(running.channels.find((channel) => channel.name === "Slack")).toMatchObject({
      enabled: true,
      detail: expect.stringContaining("Socket Mode"),
    });
    expect(slack.socketConnections).toBe(1);
    chatbot.answer = (question) => ({ fragments: [`Socket: ${question}`] });
    const ack = await slack.sendOverSocket({
      type: "event_callback",
      team_id: "T0TEST",
      event_id: "EvSocket1",
      event: {
        type: "message",
        channel_type: "im",
        channel: "D0SOCK",
        user: "U0ANA",
        ts: "1767400000.000100",
        text: "hi",
      },
    });
    expect(ack.envelope_id).toBeTruthy();
    // At first contact the greeting opens the answer: shown at once, then edited to the whole answer.
    const answer = "Welcome to *Homes*!\n\nSocket: hi";
    await until(() => (slack.messagesIn("D0SOCK")[0]?.text === answer ? true : undefined));
    expect(slack.messagesIn("D0SOCK").map((m) => m.text)).toEqual([answer]);
    // No HTTP endpoint is served in Socket Mode.
    expect((await fetch(`${running.url}/webhooks/slack/events`, { method: "POST" })).status).toBe(404);
  });

  it("closes the socket when chatbridge stops", async () => {
    closed = true;
    await running.close(1000);
    await until(() => (slack.socketConnections === 0 ? true : undefined));
  });
});
