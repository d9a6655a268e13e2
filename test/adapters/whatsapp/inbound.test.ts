import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parseDelivery } from "../../../adapters/whatsapp/inbound.js";

const FIXTURES = new URL("../../fixtures/vercel-chat/", import.meta.url);
const fixture = JSON.parse(readFileSync(new URL("dm-whatsapp.json", FIXTURES), "utf8"));
const context = { botId: "default", phoneNumberId: fixture.phoneNumberId as string, now: () => new Date(0) };

/** A delivery to this bot's number with the given messages from one user (and statuses). */
function delivery(messages: object[], extra: object = {}, phoneNumberId = context.phoneNumberId) {
  return {
    object: "whatsapp_business_account",
    entry: [
      {
        id: "1",
        changes: [
          {
            field: "messages",
            value: {
              messaging_product: "whatsapp",
              metadata: { display_phone_number: "15550001111", phone_number_id: phoneNumberId },
              contacts: [{ profile: { name: "Ana" }, wa_id: "155500" }],
              messages: messages.map((message, n) => ({
                from: "155500",
                id: `wamid.${n}`,
                timestamp: "1",
                ...message,
              })),
              ...extra,
            },
          },
        ],
      },
    ],
  };
}

describe("parseDelivery", () => {
  it("reads the recorded text message: the wamid is the event id, the sender the conversation", () => {
    expect(parseDelivery(fixture.firstMessage, context)).toEqual({
      messages: [
        {
          channel: "whatsapp",
          botId: "default",
          eventId: "wamid.FAKE_MSG_ID_001",
          target: { chatId: "15550002222", isGroup: false, replyToMessageId: "wamid.FAKE_MSG_ID_001" },
          user: { id: "15550002222", name: "Test User", handle: "+15550002222", link: "https://wa.me/15550002222" },
          text: "What is Vercel?",
          media: [],
          receivedAt: new Date(0),
          // The recording's timestamp: when the user sent it by Meta's clock.
          sentAt: new Date(1772998024_000),
        },
      ],
      statuses: [],
      ignored: [],
    });
  });

  it("records status updates without answering them", () => {
    const parsed = parseDelivery(fixture.statusUpdate, context);
    expect(parsed.messages).toEqual([]);
    expect(parsed.statuses.length).toBeGreaterThan(0);
  });

  it("reads every kind of message a person sends, in order, and leaves out the rest", () => {
    const parsed = parseDelivery(
      delivery([
        {
          type: "interactive",
          interactive: {
            type: "list_reply",
            list_reply: { id: "ask:Rentals in Austin under 2k", title: "Rentals in Austin und…" },
          },
        },
        { type: "interactive", interactive: { type: "button_reply", button_reply: { id: "other", title: "Yes" } } },
        { type: "button", button: { text: "Stop promotions", payload: "STOP" } },
        { type: "image", image: { id: "m1", mime_type: "image/jpeg", caption: "this one?" } },
        { type: "audio", audio: { id: "m2", mime_type: "audio/ogg; codecs=opus", voice: true } },
        { type: "document", document: { id: "m3", mime_type: "application/pdf", filename: "offer.pdf" } },
        { type: "location", location: { latitude: 30.27, longitude: -97.74, name: "Zilker Park" } },
        { type: "contacts", contacts: [{ name: { formatted_name: "Bob" }, phones: [{ phone: "+1 555" }] }] },
        { type: "reaction", reaction: { message_id: "wamid.x", emoji: "👍" } },
        { type: "sticker", sticker: { id: "m4" } },
        { type: "location", location: { latitude: 30.27, longitude: -97.74 } },
      ]),
      context,
    );
    expect(parsed.messages.map((message) => [message.text, message.media.map((media) => media.kind)])).toEqual([
      ["Rentals in Austin under 2k", []],
      ["Yes", []],
      ["Stop promotions", []],
      ["this one?", ["image"]],
      ["", ["voice"]],
      ["", ["document"]],
      ["📍 30.27, -97.74 (Zilker Park)", []],
      ["Contact: Bob +1 555", []],
      ["", ["unsupported"]],
      ["", ["unsupported"]],
    ]);
    expect(parsed.messages.map((message) => message.eventId)).toEqual(
      [0, 1, 2, 3, 4, 5, 6, 7, 9, 10].map((n) => `wamid.${n}`),
    );
    expect(parsed.messages[5]?.media[0]).toMatchObject({ platformId: "m3", fileName: "offer.pdf" });
    expect(parsed.messages.slice(-2).map((message) => message.media[0]?.label)).toEqual(["sticker", "location"]);
    // Pictures arrive one message each: marked as an album so that those sent together are asked together.
    expect(parsed.messages.map((message) => message.album)).toEqual([
      ...[undefined, undefined, undefined, "images"],
      ...[undefined, undefined, undefined, undefined, undefined, undefined],
    ]);
    expect(parsed.ignored).toEqual(["reaction message"]);
  });

  it("leaves out messages to another phone number of the same app", () => {
    const parsed = parseDelivery(delivery([{ type: "text", text: { body: "hi" } }], {}, "999"), context);
    expect(parsed.messages).toEqual([]);
    expect(parsed.ignored).toEqual(["messages for phone number id 999"]);
  });
});

describe("parseDelivery with deliveries that do not fit what it reads", () => {
  it("refuses the whole delivery and uses none of it when one of its fields has another type", () => {
    const good = { type: "text", text: { body: "hi" } };
    for (const broken of [
      delivery([good, { type: "text", text: { body: "x" }, from: {} }]),
      delivery([good, { type: "text", text: { body: "x" }, from: 5 }]),
      delivery([good, { type: "text", text: { body: 5 } }]),
      delivery([good], { contacts: { wa_id: "155500" } }),
      delivery([good], { statuses: [{ id: "wamid.s", status: 3 }] }),
      delivery([{ type: "location", location: { latitude: "30.2", longitude: -97.7 } }]),
      { object: "whatsapp_business_account", entry: { changes: [] } },
      { entry: [] },
      null,
      [],
    ]) {
      const parsed = parseDelivery(broken, context);
      expect(parsed.malformed?.reason, JSON.stringify(broken)).toBe("schema");
      expect(parsed.messages).toEqual([]);
      expect(parsed.statuses).toEqual([]);
    }
    const issue = parseDelivery(delivery([good, { type: "text", from: [] }]), context).malformed?.issues[0];
    expect(issue?.path).toEqual(["entry", 0, "changes", 0, "value", "messages", 1, "from"]);
  });

  it("calls another object an unknown type, and lets changes of other fields pass unread", () => {
    expect(parseDelivery({ object: "page", entry: [] }, context).malformed?.reason).toBe("unknown_type");
    const other = {
      object: "whatsapp_business_account",
      entry: [{ changes: [{ field: "user_id_update", value: 5 }] }],
    };
    expect(parseDelivery(other, context)).toEqual({ messages: [], statuses: [], ignored: [] });
  });
});
