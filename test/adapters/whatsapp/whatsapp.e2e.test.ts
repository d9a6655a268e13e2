import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type RunningBridge, startBridge } from "../../../src/app/bridge-app.js";
import { createLogger } from "../../../src/common/log.js";
import { loadConfig } from "../../../src/config/config.js";
import { shownText, WhatsAppEmulator } from "../../emulators/whatsapp.js";
import { freePort, until } from "../../support/waiting.js";
import { ScriptedChatbot } from "../../upstream/scripted-chatbot.js";

const FIXTURES = new URL("../../fixtures/vercel-chat/", import.meta.url);
const fixture = JSON.parse(readFileSync(new URL("dm-whatsapp.json", FIXTURES), "utf8"));
const VERIFY_TOKEN = "verify-me-42";

let whatsapp: WhatsAppEmulator;
let rentals: WhatsAppEmulator;
let chatbot: ScriptedChatbot;
let running: RunningBridge;
let webhook: string;

/**
 * The emulator's clock runs from when the recorded delivery was sent, as if it were replayed then: its message opens
 * the user's 24-hour window, which the emulator counts from the message's timestamp as Meta does.
 */
const RECORDED_AT = Number(fixture.firstMessage.entry[0].changes[0].value.messages[0].timestamp) * 1000;
const startedAt = Date.now();

