import type { Update } from "grammy/types";
import { describe, expect, it } from "vitest";
import { type ParsedUpdate, parseUpdate } from "../../../adapters/telegram/inbound.js";
import type { InboundMessage } from "../../../src/bridge/inbound.js";
import {
  ADA,
  FIXTURE_BOT,
  GROUP,
  groupUpdate,
  photoFixture,
  privateUpdate,
  replayFixture,
} from "./telegram-fixtures.js";

const receivedAt = new Date("2026-01-01T00:00:00Z");
const context = { bot: FIXTURE_BOT, botId: "default", now: () => receivedAt };
const parse = (update: Update) => parseUpdate(update, context);

function messageOf(parsed: ParsedUpdate): InboundMessage {
  if (parsed.kind !== "message") throw new Error(`expected a message, got ${JSON.stringify(parsed)}`);
  return parsed.message;
}

const mention = (offset: number, length: number) => ({ type: "mention" as const, offset, length });
const command = (length: number) => ({ type: "bot_command" as const, offset: 0, length });

describe("parseUpdate: recorded updates", () => {
  it("reads the mention fixture: update_id as event id, chat and user, the @mention removed", () => {
    const fixture = replayFixture();
    expect(FIXTURE_BOT).toEqual({ id: Number(fixture.botUserId), username: fixture.botName });
    expect(messageOf(parse(fixture.mention))).toEqual({
      channel: "telegram",
      botId: "default",
      eventId: "1001",
      target: { chatId: "7527593", isGroup: false, threadId: undefined, replyToMessageId: undefined },
      user: {
        id: "7527593",
        name: "Test User",
        handle: "@telegram_test_user",
        link: "https://t.me/telegram_test_user",
      },
      text: "hi",
      media: [],
      receivedAt,
    });
  });

  it("reads the follow-up fixture: private messages need no mention", () => {
    const message = messageOf(parse(replayFixture().followUp));
    expect(message).toMatchObject({ eventId: "1002", text: "how are you", target: { chatId: "7527593" } });
  });

  it("reads the photo fixture: the largest size, no caption", () => {
    const message = messageOf(parse(photoFixture()));
    expect(message.eventId).toBe("312744884");
    expect(message.text).toBe("");
    expect(message.user).toEqual({
      id: "100000001",
      name: "Test User",
      handle: "@testuser",
      link: "https://t.me/testuser",
    });
    expect(message.media).toEqual([
      {
        kind: "image",
        platformId: "AgACAgUAAxkBAAMRaH8qXw-VQSGAG4X4VoCg9A5nE50AAvLGMRtBGPlXGt4-FX4l2_oBAAMCAAN5AAM2BA",
        mimeType: "image/jpeg",
        sizeBytes: 173215,
      },
    ]);
  });
});

