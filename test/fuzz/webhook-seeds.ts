import { readFileSync } from "node:fs";
import { VisitorIdentity } from "../../adapters/web/visitor-identity.js";
import { photoFixture, replayFixture } from "../adapters/telegram/telegram-fixtures.js";
import type { Json } from "./mutate.js";

/**
 * The valid payloads the webhook fuzzing mutates: the recorded fixtures of test/fixtures/vercel-chat, and beside them
 * payloads of the same shape for the other kinds each adapter reads (media, buttons, places, contacts, stop
 * requests, assistant threads, button taps) and for kinds it acknowledges unread. Each made-up payload comes from a
 * person of its own, so that the answers to the mutants that fit spread over many conversations, as real traffic
 * does, instead of queueing behind one user's pacing.
 */

const FIXTURES = new URL("../fixtures/vercel-chat/", import.meta.url);
const fixture = (name: string) => JSON.parse(readFileSync(new URL(name, FIXTURES), "utf8"));
const json = (value: unknown) => JSON.parse(JSON.stringify(value)) as Json;

/** The bot the Telegram seeds address, as getMe reports it. */
export { FIXTURE_BOT as TELEGRAM_BOT } from "../adapters/telegram/telegram-fixtures.js";

export function telegramSeeds(): Json[] {
  const { mention, followUp } = replayFixture();
  const message = followUp.message as unknown as Record<string, unknown>;
  const group = { id: -1001234567890, type: "supergroup", title: "Homes", is_forum: true };
  const file = { file_id: "BQACAgQAAxkBAAIBZ2", file_unique_id: "AgADZw", file_size: 20_480 };
  const variants: Record<string, unknown>[] = [
    { chat: group, text: "@vercelchatsdkbot homes in Austin", entities: [{ type: "mention", offset: 0, length: 17 }] },
    { chat: group, text: "/start@vercelchatsdkbot", entities: [{ type: "bot_command", offset: 0, length: 23 }] },
    {
      chat: group,
      is_topic_message: true,
      message_thread_id: 42,
      text: "and rentals?",
      reply_to_message: {
        message_id: 9,
        date: 1,
        chat: group,
        from: { id: 8765336106, is_bot: true, first_name: "Bot" },
      },
    },
    { text: undefined, voice: { ...file, duration: 4, mime_type: "audio/ogg" } },
    { text: undefined, document: { ...file, file_name: "offer.pdf", mime_type: "application/pdf" }, caption: "this?" },
    { text: undefined, video: { ...file, duration: 12, width: 640, height: 360 }, media_group_id: "13579" },
    {
      text: undefined,
      venue: { location: { latitude: 30.2, longitude: -97.7 }, title: "Zilker Park", address: "Austin" },
    },
    { text: undefined, contact: { phone_number: "+15550002222", first_name: "Bob" } },
    { text: undefined, sticker: { ...file, width: 512, height: 512, is_animated: false, type: "regular" } },
  ];
  return [
    json(mention),
    json(followUp),
    json(photoFixture()),
    ...variants.map((fields, n) => {
      const person = { id: 81_000 + n, is_bot: false, first_name: "Ana" };
      const chat = fields.chat ?? { id: person.id, type: "private", first_name: "Ana" };
      return json({ update_id: 5000 + n, message: { ...message, message_id: 500 + n, from: person, ...fields, chat } });
    }),
    json({ update_id: 6000, stopped_message_generation: { chat: message.chat, draft_id: 3 } }),
    json({ update_id: 6001, edited_message: { ...message, edit_date: 1767224999 } }),
  ];
}

/** The phone number id of the WhatsApp seeds (the recorded deliveries'). */
export const WHATSAPP_PHONE_NUMBER_ID: string = fixture("dm-whatsapp.json").phoneNumberId;

