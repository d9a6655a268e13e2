import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ChannelError, type ChannelLimits } from "../../../src/bridge/channel.js";
import { Pacer } from "../../../src/bridge/reply/pacer.js";
import { type StreamReplyOptions, streamReply } from "../../../src/bridge/reply/reply-streamer.js";
import type { AnswerEvent } from "../../../src/client/answer-events.js";
import {
  answer,
  chat,
  drive,
  FakeChannel,
  type FakeChannelOptions,
  fencesBalanced,
  fragmentsOf,
  TELEGRAM_LIMITS,
} from "./fake-channel.js";

beforeEach(() => {
  vi.useFakeTimers({ now: 5_000_000 });
});
afterEach(() => {
  vi.useRealTimers();
});

const MARKDOWN_ANSWER = [
  "# Homes in **Austin**\n\n",
  "Here are options under $700k — see [the listing](https://example.com/homes?city=austin_tx).\n\n",
  "1. **Mueller**: 3 bd, _quiet_ street, ~~$720k~~ $695k 🏡\n",
  "2. `Zilker`: close to the park 👨‍👩‍👧\n\n",
  '```json\n{ "beds": 3, "price": 695000 }\n```\n\n',
  "Prices with a * are estimates; ids like home_id_42 are internal. Ünïcödé 東京。Done!",
].join("");

/** A long answer whose code block straddles Telegram's 4096-character limit. */
const LONG_ANSWER = [
  "Here is the full script you asked for, with comments.\n\n```python\n",
  Array.from({ length: 120 }, (_, i) => `print("step ${i}")  # explains step ${i}`).join("\n"),
  "\n```\n\n",
  "That is all. ".repeat(40),
].join("");

function setup(options: FakeChannelOptions = {}) {
  const channel = new FakeChannel(options);
  return { channel, pacer: new Pacer(channel) };
}

function run(
  channel: FakeChannel,
  pacer: Pacer,
  events: AsyncIterable<AnswerEvent>,
  extra: Partial<StreamReplyOptions> = {},
) {
  return streamReply({ channel, target: chat(1), pacer, events, ...extra });
}

/** Gaps between consecutive calls of a kind. */
function gaps(at: number[]): number[] {
  return at.slice(1).map((t, k) => t - (at[k] ?? 0));
}

