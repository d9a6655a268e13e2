import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import {
  type Channel,
  type ChannelCapabilities,
  ChannelError,
  type ChannelLimits,
  type OutgoingText,
  type SentMessage,
} from "../../../src/bridge/channel.js";
import type { ReplyTarget } from "../../../src/bridge/inbound.js";
import { Pacer } from "../../../src/bridge/reply/pacer.js";
import { streamReply } from "../../../src/bridge/reply/reply-streamer.js";
import { answer, drive } from "./fake-channel.js";

beforeEach(() => {
  vi.useFakeTimers({ now: 5_000_000 });
});
afterEach(() => {
  vi.useRealTimers();
});

const FAST = { perSecond: 100, burst: 100 };
const LIMITS: ChannelLimits = {
  perChat: FAST,
  perGroup: FAST,
  perBot: FAST,
  minUpdateIntervalMs: { private: 100, group: 100 },
};

interface StreamedMessage {
  id: string;
  text: string;
  stopped: boolean;
  via: string[];
}

/** A channel with Slack-like append-only streams: records each call and the text each message ends with. */
class StreamingChannel implements Channel {
  readonly name = "streaming";
  readonly botId = "bot";
  readonly limits = LIMITS;
  readonly messages: StreamedMessage[] = [];
  refuseStart = false;
  readonly stream = {
    start: async (_target: ReplyTarget, text: OutgoingText): Promise<SentMessage> => {
      if (this.refuseStart) throw new ChannelError("rejected", "streaming not allowed here");
      const message = { id: String(this.messages.length + 1), text: text.text, stopped: false, via: ["start"] };
      this.messages.push(message);
      return { id: message.id };
    },
    append: async (_target: ReplyTarget, sent: SentMessage, text: OutgoingText) => {
      const message = this.#find(sent);
      if (message.stopped) throw new ChannelError("rejected", "not streaming");
      message.text += text.text;
      message.via.push(`append:${text.text}`);
    },
    stop: async (_target: ReplyTarget, sent: SentMessage, text: OutgoingText) => {
      const message = this.#find(sent);
      message.text += text.text;
      message.stopped = true;
      message.via.push(`stop:${text.text}`);
    },
  };

  capabilities(): ChannelCapabilities {
    return { canEdit: true, nativeDraft: false, nativeStream: true, maxTextLength: 4000, quickReplies: false };
  }
  async send(_target: ReplyTarget, text: OutgoingText): Promise<SentMessage> {
    this.messages.push({ id: String(this.messages.length + 1), text: text.text, stopped: true, via: ["send"] });
    return { id: String(this.messages.length) };
  }
  async edit(_target: ReplyTarget, sent: SentMessage, text: OutgoingText): Promise<void> {
    const message = this.#find(sent);
    message.text = text.text;
    message.via.push("edit");
  }
  async draft(): Promise<void> {
    throw new ChannelError("rejected", "no drafts");
  }
  async typing(): Promise<void> {}

  #find(sent: SentMessage): StreamedMessage {
    const message = this.messages.find((m) => m.id === sent.id);
    if (!message) throw new ChannelError("rejected", "message not found");
    return message;
  }
}

const target: ReplyTarget = { chatId: "C1", isGroup: true, threadId: "1.1" };

function run(channel: StreamingChannel, fragments: string[], delayMs = 150) {
  return drive(streamReply({ channel, target, pacer: new Pacer(channel), events: answer(fragments, { delayMs }) }));
}

describe("streamReply with native append-only streams", () => {
  it("appends only new text, never markup it would have to take back, and ends with the rest", async () => {
    const channel = new StreamingChannel();
    const fragments = ["Homes in **Aus", "tin**: see ", "```\ncode", " block\n```\n", "Done."];
    await run(channel, fragments);
    const [message] = channel.messages;
    expect(message?.text).toBe(fragments.join(""));
    expect(message?.stopped).toBe(true);
    expect(message?.via[0]).toBe("start");
    expect(message?.via.at(-1)?.startsWith("stop:")).toBe(true);
    // Every state the reader saw is a prefix of the answer: no closing marker was appended and later contradicted.
    const appended = (message?.via ?? []).filter((step) => step.startsWith("append:")).map((step) => step.slice(7));
    expect(appended.length).toBeGreaterThan(0);
    const stops = message?.via.filter((step) => step.startsWith("stop:")).map((step) => step.slice(5)) ?? [];
    const opened = fragments.join("").slice(0, (message?.text.length ?? 0) - [...appended, ...stops].join("").length);
    let seen = opened;
    for (const piece of appended) {
      seen += piece;
      expect(fragments.join("").startsWith(seen)).toBe(true);
    }
    expect(channel.messages).toHaveLength(1);
  });

  it("posts and edits instead when the platform refuses to open a stream", async () => {
    const channel = new StreamingChannel();
    channel.refuseStart = true;
    await run(channel, ["One ", "two ", "three"]);
    expect(channel.messages.map((m) => [m.text, m.via[0]])).toEqual([["One two three", "send"]]);
  });

  it("corrects the message when the final answer differs from what streamed", async () => {
    const channel = new StreamingChannel();
    const events = (async function* () {
      for (const content of ["Price: ", "500k ", "per month"]) {
        await new Promise((resolve) => setTimeout(resolve, 150));
        yield { type: "delta" as const, content };
      }
      yield {
        type: "final" as const,
        questionId: 1,
        answerId: 2,
        answer: "Price: 500k per year",
        totalToken: 5,
        noAnswer: undefined,
      };
    })();
    await drive(streamReply({ channel, target, pacer: new Pacer(channel), events }));
    const [message] = channel.messages;
    expect(message?.text).toBe("Price: 500k per year");
    expect(message?.via.slice(-2)).toEqual(["stop:", "edit"]);
  });
});
