import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningBridge, startBridge } from "../../../src/app/bridge-app.js";
import { createLogger } from "../../../src/common/log.js";
import { loadConfig } from "../../../src/config/config.js";
import { type RawRequest, sendBody } from "../../support/raw-http.js";
import { freePort } from "../../support/waiting.js";
import { ScriptedChatbot } from "../../upstream/scripted-chatbot.js";

/** Far over every web chat limit (messages 16 kB), well within what the bridge drains. */
const BODY = 4 * 1024 * 1024;
/** Requests per case, half of them asking for `Connection: close` (which Node.js honours right after the answer). */
const REPEATS = 20;

let chatbot: ScriptedChatbot;
let running: RunningBridge;

beforeAll(async () => {
  chatbot = await ScriptedChatbot.start();
  const config = loadConfig(
    {
      PORT: String(await freePort()),
      DATA_DIR: mkdtempSync(path.join(tmpdir(), "chatbridge-web-early-")),
      STORE_URL: "memory://",
      CHATBOT_API_URL: chatbot.url,
      CHATBOT_API_KEY: "sk-test",
      CHATBOT_SESSION_KEY: "session-key-test",
      CHATBOT_SERIAL_NUMBER: "homes",
    },
    { envFile: undefined },
  );
  running = await startBridge(config, createLogger("silent"), { host: "127.0.0.1" });
});

afterAll(async () => {
  await running?.close(1000);
  await chatbot?.close();
});

/** What went wrong with each of the case's requests: a reset, another status, an incomplete or non-JSON answer. */
async function problems(name: string, request: Omit<RawRequest, "connection">, status: number): Promise<string[]> {
  const found: string[] = [];
  for (let n = 0; n < REPEATS; n++) {
    const connection = n % 2 === 0 ? "close" : "keep-alive";
    const answer = await sendBody(running.url, { ...request, connection });
    const problem =
      answer.error !== undefined
        ? `${answer.error} after ${answer.sentBytes} bytes`
        : answer.status !== status
          ? `status ${answer.status}`
          : !answer.complete || !answer.headers["content-type"]?.startsWith("application/json")
            ? "not a whole JSON answer"
            : typeof (JSON.parse(answer.body) as { error?: unknown }).error !== "string"
              ? `body ${answer.body}`
              : undefined;
    if (problem) found.push(`${name} #${n} (${connection}): ${problem}`);
  }
  return found;
}

describe("the bridge's answers sent before the body is read (the web chat, the JSON fallbacks)", () => {
  it("reach a client that sends its whole body: each its status and JSON error, none a reset", async () => {
    const json = { "content-type": "application/json" };
    const found = [
      ...(await problems(
        "an upload with an invalid visitor",
        {
          method: "POST",
          path: "/webchat/uploads?visitor=nope",
          headers: { "content-type": "image/png" },
          bodyBytes: BODY,
        },
        400,
      )),
      ...(await problems(
        "a message over 16 kB",
        { method: "POST", path: "/webchat/messages", headers: json, bodyBytes: BODY },
        413,
      )),
      ...(await problems(
        "a body to a route that reads none",
        { method: "GET", path: "/webchat/widget", bodyBytes: BODY },
        413,
      )),
      ...(await problems("an unknown path", { method: "POST", path: "/nowhere", headers: json, bodyBytes: BODY }, 404)),
    ];
    expect(found).toEqual([]);
  }, 120_000);
});