describe("streamReply with edits", () => {
  it("shows typing, sends the first text at once, edits at the update interval, and lands the whole answer", async () => {
    const { channel, pacer } = setup();
    const t0 = Date.now();
    const firstText = vi.fn();
    const result = await drive(
      run(channel, pacer, answer(fragmentsOf(MARKDOWN_ANSWER, 12), { delayMs: 100 }), {
        quickReplies: ["More homes?"],
        onFirstText: firstText,
      }),
    );
    expect(channel.calls[0]).toMatchObject({ method: "typing", at: t0 });
    const sends = channel.callsIn("1", "send");
    const edits = channel.callsIn("1", "edit");
    expect(sends).toHaveLength(1);
    expect((sends[0]?.at ?? 0) - t0).toBeLessThanOrEqual(200);
    expect(result.firstVisibleMs).toBe((sends[0]?.at ?? 0) - t0);
    expect(firstText).toHaveBeenCalledOnce();
    // Intermediate states keep the interval; the final edit follows as soon as the chat's budget allows.
    const intermediate = [sends[0], ...edits.slice(0, -1)].map((call) => call?.at ?? 0);
    for (const gap of gaps(intermediate)) expect(gap).toBeGreaterThanOrEqual(1_100);
    for (const call of [...sends, ...edits]) expect(fencesBalanced(call.text ?? ""), call.text).toBe(true);
    expect(channel.callsIn("1", "typing").every((call) => call.at < (sends[0]?.at ?? 0))).toBe(true);
    expect(channel.messagesIn("1")).toEqual([
      { id: "1", chatId: "1", text: MARKDOWN_ANSWER, format: "markdown", quickReplies: ["More homes?"] },
    ]);
    // Every state before the last says the answer is still growing; the last does not.
    const states = channel.calls.filter((call) => call.outcome === "ok" && call.method !== "typing");
    expect(states.slice(0, -1).every((call) => call.partial === true)).toBe(true);
    expect(states.at(-1)?.partial).toBeUndefined();
    expect(result).toMatchObject({ delivered: MARKDOWN_ANSWER, messages: 1 });
    expect(result.updates).toBeGreaterThan(1);
    expect(channel.rateLimited).toBe(0);
  });

  it("edits a group's answer no more often than the group interval", async () => {
    const { channel, pacer } = setup();
    await drive(
      streamReply({
        channel,
        pacer,
        target: chat(-7, true),
        events: answer(fragmentsOf(MARKDOWN_ANSWER, 10), { delayMs: 150 }),
      }),
    );
    const writes = channel.calls.filter((call) => call.method === "send" || call.method === "edit");
    for (const gap of gaps(writes.slice(0, -1).map((call) => call.at))) expect(gap).toBeGreaterThanOrEqual(3_100);
    expect(channel.messagesIn("-7").map((m) => m.text)).toEqual([MARKDOWN_ANSWER]);
  });

  it("keeps typing until the first text is visible", async () => {
    const { channel, pacer } = setup();
    async function* slowStart(): AsyncGenerator<AnswerEvent> {
      await new Promise((resolve) => setTimeout(resolve, 10_000));
      yield* answer(["Finally ", "here."], { delayMs: 10 });
    }
    const t0 = Date.now();
    await drive(run(channel, pacer, slowStart()));
    const typing = channel.callsIn("1", "typing").map((call) => call.at - t0);
    expect(typing).toEqual([0, 4_000, 8_000]);
  });

  it("counts an unchanged final edit as delivered", async () => {
    const { channel, pacer } = setup();
    async function* pauseBeforeFinal(): AsyncGenerator<AnswerEvent> {
      yield { type: "delta", content: "All " };
      yield { type: "delta", content: "done." };
      await new Promise((resolve) => setTimeout(resolve, 5_000));
      yield { type: "final", questionId: 1, answerId: 2, answer: "All done.", totalToken: 3, noAnswer: undefined };
    }
    const result = await drive(run(channel, pacer, pauseBeforeFinal()));
    expect(channel.calls.some((call) => call.outcome === "not_modified")).toBe(true);
    expect(result).toMatchObject({ delivered: "All done.", messages: 1 });
  });

  it("retries a refused format as plain text and keeps every character", async () => {
    const { channel, pacer } = setup({ refuseMarkdown: (text) => text.includes("~~") });
    const result = await drive(run(channel, pacer, answer(fragmentsOf(MARKDOWN_ANSWER, 25))));
    expect(channel.calls.some((call) => call.outcome === "format")).toBe(true);
    expect(channel.messagesIn("1")).toMatchObject([{ text: MARKDOWN_ANSWER, format: "plain" }]);
    expect(result.delivered).toBe(MARKDOWN_ANSWER);
  });

  it("lands the final after an unexpected rate limit with a long retry time", async () => {
    const { channel, pacer } = setup();
    channel.fail(
      (call) => call.method === "edit" && call.quickReplies !== undefined,
      () => new ChannelError("rate_limited", "Too Many Requests: retry after 60", 60_000),
    );
    const t0 = Date.now();
    const result = await drive(
      run(channel, pacer, answer(fragmentsOf(MARKDOWN_ANSWER, 40)), { quickReplies: ["Next?"] }),
    );
    const landed = channel.calls.filter((call) => call.outcome === "ok" && call.quickReplies !== undefined);
    expect(landed).toHaveLength(1);
    expect((landed[0]?.at ?? 0) - t0).toBeGreaterThanOrEqual(60_000);
    expect(channel.messagesIn("1")).toMatchObject([{ text: MARKDOWN_ANSWER, quickReplies: ["Next?"] }]);
    expect(result.delivered).toBe(MARKDOWN_ANSWER);
  });

  it("retries a final that failed with a network error", async () => {
    const { channel, pacer } = setup({ capabilities: { canEdit: false } });
    channel.fail(
      (call) => call.method === "send",
      () => new ChannelError("transient", "ECONNRESET"),
      2,
    );
    await drive(run(channel, pacer, answer(["Hello ", "world"])));
    expect(channel.messagesIn("1").map((m) => m.text)).toEqual(["Hello world"]);
  });

  it("uses the final answer when it differs from the deltas and nothing is finished yet", async () => {
    const { channel, pacer } = setup();
    async function* rewritten(): AsyncGenerator<AnswerEvent> {
      yield { type: "delta", content: "Draft text" };
      yield { type: "final", questionId: 1, answerId: 2, answer: "Clean text", totalToken: 2, noAnswer: undefined };
    }
    const result = await drive(run(channel, pacer, rewritten()));
    expect(channel.messagesIn("1").map((m) => m.text)).toEqual(["Clean text"]);
    expect(result.delivered).toBe("Clean text");
  });
});

