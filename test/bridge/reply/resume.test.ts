import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { Pacer } from "../../../src/bridge/reply/pacer.js";
import { type AnswerProgress, streamReply } from "../../../src/bridge/reply/reply-streamer.js";
import { answer, chat, drive, FakeChannel, type FakeChannelOptions, fragmentsOf } from "./fake-channel.js";

beforeEach(() => {
  vi.useFakeTimers({ now: 9_000_000 });
});
afterEach(() => {
  vi.useRealTimers();
});

/** Three paragraphs of ~1,800 characters: two Telegram messages. */
const LONG = Array.from({ length: 3 }, (_, k) => `Paragraph ${k}: ${"the house has a garden. ".repeat(75)}`).join(
  "\n\n",
);

function setup(options: FakeChannelOptions = {}) {
  const channel = new FakeChannel(options);
  return { channel, pacer: new Pacer(channel) };
}

/**
 * Streams `text` until `stopWhen` says so (looking at the progress reported so far), then puts the fence down as a
 * lost lease would; resolves the last progress reported and how the call ended.
 */
async function interrupted(
  channel: FakeChannel,
  pacer: Pacer,
  text: string,
  stopWhen: (progress: AnswerProgress) => boolean,
) {
  const fence = new AbortController();
  let last: AnswerProgress | undefined;
  const call = streamReply({
    channel,
    target: chat(1),
    pacer,
    events: answer(fragmentsOf(text, 40), { delayMs: 50 }),
    fence: fence.signal,
    onProgress: (progress) => {
      last = progress;
      if (stopWhen(progress)) fence.abort(new Error("lease lost"));
    },
  });
  const outcome = await drive(call).then(
    () => "resolved",
    (error: Error) => error.message,
  );
  return { progress: last as AnswerProgress, outcome };
}

