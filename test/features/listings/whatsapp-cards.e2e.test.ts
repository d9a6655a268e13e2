import { mkdtempSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type RunningBridge, startBridge } from "../../../src/app/bridge-app.js";
import { createLogger } from "../../../src/common/log.js";
import { loadConfig } from "../../../src/config/config.js";
import { VIEWING_TEXTS } from "../../../src/features/viewings/viewing-texts.js";
import { shownText, WhatsAppEmulator, type WhatsAppSentMessage } from "../../emulators/whatsapp.js";
import { closeServer, listenOnLoopback, loopbackUrl } from "../../support/loopback-server.js";
import { freePort, until } from "../../support/waiting.js";
import { listingItem, ScriptedChatbot } from "../../upstream/scripted-chatbot.js";

let whatsapp: WhatsAppEmulator;
let chatbot: ScriptedChatbot;
let running: RunningBridge;
let webhook: string;
/** Where the listings' photos live: `/<name>.jpg` is a JPEG, anything else 404. */
let images: Server;

beforeAll(async () => {
  images = createServer((req, res) => {
    if (req.url?.endsWith(".jpg")) res.writeHead(200, { "content-type": "image/jpeg" }).end(Buffer.alloc(64));
    else res.writeHead(404).end();
  });
  await listenOnLoopback(images);
  const photo = (name: string) => `${loopbackUrl(images)}/${name}`;
  [whatsapp, chatbot] = await Promise.all([WhatsAppEmulator.start(), ScriptedChatbot.start()]);
  chatbot.listings = [
    listingItem("TX-1001", { Images: photo("tx-1001.jpg") }),
    listingItem("TX-1002", { Images: photo("tx-1002.jpg") }),
    listingItem("TX-1003", { Images: photo("tx-1003.jpg") }),
    listingItem("TX-2001", { Images: photo("gone.png") }),
  ];
  const config = loadConfig(
    {
      PORT: String(await freePort()),
      DATA_DIR: mkdtempSync(path.join(tmpdir(), "chatbridge-whatsapp-cards-")),
      STORE_URL: "memory://",
      CHATBOT_API_URL: chatbot.url,
      CHATBOT_API_KEY: "sk-test",
      CHATBOT_SESSION_KEY: "session-key-test",
      CHATBOT_SERIAL_NUMBER: "homes",
      // WhatsApp paces a user's messages about 8 s apart after a burst of 2: two cards keep the tests short.
      LISTING_CARDS_MAX: "2",
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
  await Promise.all([whatsapp?.close(), chatbot?.close(), images && closeServer(images)]);
});

afterEach(() => {
  // Cards are paced like any message: never over the pair or number limits.
  expect(whatsapp.rateLimited()).toEqual([]);
});

let nextUser = 15550009000;

async function sent(waId: string, count: number): Promise<WhatsAppSentMessage[]> {
  await until(() => (whatsapp.sentTo(waId).length >= count ? true : undefined), 25_000);
  await new Promise((resolve) => setTimeout(resolve, 500));
  return whatsapp.sentTo(waId);
}

interface ButtonMessage {
  type: string;
  header?: { type: string; image?: { link: string } };
  body: { text: string };
  footer?: { text: string };
  action: { buttons: { type: string; reply: { id: string; title: string } }[] };
}

describe("WhatsApp listing cards (Cloud API emulator, scripted chatbot)", () => {
  it("sends a reply-button card with the photo as header after the answer, at most LISTING_CARDS_MAX", async () => {
    const user = String(++nextUser);
    chatbot.answer = () => ({ fragments: ["MLS# NOPE-1 is gone; see MLS# TX-1001, MLS# TX-1002 and MLS# TX-1003."] });
    await whatsapp.deliver(webhook, whatsapp.delivery([{ type: "text", text: { body: "homes?" } }], { from: user }));
    const messages = await sent(user, 3);
    expect(messages).toHaveLength(3);
    expect(shownText(messages[0] as WhatsAppSentMessage)).toContain("MLS# TX-1003");
    const card = messages[1]?.interactive as ButtonMessage;
    expect(card).toMatchObject({
      type: "button",
      header: { type: "image", image: { link: expect.stringMatching(/\/tx-1001\.jpg$/) } },
      footer: { text: "MLS TX-1001" },
      action: {
        buttons: [
          { type: "reply", reply: { id: "card:similar:TX-1001", title: "Similar homes" } },
          { type: "reply", reply: { id: "card:viewing:TX-1001", title: "Book a viewing" } },
        ],
      },
    });
    expect(card.body.text).toBe(
      "*$450,000 · 3 beds · 2 baths · 1,850 sq ft*\n12 Oak St, Austin, TX 78701\nHouse\nDetails: https://homes.test/listing/tx-1001",
    );
    expect((messages[2]?.interactive as ButtonMessage | undefined)?.footer?.text).toBe("MLS TX-1002");
  }, 30_000);

  it("asks the chatbot for similar homes when Similar homes is tapped", async () => {
    const user = String(++nextUser);
    chatbot.answer = (question) => ({
      fragments: [question.startsWith("Show me") ? "Nothing similar right now." : "See MLS# TX-1003."],
    });
    await whatsapp.deliver(webhook, whatsapp.delivery([{ type: "text", text: { body: "one?" } }], { from: user }));
    const [, card] = await sent(user, 2);
    const button = (card?.interactive as ButtonMessage | undefined)?.action.buttons[0]?.reply;
    const asked = chatbot.asks.length;
    const tap = { type: "interactive", interactive: { type: "button_reply", button_reply: button } };
    await whatsapp.deliver(webhook, whatsapp.delivery([tap], { from: user }));
    const messages = await sent(user, 3);
    expect(chatbot.asks.slice(asked).map((ask) => ask.content)).toEqual([
      "Show me homes similar to MLS TX-1003: in Austin, for sale, about $450,000 (±20%: $360,000 to $540,000), 2 to 4 bedrooms.",
    ]);
    expect(shownText(messages[2] as WhatsAppSentMessage)).toBe("Nothing similar right now.");
  }, 30_000);

  it("asks for a time when Book a viewing is tapped, and says honestly that no mail can reach the agency", async () => {
    const user = String(++nextUser);
    chatbot.answer = () => ({ fragments: ["See MLS# TX-1003."] });
    await whatsapp.deliver(webhook, whatsapp.delivery([{ type: "text", text: { body: "one?" } }], { from: user }));
    const [, card] = await sent(user, 2);
    const button = (card?.interactive as ButtonMessage | undefined)?.action.buttons[1]?.reply;
    expect(button).toEqual({ id: "card:viewing:TX-1003", title: "Book a viewing" });
    const asked = chatbot.asks.length;
    const tap = { type: "interactive", interactive: { type: "button_reply", button_reply: button } };
    await whatsapp.deliver(webhook, whatsapp.delivery([tap], { from: user }));
    const question = await sent(user, 3);
    expect(shownText(question[2] as WhatsAppSentMessage)).toBe(VIEWING_TEXTS.askTime("12 Oak St, Austin, TX 78701"));
    // WhatsApp gives the user's number: no contact is asked; no SMTP server here, so nobody can be reached.
    await whatsapp.deliver(
      webhook,
      whatsapp.delivery([{ type: "text", text: { body: "Saturday 10am" } }], { from: user }),
    );
    const messages = await sent(user, 4);
    expect(shownText(messages[3] as WhatsAppSentMessage)).toBe(VIEWING_TEXTS.unreachable);
    expect(chatbot.asks.length).toBe(asked);
  }, 30_000);

  it("sends a card whose photo cannot be fetched without it, its buttons kept", async () => {
    const user = String(++nextUser);
    chatbot.answer = () => ({ fragments: ["Try MLS# TX-2001."] });
    await whatsapp.deliver(webhook, whatsapp.delivery([{ type: "text", text: { body: "that?" } }], { from: user }));
    const messages = await sent(user, 2);
    expect(messages).toHaveLength(2);
    const card = messages[1]?.interactive as ButtonMessage;
    expect(card.header).toBeUndefined();
    expect(card.body.text).toContain("$450,000 · 3 beds");
    expect(card.action.buttons.map((button) => button.reply.title)).toEqual(["Similar homes", "Book a viewing"]);
  });
});