describe("streamReply with native drafts", () => {
  it("streams drafts at the private interval, then persists the final text with a send", async () => {
    const { channel, pacer } = setup({ capabilities: { nativeDraft: true } });
    const result = await drive(
      run(channel, pacer, answer(fragmentsOf(MARKDOWN_ANSWER, 12)), { quickReplies: ["More?"] }),
    );
    const drafts = channel.callsIn("1", "draft");
    expect(drafts.length).toBeGreaterThan(1);
    expect(new Set(drafts.map((call) => call.draftId)).size).toBe(1);
    for (const gap of gaps(drafts.map((call) => call.at))) expect(gap).toBeGreaterThanOrEqual(1_100);
    expect(channel.calls.at(-1)).toMatchObject({ method: "send", text: MARKDOWN_ANSWER });
    for (const call of drafts) expect(fencesBalanced(call.text ?? "")).toBe(true);
    expect(channel.callsIn("1", "edit")).toHaveLength(0);
    expect(channel.callsIn("1", "send")).toHaveLength(1);
    expect(channel.messagesIn("1")).toMatchObject([{ text: MARKDOWN_ANSWER, quickReplies: ["More?"] }]);
    expect(channel.drafts.size).toBe(0);
    expect(result).toMatchObject({ delivered: MARKDOWN_ANSWER, messages: 1 });
  });

  it("retries a refused draft as plain text and keeps the final in markdown", async () => {
    const { channel, pacer } = setup({
      capabilities: { nativeDraft: true },
      refuseMarkdown: (_t, method) => method === "draft",
    });
    await drive(run(channel, pacer, answer(fragmentsOf(MARKDOWN_ANSWER, 30))));
    const drafts = channel.callsIn("1", "draft");
    expect(drafts[0]).toMatchObject({ format: "markdown", outcome: "format" });
    expect(drafts.slice(1).every((call) => call.format === "plain" && call.outcome === "ok")).toBe(true);
    expect(channel.messagesIn("1")).toMatchObject([{ text: MARKDOWN_ANSWER, format: "markdown" }]);
  });

  it("falls back to send and edit when drafts fail", async () => {
    const { channel, pacer } = setup({ capabilities: { nativeDraft: true } });
    channel.fail(
      (call) => call.method === "draft",
      () => new ChannelError("rejected", "method not available"),
      Number.POSITIVE_INFINITY,
    );
    const result = await drive(run(channel, pacer, answer(fragmentsOf(MARKDOWN_ANSWER, 12))));
    expect(channel.callsIn("1", "draft")).toHaveLength(1);
    expect(channel.callsIn("1", "edit").length).toBeGreaterThan(0);
    expect(channel.messagesIn("1").map((m) => m.text)).toEqual([MARKDOWN_ANSWER]);
    expect(result.messages).toBe(1);
  });
});

describe("streamReply without edits", () => {
  it("sends only the final text and renews typing meanwhile", async () => {
    const { channel, pacer } = setup({ capabilities: { canEdit: false } });
    const t0 = Date.now();
    const result = await drive(run(channel, pacer, answer(fragmentsOf(MARKDOWN_ANSWER, 15), { delayMs: 500 })));
    expect(channel.calls.filter((call) => call.method !== "typing").map((call) => call.method)).toEqual(["send"]);
    expect(channel.callsIn("1", "typing").map((call) => call.at - t0)).toEqual([0, 4_000, 8_000]);
    expect(result).toMatchObject({ delivered: MARKDOWN_ANSWER, messages: 1, updates: 0 });
  });
});

