import { describe, expect, it } from "vitest";
import { TelegramInbound } from "../../../adapters/telegram/delivery.js";
import type { InboundMessage, InboundSink } from "../../../src/bridge/inbound.js";
import type { MalformedPayload } from "../../../src/bridge/malformed-payloads.js";
import { payloadShape } from "../../../src/bridge/payload-shape.js";
import { FIXTURE_BOT, groupUpdate, replayFixture } from "./telegram-fixtures.js";

/** A sink that records what it is given and answers like the bridge (duplicates by event id). */
function recordingSink() {
  const accepted: InboundMessage[] = [];
  const cancelled: Parameters<InboundSink["cancel"]>[0][] = [];
  const seen = new Set<string>();
  const sink: InboundSink = {
    accept: async (message) => {
      if (seen.has(message.eventId)) return "duplicate";
      seen.add(message.eventId);
      accepted.push(message);
      return "accepted";
    },
    cancel: (request) => {
      cancelled.push(request);
    },
  };
  return { sink, accepted, cancelled };
}

describe("TelegramInbound", () => {
  it("accepts messages once, by update_id", async () => {
    const { sink, accepted } = recordingSink();
    const inbound = new TelegramInbound({ sink, bot: FIXTURE_BOT, botId: "default" });
    const { followUp } = replayFixture();
    expect(await inbound.deliver(followUp)).toBe("accepted");
    expect(await inbound.deliver(followUp)).toBe("duplicate");
    expect(accepted.map((message) => message.text)).toEqual(["how are you"]);
  });

  it("passes a stop button press on as a cancel, and drops what is not for the bridge", async () => {
    const { sink, accepted, cancelled } = recordingSink();
    const inbound = new TelegramInbound({ sink, bot: FIXTURE_BOT, botId: "sales" });
    const stop = { update_id: 9, stopped_message_generation: { chat: { id: 5, type: "private" }, draft_id: 3 } };
    expect(await inbound.deliver(stop)).toBe("cancelled");
    expect(cancelled).toEqual([
      {
        channel: "telegram",
        botId: "sales",
        target: { chatId: "5", isGroup: false, threadId: undefined },
        user: { id: "5" },
      },
    ]);
    expect(await inbound.deliver(groupUpdate({ text: "not for the bot" }))).toBe("ignored");
    expect(await inbound.deliver({ update_id: 10, edited_message: { message_id: 1 } })).toBe("ignored");
    expect(accepted).toEqual([]);
  });

  it("refuses updates that do not fit what it reads, reports each once by its shape, and hands nothing on", async () => {
    const { sink, accepted, cancelled } = recordingSink();
    const reports: MalformedPayload[] = [];
    const inbound = new TelegramInbound({
      sink,
      bot: FIXTURE_BOT,
      botId: "default",
      onMalformed: (r) => reports.push(r),
    });
    const { followUp } = replayFixture();
    const withMessage = (change: Record<string, unknown>) => ({
      ...followUp,
      message: { ...followUp.message, ...change },
    });
    const malformed: unknown[] = [
      null,
      "update",
      [followUp],
      { hello: "world" },
      { update_id: "1", message: followUp.message },
      withMessage({ chat: { id: "abc", type: "private" } }),
      withMessage({ chat: { id: 1.5, type: "private" } }),
      withMessage({ chat: { id: null, type: "private" } }),
      withMessage({ chat: "7527593" }),
      withMessage({ chat: undefined }),
      withMessage({ text: 42 }),
      withMessage({ text: "@vercelchatsdkbot hi", entities: { type: "mention" } }),
      withMessage({ entities: [{ type: "mention", offset: "0", length: 17 }] }),
      withMessage({ from: { id: "7527593", is_bot: false } }),
      withMessage({ photo: [{ file_id: 5 }] }),
      { update_id: 20, stopped_message_generation: { chat: { id: "5" } } },
      { update_id: 21, stopped_message_generation: null },
    ];
    for (const update of malformed) expect(await inbound.deliver(update), JSON.stringify(update)).toBe("malformed");
    // Only an update id, or only kinds Telegram does not document: an unknown type, refused the same way.
    expect(await inbound.deliver({ update_id: 22 })).toBe("malformed");
    expect(await inbound.deliver({ update_id: 23, x_unknown: { text: "hi" } })).toBe("malformed");
    expect(accepted).toEqual([]);
    expect(cancelled).toEqual([]);
    expect(reports.map((report) => report.reason)).toEqual([
      ...malformed.map(() => "schema"),
      "unknown_type",
      "unknown_type",
    ]);
    const chatAbc = reports[5];
    expect(chatAbc?.issues?.map((issue) => issue.path.join("."))).toEqual(["message.chat.id"]);
    expect(payloadShape(chatAbc?.body)).toMatchObject({ message: { chat: { id: "string" }, text: "string" } });
  });

  it("accepts what real updates carry: chat ids beyond 2^31, unknown fields, kinds it does not read", async () => {
    const { sink, accepted } = recordingSink();
    const inbound = new TelegramInbound({ sink, bot: FIXTURE_BOT, botId: "default", onMalformed: () => {} });
    const { followUp } = replayFixture();
    const update = {
      ...followUp,
      update_id: 77,
      message: {
        ...followUp.message,
        chat: { ...followUp.message?.chat, id: 5_123_456_789_012 },
        link_preview_options: { is_disabled: true },
        a_field_of_a_future_bot_api: [1, 2, 3],
      },
    };
    expect(await inbound.deliver(update)).toBe("accepted");
    expect(accepted[0]?.target.chatId).toBe("5123456789012");
  });

  it("asks for the bot's identity once, and again after a failure", async () => {
    const { sink, accepted } = recordingSink();
    let calls = 0;
    const inbound = new TelegramInbound({
      sink,
      botId: "default",
      bot: async () => {
        calls += 1;
        if (calls === 1) throw new Error("network down");
        return FIXTURE_BOT;
      },
    });
    const { mention, followUp } = replayFixture();
    await expect(inbound.deliver(mention)).rejects.toThrow("network down");
    expect(await inbound.deliver(mention)).toBe("accepted");
    expect(await inbound.deliver(followUp)).toBe("accepted");
    expect(calls).toBe(2);
    expect(accepted.map((message) => message.text)).toEqual(["hi", "how are you"]);
  });

  it("takes a tap on a listing card's button as its question, and answers every tap", async () => {
    const { sink, accepted } = recordingSink();
    const answered: string[] = [];
    const inbound = new TelegramInbound({
      sink,
      bot: FIXTURE_BOT,
      botId: "default",
      answerTap: async (id) => answered.push(id),
    });
    const card = { message_id: 44, chat: { id: -1001, type: "supergroup" }, date: 1 };
    const tap = (update_id: number, id: string, data: string) => ({
      update_id,
      callback_query: {
        id,
        from: { id: 7, is_bot: false, first_name: "Ana" },
        chat_instance: "x",
        message: card,
        data,
      },
    });
    expect(await inbound.deliver(tap(70, "q1", "card:similar:TX-1001"))).toBe("accepted");
    expect(await inbound.deliver(tap(70, "q1", "card:similar:TX-1001"))).toBe("duplicate");
    // Data the bridge did not write (an old keyboard) is answered and ignored.
    expect(await inbound.deliver(tap(71, "q2", "something-else"))).toBe("ignored");
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(answered).toEqual(["q1", "q1", "q2"]);
    expect(accepted).toEqual([
      expect.objectContaining({
        eventId: "70",
        text: "Show me homes similar to MLS TX-1001",
        button: "card:similar:TX-1001",
        // In a group the answer replies to the card.
        target: { chatId: "-1001", isGroup: true, threadId: undefined, replyToMessageId: "44" },
        user: expect.objectContaining({ id: "7", name: "Ana" }),
      }),
    ]);
  });
});