export function whatsappSeeds(): Json[] {
  const { firstMessage, secondMessage, statusUpdate } = fixture("dm-whatsapp.json");
  let person = 0;
  const withMessage = (message: object) => {
    const delivery = structuredClone(firstMessage);
    const value = delivery.entry[0].changes[0].value;
    const from = `1555000${String(++person).padStart(4, "0")}`;
    value.contacts = [{ profile: { name: "Ana" }, wa_id: from }];
    value.messages = [{ from, id: `wamid.SEED_${person}`, timestamp: value.messages[0].timestamp, ...message }];
    return delivery;
  };
  return [
    firstMessage,
    secondMessage,
    statusUpdate,
    withMessage({
      type: "image",
      image: { id: "1000001", mime_type: "image/jpeg", sha256: "abc", caption: "this one?" },
    }),
    withMessage({ type: "audio", audio: { id: "1000002", mime_type: "audio/ogg; codecs=opus", voice: true } }),
    withMessage({ type: "document", document: { id: "1000003", mime_type: "application/pdf", filename: "offer.pdf" } }),
    withMessage({
      type: "interactive",
      interactive: { type: "button_reply", button_reply: { id: "ask:Rentals", title: "Rentals" } },
    }),
    withMessage({
      type: "interactive",
      interactive: { type: "list_reply", list_reply: { id: "row-1", title: "Austin" } },
    }),
    withMessage({ type: "button", button: { text: "Stop promotions", payload: "STOP" } }),
    withMessage({ type: "location", location: { latitude: 30.27, longitude: -97.74, name: "Zilker Park" } }),
    withMessage({ type: "contacts", contacts: [{ name: { formatted_name: "Bob" }, phones: [{ phone: "+1 555" }] }] }),
    withMessage({ type: "reaction", reaction: { message_id: "wamid.x", emoji: "👍" } }),
    withMessage({ type: "sticker", sticker: { id: "1000004", mime_type: "image/webp" } }),
  ].map(json);
}

/** The bot user of the Slack seeds (the recorded events'). */
export const SLACK_BOT_USER: string = fixture("dm-slack.json").botUserId;

export function slackEventSeeds(): Json[] {
  const dm = fixture("dm-slack.json");
  const channel = fixture("slack.json");
  const mention = fixture("channel-mention-slack.json");
  let person = 0;
  const envelope = (event: Record<string, unknown>) => {
    person += 1;
    return {
      ...dm.dmMessage,
      event_id: "EvSEED",
      event: { ...event, channel: `D0SEED${person}`, user: `U0SEED${person}` },
    };
  };
  return [
    dm.mention,
    dm.dmRequest,
    dm.dmMessage,
    channel.mention,
    channel.followUp,
    mention.mention,
    envelope({
      ...dm.dmMessage.event,
      subtype: "file_share",
      files: [
        {
          id: "F1",
          name: "house.jpg",
          mimetype: "image/jpeg",
          size: 1234,
          url_private_download: "https://files.example/F1",
        },
      ],
    }),
    envelope({
      type: "assistant_thread_started",
      event_ts: "1767377100.000100",
      assistant_thread: { user_id: "U00FAKEUSER1", channel_id: "D0A5319PS02", thread_ts: "1767377100.000100" },
    }),
    envelope({ ...dm.dmMessage.event, subtype: "message_changed", message: { text: "edited" } }),
    envelope({
      type: "reaction_added",
      user: "U00FAKEUSER1",
      reaction: "thumbsup",
      item: { type: "message", channel: "C1", ts: "1.2" },
    }),
    { token: "t", challenge: "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P", type: "url_verification" },
    { token: "t", type: "app_rate_limited", team_id: "T00FAKE00AA", minute_rate_limited: 1518467820, api_app_id: "A1" },
  ].map(json);
}

export function slackActionSeeds(): Json[] {
  const tap = {
    type: "block_actions",
    user: { id: "U00FAKEUSER1", team_id: "T00FAKE00AA" },
    team: { id: "T00FAKE00AA" },
    api_app_id: "A00FAKEAPP01",
    channel: { id: "D0A5319PS02" },
    message: { ts: "1767377001.319859" },
    response_url: "https://hooks.example/actions/T1/1/abc",
    trigger_id: "123.456.abc",
    actions: [
      {
        action_id: "chatbridge_quick_reply_1",
        block_id: "b1",
        type: "button",
        value: "Rentals",
        action_ts: "1767377002.1",
      },
    ],
  };
  const inThread = {
    ...tap,
    channel: { id: "C00FAKECHAN1" },
    message: { ts: "1767377010.000200", thread_ts: "1767377001.319859" },
    actions: [
      { action_id: "chatbridge_quick_reply_2", type: "button", value: "Homes for sale", action_ts: "1767377011.1" },
    ],
  };
  return [tap, inThread, { ...tap, type: "view_closed", view: { id: "V1" } }].map(json);
}

/** The fuzzed bridge's WEB_CHAT_SECRET: the seeds' visitor tokens are signed with it, and mutated ones checked. */
export const FUZZ_WEB_CHAT_SECRET = "fuzz-web-chat-secret-0123456789abcdef";

/** Posts of the web chat, from visitors whose tokens are signed with the fuzzed bridge's WEB_CHAT_SECRET. */
export function webChatSeeds(): Json[] {
  const identity = new VisitorIdentity(Buffer.from(FUZZ_WEB_CHAT_SECRET, "utf8"));
  return [
    { visitorId: identity.tokenOf("visitor-fuzz-0001"), messageId: "m1", text: "homes for sale in Austin" },
    { visitorId: identity.tokenOf("visitor-fuzz-0002"), messageId: "m1", text: "/start" },
  ];
}
