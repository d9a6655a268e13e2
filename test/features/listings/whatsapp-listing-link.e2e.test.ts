import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningBridge, startBridge } from "../../../src/app/bridge-app.js";
import { createLogger } from "../../../src/common/log.js";
import { loadConfig } from "../../../src/config/config.js";
import { shownText, WhatsAppEmulator, type WhatsAppSentMessage } from "../../emulators/whatsapp.js";
import { freePort, until } from "../../support/waiting.js";
import { listingItem, ScriptedChatbot } from "../../upstream/scripted-chatbot.js";

let whatsapp: WhatsAppEmulator;
let chatbot: ScriptedChatbot;
let running: RunningBridge;
let webhook: string;

beforeAll(async () => {
  [whatsapp, chatbot] = await Promise.all([WhatsAppEmulator.start(), ScriptedChatbot.start()]);
  chatbot.listings = [listingItem("TX-1001", { Images: "" })];
  const config = loadConfig(
    {
      PORT: String(await freePort()),
      DATA_DIR: mkdtempSync(path.join(tmpdir(), "chatbridge-whatsapp-deeplink-")),
      STORE_URL: "memory://",
      CHATBOT_API_URL: chatbot.url,
      CHATBOT_API_KEY: "sk-test",
      CHATBOT_SESSION_KEY: "session-key-test",
      CHATBOT_SERIAL_NUMBER: "homes",
      WHATSAPP_ACCESS_TOKEN: whatsapp.accessToken,
      WHATSAPP_PHONE_NUMBER_ID: whatsapp.phoneNumberId,
      WHATSAPP_APP_SECRET: whatsapp.appSecret,
      WHATSAPP_VERIFY_TOKEN: "verify-me",
      WHATSAPP_API_URL: whatsapp.url,
      WHATSAPP_API_VERSION: whatsapp.version,
    },
    { envFile: undefined },
  );
  running = await startBridge(config, createLogger("silent"), { host: "127.0.0.1" });
  webhook = `${running.url}/webhooks/whatsapp`;
});

afterAll(async () => {
  await running?.close(1000);
  await Promise.all([whatsapp?.close(), chatbot?.close()]);
});

let nextUser = 15550007000;

async function sent(waId: string, count: number): Promise<WhatsAppSentMessage[]> {
  await until(() => (whatsapp.sentTo(waId).length >= count ? true : undefined), 25_000);
  await new Promise((resolve) => setTimeout(resolve, 500));
  return whatsapp.sentTo(waId);
}

describe("WhatsApp links to a listing (Cloud API emulator, scripted chatbot)", () => {
  it("answers the wa.me link's sentence with the greeting, the listing's card and the viewing question", async () => {
    const user = String(++nextUser);
    const text = "Hi! I'm interested in listing l-TX-1001";
    await whatsapp.deliver(webhook, whatsapp.delivery([{ type: "text", text: { body: text } }], { from: user }));
    const messages = await sent(user, 3);

    expect(messages).toHaveLength(3);
    // The first contact is greeted first, once.
    expect(shownText(messages[0] as WhatsAppSentMessage)).toContain("Welcome to");
    const card = messages[1]?.interactive as { footer?: { text: string }; body: { text: string } };
    expect(card.footer?.text).toBe("MLS TX-1001");
    expect(card.body.text).toContain("12 Oak St, Austin, TX 78701");
    expect(shownText(messages[2] as WhatsAppSentMessage)).toBe("Would you like to book a viewing?");
    expect(chatbot.asks).toEqual([]);
    expect(chatbot.leads).toEqual([
      expect.objectContaining({ Type: "ListingVisit", Content: "MLS TX-1001 via whatsapp" }),
    ]);
  }, 30_000);

  it("asks the chatbot when the code is only mentioned mid-sentence", async () => {
    const user = String(++nextUser);
    const text = "is l-TX-1001 still available?";
    await whatsapp.deliver(webhook, whatsapp.delivery([{ type: "text", text: { body: text } }], { from: user }));
    await sent(user, 1);
    expect(chatbot.asks.at(-1)?.content).toBe(text);
  }, 30_000);
});
