import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningBridge, startBridge } from "../../src/app/bridge-app.js";
import { stepOf } from "../../src/bridge/feature.js";
import { createLogger } from "../../src/common/log.js";
import { loadConfig } from "../../src/config/config.js";
import { ANSWER_STEPS } from "../../src/features/index.js";
import { freePort, until } from "../support/waiting.js";
import { openWebChatStream } from "../support/web-chat-stream.js";
import { ScriptedChatbot } from "../upstream/scripted-chatbot.js";
import { ping } from "./index.js";

// This folder is the whole feature: its step and this test. Nothing else in the repository names it; the step list
// takes it in one line, before the chatbot is asked.
const steps = {
  answer: [...ANSWER_STEPS.answer.slice(0, -1), stepOf(ping, "ping"), ...ANSWER_STEPS.answer.slice(-1)],
  afterAnswer: ANSWER_STEPS.afterAnswer,
};

let chatbot: ScriptedChatbot;
let running: RunningBridge;

beforeAll(async () => {
  chatbot = await ScriptedChatbot.start();
  const config = loadConfig(
    {
      PORT: String(await freePort()),
      DATA_DIR: mkdtempSync(path.join(tmpdir(), "chatbridge-ping-")),
      STORE_URL: "memory://",
      CHATBOT_API_URL: chatbot.url,
      CHATBOT_API_KEY: "sk-test",
      CHATBOT_SESSION_KEY: "session-key-test",
      CHATBOT_SERIAL_NUMBER: "homes",
    },
    { envFile: undefined },
  );
  running = await startBridge(config, createLogger("silent"), { host: "127.0.0.1", steps });
});

afterAll(async () => {
  await running?.close(1000);
  await chatbot?.close();
});

describe("a feature added as one folder and one line of the step list", () => {
  it("answers /ping from its own step, counting in the store, and leaves other messages to the chatbot", async () => {
    const { visitor } = (await (await fetch(`${running.url}/webchat/visitors`, { method: "POST" })).json()) as {
      visitor: string;
    };
    const page = await openWebChatStream(running.url, encodeURIComponent(visitor));
    const say = async (messageId: string, text: string) => {
      const posted = await fetch(`${running.url}/webchat/messages`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ visitorId: visitor, messageId, text }),
      });
      expect(posted.status).toBeLessThan(300);
    };
    // The bot's messages as the page shows them in the end: an answer streams as edits of one message.
    const botTexts = () => {
      const shown = new Map<string, string | undefined>();
      for (const event of page.events) {
        if (event.type === "message" && event.from === undefined)
          shown.set(event.messageId ?? `${event.id}`, event.text);
      }
      return [...shown.values()];
    };
    await say("p1", "/ping");
    await until(() => (botTexts().includes("pong 1") ? true : undefined));
    await say("p2", "/PING");
    await until(() => (botTexts().includes("pong 2") ? true : undefined));
    await say("q1", "Any homes in Austin?");
    await until(() => (botTexts().includes("Answer to Any homes in Austin?") ? true : undefined));
    // The greeting opened the first contact; the pings never reached the chatbot, the question did.
    expect(botTexts()).toEqual(["Welcome to **Homes**!", "pong 1", "pong 2", "Answer to Any homes in Austin?"]);
    expect(chatbot.asks.map((asked) => asked.content)).toEqual(["Any homes in Austin?"]);
    await page.close();
  });
});
