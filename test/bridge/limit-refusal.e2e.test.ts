import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningBridge, startBridge } from "../../src/app/bridge-app.js";
import { DEFAULT_LIMIT_TEXT, limitRefusalText } from "../../src/bridge/limit-refusal.js";
import { ChatbotApiError, ChatbotClient } from "../../src/client/index.js";
import { createLogger } from "../../src/common/log.js";
import { loadConfig } from "../../src/config/config.js";
import { freePort, until } from "../support/waiting.js";
import { newVisitor, openWebChatStream } from "../support/web-chat-stream.js";

const refusal = (detail: string, retryAfterMs?: number) =>
  new ChatbotApiError({
    operation: "ClientAsk",
    kind: "http",
    status: 429,
    envelope: true,
    message: detail,
    retryAfterMs,
  });

describe("limitRefusalText", () => {
  it("says the owner's RateLimitMessage, else the refusal's words, else a plain default", () => {
    expect(limitRefusalText(refusal("Slow down"), { RateLimitMessage: " One question a minute, please. " })).toBe(
      "One question a minute, please.",
    );
    expect(limitRefusalText(refusal("Slow down, please."), undefined)).toBe("Slow down, please.");
    expect(limitRefusalText(refusal(""), undefined)).toBe(DEFAULT_LIMIT_TEXT);
  });

  it("tells when questions are taken again, when the API said", () => {
    expect(limitRefusalText(refusal("Wait."), undefined)).toBe("Wait.");
    expect(limitRefusalText(refusal("Wait.", 30_000), undefined)).toBe("Wait. You can write again in a minute.");
    expect(limitRefusalText(refusal("Wait.", 5 * 60_000 + 1), undefined)).toBe(
      "Wait. You can write again in about 6 minutes.",
    );
  });
});

describe("a question over the chatbot's rate limit, end to end (embedded API, web chat)", () => {
  let running: RunningBridge;

  beforeAll(async () => {
    const config = loadConfig(
      {
        PORT: String(await freePort()),
        DATA_DIR: mkdtempSync(path.join(tmpdir(), "chatbridge-limits-")),
        STORE_URL: "memory://",
      },
      { envFile: undefined },
    );
    running = await startBridge(config, createLogger("silent"), { host: "127.0.0.1" });
    const demo = running.embedded?.demo;
    if (!demo) throw new Error("the embedded API's demo is expected");
    const client = new ChatbotClient({
      baseUrl: running.url,
      apiKey: demo.workspace.secretKey,
      sessionKey: demo.workspace.sessionKey,
    });
    await client.editChatbot(demo.chatbot.serialNumber, {
      RateLimitCount: 1,
      RateLimitTime: 3600,
      RateLimitMessage: "Easy there! Our assistant takes one question an hour.",
    });
  });
  afterAll(() => running?.close(1000));

  it("answers the first question and gives the owner's RateLimitMessage for the next, not an apology", async () => {
    const visitor = await newVisitor(running.url);
    const page = await openWebChatStream(running.url, visitor);
    const send = (messageId: string, text: string) =>
      fetch(`${running.url}/webchat/messages`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ visitorId: visitor, messageId, text }),
      });
    try {
      await send("q1", "homes for sale in Austin");
      await until(() => (page.messages().some((message) => /Austin/.test(message.text ?? "")) ? true : undefined));
      await send("q2", "homes for sale in Denver");
      const refused = await until(
        () => page.messages().find((message) => message.text?.startsWith("Easy there!")),
        10_000,
      );
      expect(refused.text).toBe("Easy there! Our assistant takes one question an hour.");
      expect(page.messages().some((message) => message.text?.startsWith("Sorry, I couldn't finish"))).toBe(false);
    } finally {
      await page.close();
    }
  });
});
