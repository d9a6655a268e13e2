/**
 * One answer with a `|--|--|` table and a tab-indented fence, streamed in awkward pieces by the chatbot and answered
 * on Telegram, Slack, WhatsApp (through their emulators) and the web chat by one bridge: every platform shows a
 * table and a code block, each in its own markup, and the final text is what that platform's renderer makes of the
 * whole answer.
 */

import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { markdownToMrkdwn } from "../../adapters/slack/format.js";
import { markdownToTelegramHtml } from "../../adapters/telegram/format.js";
import { markdownToWebHtml } from "../../adapters/web/format.js";
import { markdownToWhatsApp } from "../../adapters/whatsapp/format.js";
import { type RunningBridge, startBridge } from "../../src/app/bridge-app.js";
import { createLogger } from "../../src/common/log.js";
import { loadConfig } from "../../src/config/config.js";
import { SlackEmulator } from "../emulators/slack.js";
import { TelegramEmulator } from "../emulators/telegram.js";
import { shownText, WhatsAppEmulator } from "../emulators/whatsapp.js";
import { privateText } from "../support/bridge-instances.js";
import { freePort, until } from "../support/waiting.js";
import { newVisitor, openWebChatStream } from "../support/web-chat-stream.js";
import { ScriptedChatbot } from "../upstream/scripted-chatbot.js";

const ANSWER = "Homes:\n\n| Home | Price |\n|--|--|\n| Loft | 300 |\n\n1. Run it:\n\t```bash\n\tls -la\n\t```";
/** At first contact the chatbot's greeting opens the answer's message. */
const SHOWN = `Welcome to **Homes**!\n\n${ANSWER}`;
const TELEGRAM_TOKEN = "123456789:AAbbccddeeffgghhiijjkkllmmnnoopp";
const SIGNING_SECRET = "8f742231b10e8888abcd99yyyzzz85a5";

let telegram: TelegramEmulator;
let slack: SlackEmulator;
let whatsapp: WhatsAppEmulator;
let chatbot: ScriptedChatbot;
let running: RunningBridge;

beforeAll(async () => {
  [telegram, slack, whatsapp, chatbot] = await Promise.all([
    TelegramEmulator.start({ token: TELEGRAM_TOKEN, bot: { id: 777, username: "homes_bot" } }),
    SlackEmulator.start({ token: "xoxb-test-token", botUserId: "U0BOT", teamId: "T00FAKE00AA" }),
    WhatsAppEmulator.start({ phoneNumberId: "100000000000001" }),
    ScriptedChatbot.start(),
  ]);
  // Cut where a renderer could be fooled: inside the delimiter row, inside the fence's opening and its body.
  chatbot.answer = () => ({
    fragments: [ANSWER.slice(0, 24), ANSWER.slice(24, 60), ANSWER.slice(60, 75), ANSWER.slice(75)],
  });
  const port = await freePort();
  const config = loadConfig(
    {
      PORT: String(port),
      DATA_DIR: mkdtempSync(path.join(tmpdir(), "chatbridge-structure-")),
      STORE_URL: "memory://",
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      CHATBOT_API_URL: chatbot.url,
      CHATBOT_API_KEY: "sk-test",
      CHATBOT_SERIAL_NUMBER: "homes",
      TELEGRAM_BOT_TOKEN: TELEGRAM_TOKEN,
      TELEGRAM_WEBHOOK_SECRET: "structure-secret",
      TELEGRAM_API_ROOT: telegram.url,
      SLACK_BOT_TOKEN: "xoxb-test-token",
      SLACK_SIGNING_SECRET: SIGNING_SECRET,
      SLACK_API_URL: slack.url,
      WHATSAPP_ACCESS_TOKEN: whatsapp.accessToken,
      WHATSAPP_PHONE_NUMBER_ID: whatsapp.phoneNumberId,
      WHATSAPP_APP_SECRET: whatsapp.appSecret,
      WHATSAPP_VERIFY_TOKEN: "verify-me",
      WHATSAPP_API_URL: whatsapp.url,
      WHATSAPP_API_VERSION: whatsapp.version,
      // One message at the end on WhatsApp, as on the platforms that edit: the structures are compared whole.
      WHATSAPP_STREAMING: "whole",
    },
    { envFile: undefined },
  );
  running = await startBridge(config, createLogger("silent"), { host: "127.0.0.1" });
});

