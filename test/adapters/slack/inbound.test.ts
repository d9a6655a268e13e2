import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parseQuickReply, parseSlackEvent, type SlackMessageEvent } from "../../../adapters/slack/inbound.js";

const FIXTURES = new URL("../../fixtures/vercel-chat/", import.meta.url);
const fixture = (name: string) => JSON.parse(readFileSync(new URL(name, FIXTURES), "utf8"));
const dm = fixture("dm-slack.json");
const channelMention = fixture("channel-mention-slack.json");

const context = { bot: { userId: "U00FAKEBOT01", botId: "B00FAKEBOT" }, botId: "default", now: () => new Date(0) };
const parse = (event: object) => parseSlackEvent(event as SlackMessageEvent, context);

describe("parseSlackEvent", () => {
  it("reads a direct message: the DM is the conversation, the answer goes in the DM", () => {
    expect(parse(dm.dmMessage.event)).toEqual({
      kind: "message",
      message: {
        channel: "slack",
        botId: "default",
        eventId: "D0A5319PS02:1767377001.319859",
        target: {
          chatId: "D0A5319PS02",
          isGroup: false,
          threadId: undefined,
          recipient: { userId: "U00FAKEUSER1", teamId: undefined },
        },
        user: { id: "U00FAKEUSER1", handle: "<@U00FAKEUSER1>", link: undefined },
        text: "Hey!",
        media: [],
        receivedAt: new Date(0),
      },
    });
  });

  it("reads a channel mention: the mention removed, the answer in the message's thread", () => {
    const parsed = parse(channelMention.mention.event);
    expect(parsed).toMatchObject({
      kind: "message",
      message: {
        eventId: "C00FAKECHAN1:1773327463.619929",
        target: {
          chatId: "C00FAKECHAN1",
          isGroup: true,
          threadId: "1773327463.619929",
          replyToMessageId: "1773327463.619929",
        },
        text: "Can you see the name of this channel: <#C00FAKECHAN2>?",
      },
    });
  });

  it("links to the conversation in Slack when the workspace is known, for a handoff mail", () => {
    const parsed = parseSlackEvent({ ...(dm.dmMessage.event as SlackMessageEvent), team: "T0HOMES01" }, context);
    expect(parsed).toMatchObject({
      message: {
        user: {
          id: "U00FAKEUSER1",
          handle: "<@U00FAKEUSER1>",
          link: "https://app.slack.com/client/T0HOMES01/D0A5319PS02",
        },
      },
    });
  });

  it("gives the message event and its app_mention twin the same event id, so only one is answered", () => {
    const message = parse(dm.mention.event);
    const twin = parse({ ...dm.mention.event, type: "message", channel_type: "channel" });
    expect(message.kind === "message" && twin.kind === "message").toBe(true);
    if (message.kind === "message" && twin.kind === "message")
      expect(twin.message.eventId).toBe(message.message.eventId);
  });

  it("answers in the thread a mention was written in", () => {
    const parsed = parse({ ...dm.mention.event, thread_ts: "1767376900.000001" });
    expect(parsed.kind === "message" && parsed.message.target.threadId).toBe("1767376900.000001");
  });

  it("answers a follow-up without a mention only in a thread the bot takes part in", () => {
    const followUp = { ...dm.dmRequest.event, text: "and rentals?" };
    expect(parse(followUp)).toMatchObject({ kind: "ignored" });
    const joined = parseSlackEvent(followUp as SlackMessageEvent, { ...context, joinedThread: true });
    expect(joined).toMatchObject({
      kind: "message",
      message: {
        text: "and rentals?",
        target: { chatId: "C00FAKECHAN1", isGroup: true, threadId: "1767376988.871629" },
      },
    });
  });

  it("decodes Slack's escapes so the chatbot reads what was typed", () => {
    const parsed = parse({ ...dm.dmMessage.event, text: "price &lt; 500k &amp; 3 rooms &gt; 2 baths" });
    expect(parsed.kind === "message" && parsed.message.text).toBe("price < 500k & 3 rooms > 2 baths");
  });

  it("ignores the bot itself, other bots, bookkeeping subtypes, chatter and bare mentions", () => {
    const base = dm.dmMessage.event;
    expect(parse({ ...base, user: "U00FAKEBOT01" })).toMatchObject({
      kind: "ignored",
      reason: "the bot's own message",
    });
    expect(parse({ ...base, bot_id: "B0OTHER" })).toMatchObject({ kind: "ignored", reason: "not from a person" });
    for (const subtype of [
      "message_changed",
      "message_deleted",
      "channel_join",
      "assistant_app_thread",
      "bot_message",
    ]) {
      expect(parse({ ...base, subtype })).toMatchObject({ kind: "ignored", reason: `${subtype} message` });
    }
    expect(parse({ ...base, channel: "C1", channel_type: "channel", text: "lunch?" })).toMatchObject({
      kind: "ignored",
      reason: "channel message not addressed to the bot",
    });
    expect(parse({ ...dm.mention.event, text: "<@U00FAKEBOT01>" })).toMatchObject({ kind: "ignored" });
    expect(parse({ type: "reaction_added", ts: "1", channel: "C1" })).toMatchObject({ kind: "ignored" });
  });

  it("keeps shared files as media for the media pipeline", () => {
    const parsed = parse({
      ...dm.dmMessage.event,
      subtype: "file_share",
      text: "",
      files: [
        {
          id: "F1",
          name: "house.jpg",
          mimetype: "image/jpeg",
          size: 1234,
          url_private_download: "https://files.slack.com/files-pri/T1-F1/download/house.jpg",
        },
      ],
    });
    expect(parsed).toMatchObject({
      kind: "message",
      message: {
        text: "",
        media: [
          {
            kind: "image",
            platformId: "https://files.slack.com/files-pri/T1-F1/download/house.jpg",
            mimeType: "image/jpeg",
            sizeBytes: 1234,
            fileName: "house.jpg",
          },
        ],
      },
    });
  });

  it("reads a quick-reply tap as the person's question in the conversation of the buttons", () => {
    const tap = {
      user: { id: "U1", team_id: "T1" },
      channel: { id: "C1" },
      message: { ts: "100.1", thread_ts: "99.9" },
      actions: [{ action_id: "chatbridge_quick_reply_1", value: "Rentals", action_ts: "101.5" }],
    };
    expect(parseQuickReply(tap, context)).toMatchObject({
      kind: "message",
      message: {
        eventId: "C1:100.1:101.5",
        text: "Rentals",
        user: { id: "U1" },
        target: { chatId: "C1", isGroup: true, threadId: "99.9", recipient: { userId: "U1", teamId: "T1" } },
      },
    });
    expect(
      parseQuickReply({ ...tap, actions: [{ action_id: "other_app_button", value: "x", action_ts: "1" }] }, context),
    ).toMatchObject({ kind: "ignored" });
  });
});
