import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { type RunningBridge, startBridge } from "../../src/app/bridge-app.js";
import { createLogger } from "../../src/common/log.js";
import { loadConfig } from "../../src/config/config.js";
import type { MailRetryPolicy } from "../../src/mail/mail-outbox.js";
import type { ScriptedChatbot } from "../upstream/scripted-chatbot.js";
import { freePort } from "./waiting.js";

/**
 * Starts `chatbridge start`'s app on a free loopback port with a fresh data directory and an in-memory store,
 * talking to `chatbot`; `env` adds the channel's variables (and overrides any of these), `options.mailRetry` shortens
 * the mail outbox's waits.
 */
export async function startBridgeUnderTest(
  chatbot: ScriptedChatbot,
  env: Record<string, string>,
  options: { mailRetry?: Partial<MailRetryPolicy> } = {},
): Promise<RunningBridge> {
  const port = await freePort();
  const config = loadConfig(
    {
      PORT: String(port),
      DATA_DIR: mkdtempSync(path.join(tmpdir(), "chatbridge-")),
      STORE_URL: "memory://",
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      CHATBOT_API_URL: chatbot.url,
      CHATBOT_API_KEY: "sk-test",
      CHATBOT_SERIAL_NUMBER: "homes-chatbot",
      ...env,
    },
    { envFile: undefined },
  );
  return startBridge(config, createLogger("silent"), { host: "127.0.0.1", ...options });
}
