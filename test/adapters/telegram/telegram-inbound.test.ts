import { describe, expect, it } from "vitest";
import { TelegramInbound } from "../../../adapters/telegram/telegram-inbound.js";
import type { InboundMessage, InboundSink } from "../../../src/bridge/inbound.js";
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
    expect(await inbound.deliver({ hello: "world" })).toBe("ignored");
    expect(await inbound.deliver(null)).toBe("ignored");
    expect(await inbound.deliver({ update_id: "1" })).toBe("ignored");
    expect(accepted).toEqual([]);
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
});