describe("parseUpdate: groups answer only when addressed", () => {
  it("answers an @mention, removing it, and replies to the user's message", () => {
    const update = groupUpdate({ text: "@VercelChatSdkBot, flats in Lisbon?", entities: [mention(0, 17)] });
    const message = messageOf(parse(update));
    expect(message.text).toBe("flats in Lisbon?");
    expect(message.target).toEqual({
      chatId: String(GROUP.id),
      isGroup: true,
      threadId: undefined,
      replyToMessageId: String(update.message?.message_id),
    });
    // The @username makes the handle and a t.me link, for the people a handoff mail goes to.
    expect(message.user).toEqual({
      id: String(ADA.id),
      name: "Ada Lovelace",
      handle: "@ada",
      link: "https://t.me/ada",
    });
  });

  it("removes a mention in the middle of the text", () => {
    const update = groupUpdate({ text: "hey @vercelchatsdkbot what now", entities: [mention(4, 17)] });
    expect(messageOf(parse(update)).text).toBe("hey what now");
  });

  it("ignores chatter, and mentions of other users", () => {
    expect(parse(groupUpdate({ text: "lunch?" }))).toMatchObject({ kind: "ignored" });
    expect(parse(groupUpdate({ text: "@someone hi", entities: [mention(0, 8)] }))).toMatchObject({ kind: "ignored" });
  });

  it("answers a reply to one of the bot's messages", () => {
    const reply_to_message = {
      message_id: 3,
      date: 1,
      chat: GROUP,
      from: { ...FIXTURE_BOT, is_bot: true, first_name: "Bot" },
    };
    expect(messageOf(parse(groupUpdate({ text: "and in Porto?", reply_to_message }))).text).toBe("and in Porto?");
    const toAda = { ...reply_to_message, from: ADA };
    expect(parse(groupUpdate({ text: "agreed", reply_to_message: toAda }))).toMatchObject({ kind: "ignored" });
  });

  it("does not take a topic message's implicit reply to the topic's creation as a reply to the bot", () => {
    const created = {
      message_id: 9,
      date: 1,
      chat: GROUP,
      from: { ...FIXTURE_BOT, is_bot: true, first_name: "Bot" },
      forum_topic_created: { name: "Rentals", icon_color: 1 },
    };
    const update = groupUpdate({
      text: "hello all",
      is_topic_message: true,
      message_thread_id: 9,
      reply_to_message: created,
    });
    expect(parse(update)).toMatchObject({ kind: "ignored" });
  });

  it("answers commands, bare or addressed to this bot, but not those for another bot", () => {
    expect(messageOf(parse(groupUpdate({ text: "/reset", entities: [command(6)] }))).text).toBe("/reset");
    const ours = groupUpdate({ text: "/start@vercelchatsdkbot now", entities: [command(23)] });
    expect(messageOf(parse(ours)).text).toBe("/start now");
    const other = groupUpdate({ text: "/start@otherbot", entities: [command(15)] });
    expect(parse(other)).toMatchObject({ kind: "ignored" });
  });

  it("keeps the topic of a forum message as the thread", () => {
    const update = groupUpdate({
      text: "@vercelchatsdkbot hi",
      entities: [mention(0, 17)],
      is_topic_message: true,
      message_thread_id: 77,
    });
    expect(messageOf(parse(update)).target.threadId).toBe("77");
    const general = groupUpdate({ text: "@vercelchatsdkbot hi", entities: [mention(0, 17)], message_thread_id: 5 });
    expect(messageOf(parse(general)).target.threadId).toBeUndefined();
  });

  it("finds mentions in captions, with offsets in UTF-16 units", () => {
    const update = groupUpdate({
      caption: "😀 @vercelchatsdkbot what is this?",
      caption_entities: [mention(3, 17)],
      document: {
        file_id: "DOC",
        file_unique_id: "u",
        file_name: "plan.pdf",
        mime_type: "application/pdf",
        file_size: 9,
      },
    });
    const message = messageOf(parse(update));
    expect(message.text).toBe("😀 what is this?");
    expect(message.media).toEqual([
      { kind: "document", platformId: "DOC", mimeType: "application/pdf", sizeBytes: 9, fileName: "plan.pdf" },
    ]);
  });
});

describe("parseUpdate: media", () => {
  it("collects voice, audio, video and video notes with their file ids", () => {
    const voice = privateUpdate({
      voice: { file_id: "V", file_unique_id: "v", duration: 2, mime_type: "audio/ogg", file_size: 8003 },
    });
    expect(messageOf(parse(voice)).media).toEqual([
      {
        kind: "voice",
        platformId: "V",
        mimeType: "audio/ogg",
        sizeBytes: 8003,
        durationSeconds: 2,
        fileName: undefined,
      },
    ]);
    const audio = privateUpdate({
      audio: { file_id: "A", file_unique_id: "a", duration: 9, mime_type: "audio/mpeg", file_name: "x.mp3" },
      caption: "transcribe",
    });
    expect(messageOf(parse(audio))).toMatchObject({ text: "transcribe", media: [{ kind: "audio", platformId: "A" }] });
    const video = privateUpdate({ video: { file_id: "M", file_unique_id: "m", width: 1, height: 1, duration: 1 } });
    expect(messageOf(parse(video)).media).toMatchObject([{ kind: "video", platformId: "M" }]);
    const note = privateUpdate({ video_note: { file_id: "N", file_unique_id: "n", length: 1, duration: 1 } });
    expect(messageOf(parse(note)).media).toMatchObject([{ kind: "video", platformId: "N", mimeType: "video/mp4" }]);
  });
});