describe("streamReply past the message limit", () => {
  it.each([
    ["edits", {}],
    ["drafts", { nativeDraft: true }],
    ["final messages only", { canEdit: false }],
  ])("continues a 5,000-character answer in a second message (%s)", async (_name, capabilities) => {
    expect(LONG_ANSWER.length).toBeGreaterThan(5_000);
    const { channel, pacer } = setup({ capabilities });
    const result = await drive(
      run(channel, pacer, answer(fragmentsOf(LONG_ANSWER, 60), { delayMs: 50 }), { quickReplies: ["Q"] }),
    );
    const messages = channel.messagesIn("1");
    expect(messages).toHaveLength(2);
    for (const message of messages) {
      expect(message.text.length).toBeLessThanOrEqual(4_096);
      expect(fencesBalanced(message.text), message.text.slice(-200)).toBe(true);
    }
    expect(messages[0]?.quickReplies).toBeUndefined();
    expect(messages[1]?.quickReplies).toEqual(["Q"]);
    expect(messages[1]?.text.startsWith("```python\n")).toBe(true);
    // The first message's code block was closed, and reopened with its language in the second.
    const [first, second] = [messages[0]?.text ?? "", messages[1]?.text ?? ""];
    expect(first.endsWith("\n```")).toBe(true);
    expect(first.slice(0, -3) + second.replace(/^```python\n/, "")).toBe(LONG_ANSWER);
    for (const call of channel.calls) expect((call.text ?? "").length).toBeLessThanOrEqual(4_096);
    expect(result).toMatchObject({ delivered: LONG_ANSWER, messages: 2 });
  });
});

describe("streamReply when the answer stops early", () => {
  const fragments = fragmentsOf("The first part of the answer arrives, and then the upstream breaks down.", 8);

  it.each([
    ["edits", {}],
    ["drafts", { nativeDraft: true }],
    ["final messages only", { canEdit: false }],
  ])("delivers the partial text and rethrows when the stream breaks (%s)", async (_name, capabilities) => {
    const { channel, pacer } = setup({ capabilities });
    const failure = new Error("upstream timed out");
    const outcome = drive(run(channel, pacer, answer(fragments, { failAfter: 6, error: failure }))).catch(
      (e: unknown) => e,
    );
    expect(await outcome).toBe(failure);
    expect(channel.messagesIn("1").map((m) => m.text)).toEqual([fragments.slice(0, 6).join("")]);
  });

  it("closes an open code block in the partial text it delivers", async () => {
    const { channel, pacer } = setup();
    const outcome = drive(run(channel, pacer, answer(["Run:\n```sh\n", "ls -la"], { failAfter: 2 }))).catch(
      () => undefined,
    );
    await outcome;
    expect(channel.messagesIn("1").map((m) => m.text)).toEqual(["Run:\n```sh\nls -la\n```"]);
  });

  it("resolves with what arrived when stopped, and closes the source", async () => {
    const { channel, pacer } = setup();
    const stop = new AbortController();
    let closed = false;
    async function* endless(): AsyncGenerator<AnswerEvent> {
      try {
        for (let i = 0; ; i++) {
          await new Promise((resolve) => setTimeout(resolve, 200));
          yield { type: "delta", content: `word${i} ` };
        }
      } finally {
        closed = true;
      }
    }
    setTimeout(() => stop.abort(), 2_100);
    const result = await drive(run(channel, pacer, endless(), { signal: stop.signal, quickReplies: ["Q"] }));
    expect(result.delivered).toBe(Array.from({ length: 10 }, (_, i) => `word${i} `).join(""));
    expect(channel.messagesIn("1")).toMatchObject([{ text: result.delivered, quickReplies: undefined }]);
    await vi.advanceTimersByTimeAsync(500);
    expect(closed).toBe(true);
  });

  it("resolves with nothing delivered when stopped before any text", async () => {
    const { channel, pacer } = setup();
    const stop = new AbortController();
    stop.abort();
    const result = await drive(run(channel, pacer, answer(["never"]), { signal: stop.signal }));
    expect(result).toEqual({ delivered: "", messages: 0, updates: 0 });
    expect(channel.messages).toHaveLength(0);
  });
});

describe("streamReply under pressure", () => {
  it("skips intermediate updates when the bot budget is short, never the finals", async () => {
    const limits: ChannelLimits = { ...TELEGRAM_LIMITS, perBot: { perSecond: 5, burst: 5 } };
    const { channel, pacer } = setup({ limits });
    const text = (i: number) => `Answer ${i}: ${"some streamed words ".repeat(20)}**done**.`;
    const results = await drive(
      Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          streamReply({ channel, pacer, target: chat(i), events: answer(fragmentsOf(text(i), 10), { delayMs: 50 }) }),
        ),
      ),
    );
    expect(channel.rateLimited).toBe(0);
    for (const [i, result] of results.entries()) {
      expect(channel.messagesIn(String(i)).map((m) => m.text)).toEqual([text(i)]);
      expect(result.updates).toBeLessThan(fragmentsOf(text(i), 10).length / 4);
    }
  });
});