describe("streamReply resuming an answer an earlier holder left", () => {
  it("stops writing at once when the fence goes down, and rejects", async () => {
    const { channel, pacer } = setup();
    const { progress, outcome } = await interrupted(channel, pacer, LONG, (p) => p.open !== undefined);
    expect(outcome).toBe("lease lost");
    expect(progress.open).toEqual({ kind: "edit", id: expect.any(String) });
    const callsAtStop = channel.calls.length;
    await vi.advanceTimersByTimeAsync(10_000);
    expect(channel.calls.length).toBe(callsAtStop);
  });

  it("finishes the same answer in the messages already sent: none sent twice", async () => {
    const reference = setup();
    await drive(streamReply({ ...reference, target: chat(1), events: answer(fragmentsOf(LONG, 40), { delayMs: 50 }) }));
    const expected = reference.channel.messagesIn("1").map((message) => message.text);
    expect(expected.length).toBe(2);

    const { channel, pacer } = setup();
    // Lost after the first message was finished and the second one opened.
    const { progress } = await interrupted(channel, pacer, LONG, (p) => p.messages === 1 && p.open !== undefined);
    expect(progress.messages).toBe(1);
    const sentBefore = channel.callsIn("1", "send").length;
    const diverged = vi.fn();
    const result = await drive(
      streamReply({
        channel,
        target: chat(1),
        pacer: new Pacer(channel),
        events: answer(fragmentsOf(LONG, 40), { delayMs: 50 }),
        resume: progress,
        onDiverged: diverged,
      }),
    );
    expect(diverged).not.toHaveBeenCalled();
    expect(channel.callsIn("1", "send").length).toBe(sentBefore);
    expect(channel.messagesIn("1").map((message) => message.text)).toEqual(expected);
    expect(result.messages).toBe(2);
  });

  it("edits the open message with the second answer when nothing was finished before", async () => {
    const { channel, pacer } = setup();
    const { progress } = await interrupted(channel, pacer, "The first answer, streaming slowly. ".repeat(5), (p) =>
      Boolean(p.open),
    );
    expect(progress.messages).toBe(0);
    const other = "A different answer from the chatbot asked again.";
    await drive(
      streamReply({
        channel,
        target: chat(1),
        pacer: new Pacer(channel),
        events: answer(fragmentsOf(other, 10), { delayMs: 50 }),
        resume: progress,
      }),
    );
    expect(channel.messagesIn("1").map((message) => message.text)).toEqual([other]);
  });

  it("delivers a different second answer whole after the finished messages, starting in the open one", async () => {
    const { channel, pacer } = setup();
    const { progress } = await interrupted(channel, pacer, LONG, (p) => p.messages === 1 && p.open !== undefined);
    const [finished] = channel.messagesIn("1").map((message) => message.text);
    const other = "A different answer from the chatbot asked again.";
    const diverged = vi.fn();
    await drive(
      streamReply({
        channel,
        target: chat(1),
        pacer: new Pacer(channel),
        events: answer(fragmentsOf(other, 10), { delayMs: 50 }),
        resume: progress,
        onDiverged: diverged,
      }),
    );
    expect(diverged).toHaveBeenCalledOnce();
    expect(channel.messagesIn("1").map((message) => message.text)).toEqual([finished, other]);
  });

  it("continues after the last block already sent where messages cannot be edited (WhatsApp)", async () => {
    const blocks = { canEdit: false, blocks: { minLength: 200 } };
    const reference = setup({ capabilities: blocks });
    await drive(streamReply({ ...reference, target: chat(1), events: answer(fragmentsOf(LONG, 40), { delayMs: 50 }) }));
    const expected = reference.channel.messagesIn("1").map((message) => message.text);
    expect(expected.length).toBeGreaterThanOrEqual(3);

    const { channel, pacer } = setup({ capabilities: blocks });
    const { progress } = await interrupted(channel, pacer, LONG, (p) => p.messages === 1);
    await drive(
      streamReply({
        channel,
        target: chat(1),
        pacer: new Pacer(channel),
        events: answer(fragmentsOf(LONG, 40), { delayMs: 50 }),
        resume: progress,
      }),
    );
    expect(channel.messagesIn("1").map((message) => message.text)).toEqual(expected);
  });

  it("delivers a complete answer recorded in the ledger without anything streaming", async () => {
    const reference = setup();
    await drive(streamReply({ ...reference, target: chat(1), events: answer(fragmentsOf(LONG, 40), { delayMs: 50 }) }));
    const expected = reference.channel.messagesIn("1").map((message) => message.text);
    const { channel, pacer } = setup();
    const { progress } = await interrupted(channel, pacer, LONG, (p) => p.messages === 1 && p.open !== undefined);
    const final = {
      type: "final" as const,
      questionId: 1,
      answerId: 2,
      answer: LONG,
      totalToken: 3,
      noAnswer: undefined,
    };
    await drive(
      streamReply({
        channel,
        target: chat(1),
        pacer: new Pacer(channel),
        events: (async function* () {
          yield final;
        })(),
        resume: progress,
      }),
    );
    expect(channel.messagesIn("1").map((message) => message.text)).toEqual(expected);
  });

  it("replaces the same native draft after a crash the ledger did not see: draft ids come from the answer's name", async () => {
    const { channel, pacer } = setup({ capabilities: { nativeDraft: true } });
    const fence = new AbortController();
    const first = streamReply({
      channel,
      target: chat(1),
      pacer,
      events: answer(fragmentsOf(LONG, 40), { delayMs: 50 }),
      fence: fence.signal,
      answerId: "telegram:default:1|job-7|ask:0",
    });
    // The holder dies right after its first draft showed, before any progress could be recorded.
    const drafted = new Promise<void>((resolve) => {
      const poll = setInterval(() => {
        if (channel.callsIn("1", "draft").length > 0) {
          clearInterval(poll);
          fence.abort(new Error("killed"));
          resolve();
        }
      }, 10);
    });
    await drive(Promise.all([drafted, first.catch(() => undefined)]));
    const shown = channel.callsIn("1", "draft").map((call) => call.draftId);
    expect(new Set(shown).size).toBe(1);

    await drive(
      streamReply({
        channel,
        target: chat(1),
        pacer,
        events: answer(fragmentsOf(LONG, 40), { delayMs: 50 }),
        answerId: "telegram:default:1|job-7|ask:0",
      }),
    );
    const drafts = channel.callsIn("1", "draft").map((call) => call.draftId);
    // The first message of the answer streamed in the draft the dead holder had opened; the second in another one.
    const [firstId] = shown;
    expect(channel.messagesIn("1")).toHaveLength(2);
    const ids = [...new Set(drafts)];
    expect(ids).toHaveLength(2);
    expect(ids[0]).toBe(firstId);
    // Another answer gets other drafts.
    const before = drafts.length;
    await drive(
      streamReply({
        channel,
        target: chat(1),
        pacer,
        events: answer(fragmentsOf(LONG, 40), { delayMs: 50 }),
        answerId: "telegram:default:1|job-8|ask:0",
      }),
    );
    const others = channel
      .callsIn("1", "draft")
      .slice(before)
      .map((call) => call.draftId);
    expect(others.length).toBeGreaterThan(0);
    expect(others.filter((id) => ids.includes(id))).toEqual([]);
  });
});

describe("streamReply with a preface", () => {
  it("shows the greeting first, in the answer's first message, and reports it in what was delivered", async () => {
    const { channel, pacer } = setup();
    const result = await drive(
      streamReply({
        channel,
        target: chat(1),
        pacer,
        events: answer(["Three homes ", "match."], { delayMs: 200 }),
        preface: "Hi! I'm the assistant.\n\n",
      }),
    );
    const [first] = channel.callsIn("1", "send");
    expect(first?.text).toBe("Hi! I'm the assistant.");
    expect(channel.messagesIn("1").map((message) => message.text)).toEqual([
      "Hi! I'm the assistant.\n\nThree homes match.",
    ]);
    expect(result.delivered).toBe("Hi! I'm the assistant.\n\nThree homes match.");
  });
});
