import { describe, expect, it } from "vitest";
import { describeTally, tallyAnswers } from "../support/answer-tally.js";
import { privateText } from "../support/bridge-instances.js";
import { redisForTests } from "../support/redis.js";
import { until } from "../support/waiting.js";
import { durabilityScene } from "./scene.js";
import { answerText, GREETING, type SlowAnswers } from "./slow-answers.js";

const redis = await redisForTests();

const TOKEN = "123456789:AAshared-budget-token-of-the-emulator";
const CONVERSATIONS = 200;
/** Short answers that end about together, so that both instances want to send far more than 30 messages a second. */
const SHAPE: SlowAnswers = { chars: 120, fragments: 6, streamMs: 600 };

/**
 * Two `chatbridge start` instances answering for one Telegram bot on one Redis spend from the same budgets (30
 * messages a second per bot, one a second per chat with a burst): 200 conversations at once get every answer, and
 * Telegram never has to refuse a call with 429. Each instance alone would use the whole per-bot budget, so without
 * sharing they would send twice too fast.
 */
describe.skipIf(!redis.available)("two instances sharing one bot's budget on Redis", () => {
  const scene = durabilityScene({ token: TOKEN, shape: SHAPE, redis: true });

  it("200 conversations at once: every answer delivered, 0 × 429", { timeout: 60_000 }, async () => {
    const bridges = await scene.start(["all", "all"]);
    const group = bridges;
    const chats = Array.from({ length: CONVERSATIONS }, (_, index) => 9_000_001 + index);
    const question = (chat: number) => `homes for chat ${chat}`;
    const expected = new Map(chats.map((chat) => [chat, [`${GREETING}${answerText(question(chat), SHAPE)}`]]));
    const started = performance.now();
    const acks = await Promise.all(
      chats.map((chat, index) => group.at(index % 2).postTelegram(privateText(chat, chat, question(chat)))),
    );
    expect(acks.map((ack) => ack.status)).toEqual(chats.map(() => 200));

    await until(
      () => (tallyAnswers(scene.telegram, expected).whole === CONVERSATIONS ? true : undefined),
      45_000,
    ).catch(() => undefined);
    const seconds = (performance.now() - started) / 1000;
    const result = tallyAnswers(scene.telegram, expected);
    const sentBy = group.instances.map((instance) => instance.current.telegram.callsTo("sendMessage").length);
    console.log(
      `2 instances, one bot, ${CONVERSATIONS} conversations at once: ${describeTally(result)}; ${scene.telegram.rateLimited().length} × 429; messages sent by each instance ${sentBy.join(" + ")} in ${seconds.toFixed(1)} s`,
    );
    expect(result.examples).toEqual([]);
    expect(result.whole).toBe(CONVERSATIONS);
    // Both instances answered: the budget was really shared between two senders.
    for (const sent of sentBy) expect(sent).toBeGreaterThan(CONVERSATIONS / 10);
    expect(scene.telegram.rateLimited()).toEqual([]);
  });
});
