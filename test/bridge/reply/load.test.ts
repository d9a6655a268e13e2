import { monitorEventLoopDelay } from "node:perf_hooks";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { ChannelCapabilities } from "../../../src/bridge/channel.js";
import { Pacer } from "../../../src/bridge/reply/pacer.js";
import { streamReply } from "../../../src/bridge/reply/reply-streamer.js";
import { answer, chat, drive, FakeChannel, fencesBalanced, fragmentsOf } from "./fake-channel.js";

beforeEach(() => {
  vi.useFakeTimers({ now: 9_000_000 });
});
afterEach(() => {
  vi.useRealTimers();
});

/** A varied answer: markdown, a code block, and now and then one longer than a Telegram message. */
function answerText(i: number): string {
  const body = `Answer **${i}** with a [link](https://example.com/${i}) and \`code\`. ${"Streamed words follow. ".repeat(30)}`;
  const code = `\n\n\`\`\`ts\n${Array.from({ length: 5 }, (_, k) => `const x${k} = ${i};`).join("\n")}\n\`\`\`\n\n`;
  const long = i % 25 === 0 ? "A much longer tail sentence is here. ".repeat(130) : "";
  return `${body}${code}${long}Done _${i}_.`;
}

function words(text: string): string[] {
  return text
    .split("\n")
    .filter((line) => !/^```\w*$/.test(line))
    .join(" ")
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
}

async function streamMany(count: number, capabilities: Partial<ChannelCapabilities>) {
  const channel = new FakeChannel({ capabilities, latencyMs: 40 });
  const pacer = new Pacer(channel);
  const texts = Array.from({ length: count }, (_, i) => answerText(i));
  const results = await drive(
    Promise.all(
      texts.map((text, i) =>
        streamReply({
          channel,
          pacer,
          target: chat(i, i % 7 === 0),
          events: answer(fragmentsOf(text, 25), { delayMs: 80 }),
          quickReplies: ["More?"],
        }),
      ),
    ),
    50,
  );
  return { channel, texts, results };
}

describe("many conversations on one bot", () => {
  it.each([
    ["edits", {}],
    ["drafts", { nativeDraft: true }],
  ])("streams 200 answers at once without one rate limit, and every answer lands whole (%s)", async (_name, caps) => {
    const { channel, texts, results } = await streamMany(200, caps);
    expect(channel.rateLimited).toBe(0);
    for (const [i, text] of texts.entries()) {
      const messages = channel.messagesIn(String(i));
      expect(results[i]?.delivered).toBe(text);
      expect(results[i]?.messages).toBe(messages.length);
      if (text.length <= 4_096) expect(messages.map((m) => m.text)).toEqual([text]);
      else expect(words(messages.map((m) => m.text).join("\n"))).toEqual(words(text));
      expect(messages.at(-1)?.quickReplies).toEqual(["More?"]);
      for (const message of messages) {
        expect(message.text.length).toBeLessThanOrEqual(4_096);
        expect(fencesBalanced(message.text)).toBe(true);
      }
    }
    for (const call of channel.calls) expect(fencesBalanced(call.text ?? "")).toBe(true);
  });

  // Fake timers scan every pending timer on each tick, which dominates at this size (the pacer, streamer and
  // markdown code took under 1% of a profile): this case runs on real timers with the budgets scaled up.
  it("scales to 1,000 conversations on one bot (real timers, 10x budgets)", { timeout: 60_000 }, async () => {
    vi.useRealTimers();
    const limits = {
      perChat: { perSecond: 10, burst: 3 },
      perGroup: { perSecond: 10 / 3, burst: 3 },
      perBot: { perSecond: 300, burst: 300 },
      minUpdateIntervalMs: { private: 110, group: 310 },
    };
    const channel = new FakeChannel({ limits, capabilities: { nativeDraft: true }, latencyMs: 5 });
    const pacer = new Pacer(channel);
    const texts = Array.from({ length: 1_000 }, (_, i) => answerText(i));
    const loop = monitorEventLoopDelay({ resolution: 10 });
    loop.enable();
    const results = await Promise.all(
      texts.map((text, i) =>
        streamReply({
          channel,
          pacer,
          target: chat(i, i % 7 === 0),
          events: answer(fragmentsOf(text, 50), { delayMs: 20 }),
        }),
      ),
    );
    loop.disable();
    // The pacer spaces its calls by real time; when this process's event loop stalls (a machine busy with other
    // work), calls due at different moments leave together and the fake's buckets may refuse a few, which the pacer
    // then retries. With timers on time, none may be refused.
    const stalledMs = loop.max / 1e6;
    const calls = channel.calls.length;
    if (stalledMs < 50) expect(channel.rateLimited).toBe(0);
    else expect(channel.rateLimited).toBeLessThanOrEqual(calls * 0.02);
    expect(results.map((r) => r.delivered)).toEqual(texts);
    for (const [i, text] of texts.entries()) {
      if (text.length <= 4_096) expect(channel.messagesIn(String(i)).map((m) => m.text)).toEqual([text]);
    }
  });
});