beforeAll(async () => {
  [whatsapp, rentals, chatbot] = await Promise.all([
    WhatsAppEmulator.start({ phoneNumberId: fixture.phoneNumberId, now: () => RECORDED_AT + Date.now() - startedAt }),
    WhatsAppEmulator.start({
      phoneNumberId: "200000000000002",
      accessToken: "EAAG-rentals",
      appSecret: "rentals-secret",
    }),
    ScriptedChatbot.start(),
  ]);
  const dir = mkdtempSync(path.join(tmpdir(), "chatbridge-whatsapp-"));
  const bots = path.join(dir, "bots.json");
  writeFileSync(
    bots,
    JSON.stringify({
      bots: [
        {
          id: "rentals",
          chatbot: { serialNumber: "rentals-chatbot" },
          whatsapp: {
            accessToken: rentals.accessToken,
            phoneNumberId: rentals.phoneNumberId,
            appSecret: rentals.appSecret,
            verifyToken: "rentals-verify",
            apiUrl: rentals.url,
          },
        },
      ],
    }),
  );
  const config = loadConfig(
    {
      PORT: String(await freePort()),
      DATA_DIR: dir,
      BRIDGE_CONFIG: bots,
      STORE_URL: "memory://",
      CHATBOT_API_URL: chatbot.url,
      CHATBOT_API_KEY: "sk-test",
      CHATBOT_SERIAL_NUMBER: "homes",
      WHATSAPP_ACCESS_TOKEN: whatsapp.accessToken,
      WHATSAPP_PHONE_NUMBER_ID: whatsapp.phoneNumberId,
      WHATSAPP_APP_SECRET: whatsapp.appSecret,
      WHATSAPP_VERIFY_TOKEN: VERIFY_TOKEN,
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
  await Promise.all([whatsapp?.close(), rentals?.close(), chatbot?.close()]);
});

afterEach(() => {
  // The pacer keeps every message within WhatsApp's pair and number limits.
  expect(whatsapp.rateLimited()).toEqual([]);
});

let nextUser = 15550003000;
/** The scripted chatbot's WelcomeMessage on WhatsApp: at first contact it opens the first answer. */
const WELCOME = "Welcome to *Homes*!";
const texts = (waId: string) => whatsapp.sentTo(waId).map(shownText);

async function answered(waId: string, count: number): Promise<void> {
  await until(() => (whatsapp.sentTo(waId).length >= count ? true : undefined), 20_000);
  await new Promise((resolve) => setTimeout(resolve, 300));
}

describe("WhatsApp end to end (Cloud API emulator, scripted chatbot)", () => {
  it("answers Meta's verification handshake only with the right verify token", async () => {
    expect(await whatsapp.verify(webhook, VERIFY_TOKEN, "1158201444")).toEqual({ status: 200, body: "1158201444" });
    expect((await whatsapp.verify(webhook, "wrong-token", "1158201444")).status).toBe(403);
    expect(running.channels.find((channel) => channel.name === "WhatsApp")).toMatchObject({ enabled: true });
  });

  it("answers the recorded delivery: read + typing, the greeting opening the exact text, with reply buttons", async () => {
    chatbot.answer = (question) => ({ fragments: ["**Vercel** ", "answers ", `"${question}"`], firstFragmentMs: 300 });
    const delivered = await whatsapp.deliver(webhook, fixture.firstMessage);
    expect(delivered.status).toBe(200);
    const user = fixture.firstMessage.entry[0].changes[0].value.messages[0].from as string;
    await answered(user, 1);
    // The greeting opens the answer; its suggestions come as reply buttons with the answer's last message.
    const [answer, ...more] = whatsapp.sentTo(user);
    expect(answer?.interactive).toMatchObject({
      type: "button",
      body: { text: `${WELCOME}\n\n*Vercel* answers "What is Vercel?"` },
      action: { buttons: [{ reply: { title: "Homes for sale" } }, { reply: { title: "Rentals" } }] },
    });
    expect(more).toEqual([]);
    expect(
      whatsapp.readReceipts().some((receipt) => receipt.messageId === "wamid.FAKE_MSG_ID_001" && receipt.typing),
    ).toBe(true);
  });

  it("refuses a bad signature with 401 and processes nothing", async () => {
    const asked = chatbot.asks.length;
    const user = String(++nextUser);
    const delivery = whatsapp.delivery([{ type: "text", text: { body: "sneaky" } }], { from: user });
    expect((await whatsapp.deliver(webhook, delivery, { signature: "sha256=00" })).status).toBe(401);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(chatbot.asks.length).toBe(asked);
    expect(whatsapp.sentTo(user)).toEqual([]);
  });

  it("answers a delivery received twice once, and two messages of one delivery in order", async () => {
    chatbot.answer = (question) => ({ fragments: [`Re: ${question}`], pauseMs: 50 });
    const repeated = String(++nextUser);
    const twice = whatsapp.delivery([{ type: "text", text: { body: "once" } }], { from: repeated });
    await whatsapp.deliver(webhook, twice);
    await whatsapp.deliver(webhook, twice);
    const user = String(++nextUser);
    const pair = whatsapp.delivery(
      [
        { type: "text", text: { body: "first" } },
        { type: "text", text: { body: "second" } },
      ],
      { from: user },
    );
    expect((await whatsapp.deliver(webhook, pair)).status).toBe(200);
    // Two answers to one person, the greeting opening the first: the second waits for the pair limit.
    await answered(user, 2);
    expect(texts(user)).toEqual([`${WELCOME}\n\nRe: first`, "Re: second"]);
    expect(texts(repeated)).toEqual([`${WELCOME}\n\nRe: once`]);
    expect(chatbot.asks.filter((ask) => ask.content === "once")).toHaveLength(1);
  }, 30_000);

  it("streams a long answer paragraph by paragraph, each message at most 4096 characters", async () => {
    const paragraph = (n: number) => `Listing ${n}: ${"Sunny flat, 3 rooms, near the park. ".repeat(68).trim()}`;
    const answer = [paragraph(1), paragraph(2)].join("\n\n");
    expect(answer.length).toBeGreaterThan(4096);
    // 250-character fragments 100 ms apart: the whole answer takes about 2 s to arrive.
    chatbot.answer = () => ({ fragments: answer.match(/[\s\S]{1,250}/g) ?? [], pauseMs: 100 });
    const user = String(++nextUser);
    await whatsapp.deliver(
      webhook,
      whatsapp.delivery([{ type: "text", text: { body: "all listings" } }], { from: user }),
    );
    await answered(user, 2);
    // The greeting opens the first paragraph's message.
    expect(texts(user)).toEqual([`${WELCOME}\n\n${paragraph(1)}`, paragraph(2)]);
    // The first paragraph went out as soon as it was finished, before the chatbot's answer was complete.
    const ask = chatbot.asks.find((a) => a.content === "all listings");
    expect(whatsapp.sentTo(user)[0]?.at).toBeLessThan(ask?.answeredAt ?? 0);
  }, 30_000);

  it("asks a tapped reply button's question", async () => {
    chatbot.answer = (question) => ({ fragments: [`About ${question}`] });
    const user = String(++nextUser);
    const tap = {
      type: "interactive",
      interactive: { type: "button_reply", button_reply: { id: "ask:Rentals", title: "Rentals" } },
    };
    await whatsapp.deliver(webhook, whatsapp.delivery([tap], { from: user }));
    await answered(user, 1);
    expect(texts(user)).toEqual([`${WELCOME}\n\nAbout Rentals`]);
  });

  it("serves a second number of BRIDGE_CONFIG on /webhooks/whatsapp/<botId> with its own chatbot", async () => {
    const url = `${webhook}/rentals`;
    expect(await rentals.verify(url, "rentals-verify", "42")).toEqual({ status: 200, body: "42" });
    expect((await rentals.verify(url, VERIFY_TOKEN, "42")).status).toBe(403);
    chatbot.answer = (question) => ({ fragments: [`Rentals: ${question}`] });
    const user = String(++nextUser);
    const delivery = rentals.delivery([{ type: "text", text: { body: "a flat?" } }], { from: user });
    // Signed with the default number's secret: refused.
    expect((await whatsapp.deliver(url, delivery)).status).toBe(401);
    expect((await rentals.deliver(url, delivery)).status).toBe(200);
    await until(() => (rentals.sentTo(user).length >= 1 ? true : undefined), 20_000);
    expect(rentals.sentTo(user).map(shownText)).toEqual([`${WELCOME}\n\nRentals: a flat?`]);
    expect(whatsapp.sentTo(user)).toEqual([]);
    expect(chatbot.sessions.some((session) => session.serialNumber === "rentals-chatbot")).toBe(true);
  });
});