describe("parseUpdate: what cannot be forwarded, places and contacts, albums", () => {
  it("turns stickers, bare map pins, polls and dice into an unsupported item, to be answered", () => {
    const sticker = privateUpdate({
      sticker: {
        file_id: "S",
        file_unique_id: "s",
        type: "regular",
        width: 1,
        height: 1,
        is_animated: false,
        is_video: false,
      },
    });
    const pin = privateUpdate({ location: { latitude: 30.27, longitude: -97.74 } });
    const dice = privateUpdate({ dice: { emoji: "🎲", value: 3 } });
    const labels = [sticker, pin, dice].map((update) => messageOf(parse(update)).media);
    expect(labels).toMatchObject([
      [{ kind: "unsupported", label: "sticker" }],
      [{ kind: "unsupported", label: "location" }],
      [{ kind: "unsupported", label: "dice" }],
    ]);
  });

  it("passes a named place and a shared contact on as text", () => {
    const venue = privateUpdate({
      location: { latitude: 30.27, longitude: -97.74 },
      venue: {
        location: { latitude: 30.27, longitude: -97.74 },
        title: "Zilker Park",
        address: "2100 Barton Springs Rd",
      },
    });
    expect(messageOf(parse(venue))).toMatchObject({ text: "📍 Zilker Park, 2100 Barton Springs Rd", media: [] });
    const contact = privateUpdate({ contact: { phone_number: "+1 555 0100", first_name: "Bob", last_name: "Lee" } });
    expect(messageOf(parse(contact))).toMatchObject({ text: "Contact: Bob Lee +1 555 0100", media: [] });
  });

  it("marks the photos of an album with its media_group_id", () => {
    const photo = (n: number) =>
      privateUpdate({
        media_group_id: "album-7",
        photo: [{ file_id: `P${n}`, file_unique_id: `p${n}`, width: 9, height: 9, file_size: 100 }],
      });
    expect([photo(1), photo(2)].map((update) => messageOf(parse(update)).album)).toEqual(["album-7", "album-7"]);
    expect(messageOf(parse(privateUpdate({ text: "hi" }))).album).toBeUndefined();
  });
});

describe("parseUpdate: ignored and cancelled", () => {
  it("ignores edits, channel posts, bots and service messages", () => {
    const edited = { update_id: 1, edited_message: { message_id: 1, date: 1, edit_date: 2, chat: GROUP, text: "x" } };
    expect(parse(edited as unknown as Update)).toEqual({ kind: "ignored", reason: "edited_message update" });
    const post = {
      update_id: 2,
      channel_post: { message_id: 1, date: 1, chat: { id: -100, type: "channel", title: "c" }, text: "x" },
    };
    expect(parse(post as unknown as Update)).toMatchObject({ kind: "ignored" });
    const bot = privateUpdate({ text: "hi", from: { id: 9, is_bot: true, first_name: "Other" } });
    expect(parse(bot)).toMatchObject({ kind: "ignored", reason: "not from a person" });
    const joined = groupUpdate({ new_chat_members: [ADA] });
    expect(parse(joined)).toMatchObject({ kind: "ignored", reason: "service or unsupported message" });
    const forwarded = groupUpdate({ text: "news", is_automatic_forward: true });
    expect(parse(forwarded)).toMatchObject({ kind: "ignored" });
  });

  it("turns stopped_message_generation into a cancel for that private chat", () => {
    const update = {
      update_id: 7,
      stopped_message_generation: { chat: { id: 4242, type: "private", first_name: "Ada" }, draft_id: 12 },
    } as Update;
    expect(parse(update)).toEqual({
      kind: "cancel",
      request: {
        channel: "telegram",
        botId: "default",
        target: { chatId: "4242", isGroup: false, threadId: undefined },
        user: { id: "4242" },
      },
    });
  });
});
