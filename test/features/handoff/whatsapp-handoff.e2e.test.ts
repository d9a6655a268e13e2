import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningBridge } from "../../../src/app/bridge-app.js";
import { WhatsAppEmulator } from "../../emulators/whatsapp.js";
import { startBridgeUnderTest } from "../../support/bridge-under-test.js";
import { SmtpSink } from "../../support/smtp-sink.js";
import { until } from "../../support/waiting.js";
import { ScriptedChatbot } from "../../upstream/scripted-chatbot.js";

let whatsapp: WhatsAppEmulator;
let chatbot: ScriptedChatbot;
let smtp: SmtpSink;
let running: RunningBridge;
let webhook: string;

beforeAll(async () => {
  [whatsapp, chatbot, smtp] = await Promise.all([WhatsAppEmulator.start(), ScriptedChatbot.start(), SmtpSink.start()]);
  // The hosted platform cannot tell the bridge its chatbot's TalkToHumanEmail: HANDOFF_EMAIL and HANDOFF_MESSAGE.
  running = await startBridgeUnderTest(chatbot, {
    WHATSAPP_ACCESS_TOKEN: whatsapp.accessToken,
    WHATSAPP_PHONE_NUMBER_ID: whatsapp.phoneNumberId,
    WHATSAPP_APP_SECRET: whatsapp.appSecret,
    WHATSAPP_VERIFY_TOKEN: "verify",
    WHATSAPP_API_URL: whatsapp.url,
    WHATSAPP_API_VERSION: whatsapp.version,
    SMTP_URL: smtp.url(),
    MAIL_FROM: "bot@homes.example",
    HANDOFF_EMAIL: "sales@homes.example",
  });
  webhook = `${running.url}/webhooks/whatsapp`;
});

afterAll(async () => {
  await running?.close(1000);
  await Promise.all([whatsapp?.close(), chatbot?.close(), smtp?.stop()]);
});

describe("Talk to a human over WhatsApp", () => {
  it("mails HANDOFF_EMAIL with the user's number and a wa.me link, and answers HANDOFF_MESSAGE", async () => {
    const user = "15550007777";
    const handoffMessage = "Thanks! I've passed our conversation to the team: a person will reply here soon.";
    await whatsapp.deliver(
      webhook,
      whatsapp.delivery([{ type: "text", text: { body: "hablar con una persona" } }], { from: user, name: "Luis" }),
    );
    await until(() => (whatsapp.sentTo(user).length >= 2 ? true : undefined), 20_000);
    expect(whatsapp.sentTo(user)[1]?.text).toBe(handoffMessage);
    await until(() => (smtp.received.length > 0 ? true : undefined));
    const [mail] = smtp.received;
    expect(mail?.envelope.to).toEqual(["sales@homes.example"]);
    expect(mail?.subject).toBe("Talk to a human: Luis (+15550007777) on WhatsApp");
    expect(mail?.text).toContain("Reach them: https://wa.me/15550007777");
    expect(mail?.text).toContain("Luis: hablar con una persona");
    expect(chatbot.asks).toEqual([]);
  });
});