afterAll(async () => {
  await running?.close(1000);
  await Promise.all([telegram?.close(), slack?.close(), whatsapp?.close(), chatbot?.close()]);
});

/** What `read()` shows once it is `expected`, or after 15 s whatever it shows then (for the assertions to tell). */
async function shown(read: () => string | undefined, expected: string): Promise<string | undefined> {
  await until(() => (read() === expected ? true : undefined), 15_000).catch(() => undefined);
  return read();
}

describe("one answer, one structure on every platform (through the emulators)", () => {
  it("shows the table and the tab-indented code block on Telegram, Slack, WhatsApp and the web chat", async () => {
    const visitor = await newVisitor(running.url);
    const page = await openWebChatStream(running.url, visitor);
    await Promise.all([
      telegram.deliver(privateText(1, 4242, "show me")),
      slack.deliver(
        `${running.url}/webhooks/slack/events`,
        {
          type: "event_callback",
          team_id: "T00FAKE00AA",
          event_id: "EvStructure1",
          event_time: Math.floor(Date.now() / 1000),
          event: {
            type: "message",
            user: "U0ANA",
            ts: "1767380000.000100",
            text: "show me",
            channel: "D0ANA",
            channel_type: "im",
          },
          authorizations: [{ user_id: "U0BOT", is_bot: true }],
        },
        { signingSecret: SIGNING_SECRET },
      ),
      whatsapp.deliver(
        `${running.url}/webhooks/whatsapp`,
        whatsapp.delivery([{ type: "text", text: { body: "show me" } }], { from: "15550004242" }),
      ),
      fetch(`${running.url}/webchat/messages`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ visitorId: visitor, messageId: "m1", text: "show me" }),
      }),
    ]);
    const [onTelegram, onSlack, onWhatsApp, onWeb] = await Promise.all([
      shown(() => telegram.messagesIn(4242).at(-1)?.rawText, markdownToTelegramHtml(SHOWN)),
      shown(() => slack.messagesIn("D0ANA").at(-1)?.text, markdownToMrkdwn(SHOWN)),
      shown(() => whatsapp.sentTo("15550004242").map(shownText).join("\n\n"), markdownToWhatsApp(SHOWN)),
      shown(() => page.messages().at(-1)?.html, markdownToWebHtml(SHOWN)),
    ]);
    await page.close();

    expect(onTelegram).toContain("Home | Price\nLoft | 300");
    expect(onTelegram).toContain('1. Run it:\n<pre><code class="language-bash">ls -la</code></pre>');
    for (const chat of [onSlack, onWhatsApp]) {
      expect(chat).toContain("```\nHome │ Price\n─────┼──────\nLoft │ 300\n```");
      expect(chat).toContain("1. Run it:\n```\nls -la\n```");
    }
    expect(onWeb).toContain(
      "<table><thead><tr><th>Home</th><th>Price</th></tr></thead><tbody><tr><td>Loft</td><td>300</td></tr></tbody></table>",
    );
    expect(onWeb).toContain('1. Run it:\n<pre><code class="language-bash">ls -la</code></pre>');
    // Each is exactly its renderer's reading of the whole answer: nothing of the pieces' cuts is left.
    expect([onTelegram, onSlack, onWhatsApp, onWeb]).toEqual([
      markdownToTelegramHtml(SHOWN),
      markdownToMrkdwn(SHOWN),
      markdownToWhatsApp(SHOWN),
      markdownToWebHtml(SHOWN),
    ]);
  });
});
