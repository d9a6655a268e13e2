import { describe, expect, it } from "vitest";
import { describeTally, IN_FLIGHT_MS, tallyAnswers } from "../support/answer-tally.js";
import { type BridgeInstance, privateText } from "../support/bridge-instances.js";
import { redisForTests } from "../support/redis.js";
import { until } from "../support/waiting.js";
import { durabilityScene } from "./scene.js";
import { answerText, askedTwice, GREETING, type SlowAnswers } from "./slow-answers.js";

const redis = await redisForTests();

const TOKEN = "123456789:AAredis-crash-token-of-the-emulator";
const CONVERSATIONS = 300;
/** Each conversation asks two questions: 600 answers, which Telegram's 30 messages/s per bot send in 20 s at best. */
const SHAPE: SlowAnswers = { chars: 200, fragments: 20, streamMs: 2_000 };
const BOT_MESSAGES_PER_SECOND = 30;

/**
 * Three `chatbridge start` instances on one Redis take 300 conversations' webhooks, spread over them as a load
 * balancer would, with 20% of the updates delivered again to another instance; one instance is killed with
 * `kill -9` mid-stream and started again. Nothing acknowledged is lost, nothing is answered twice, every answer is
 * whole, and each conversation's answers come in the order of its questions.
 */
describe.skipIf(!redis.available)("a crash among three instances on Redis", () => {
  const scene = durabilityScene({ token: TOKEN, shape: SHAPE, redis: true });

  it("kill -9 of one of three: 0 lost, 0 answered twice, order kept, every answer whole", {
    timeout: 90_000,
  }, async () => {
    const bridges = await scene.start(["all", "all", "all"], {
      WORK_LEASE_MS: "2000",
      SHUTDOWN_GRACE_MS: "500",
    });
    const group = bridges;
    const victim = group.at(0);
    const chats = Array.from({ length: CONVERSATIONS }, (_, index) => 8_000_001 + index);
    const questions = (chat: number) => [`homes for chat ${chat}`, `rentals for chat ${chat}`];
    const expected = new Map(
      chats.map((chat) => {
        const [first, second] = questions(chat) as [string, string];
        return [chat, [`${GREETING}${answerText(first, SHAPE)}`, answerText(second, SHAPE)]];
      }),
    );
    const update = (chat: number, which: 0 | 1) =>
      privateText(chat * 2 + which, chat, questions(chat)[which] as string);
    const taken = (outcome: { outcome: { status: number; body?: unknown } }) =>
      outcome.outcome.status === 200 ? ((outcome.outcome.body as { status?: string }).status ?? "?") : "refused";

    // Each conversation's two questions, one after the other as Telegram sends a chat's updates, each to another
    // instance; the conversations all at once.
    const firsts = await Promise.all(
      chats.map(async (chat, index) => {
        const first = await group.deliver(update(chat, 0), index);
        const second = await group.deliver(update(chat, 1), index + 1);
        return [taken(first), taken(second)];
      }),
    );
    expect(firsts.flat().filter((status) => status !== "accepted")).toEqual([]);

    // Mid-stream: a quarter of the answers sent, the chatbot streaming others, the rest waiting for Telegram's
    // per-bot limit. A fifth of the conversations get their first update again, on another instance, many while
    // that answer is still under way.
    const sent = () => chats.reduce((sum, chat) => sum + scene.telegram.messagesIn(chat).length, 0);
    const streamingUpstream = () => scene.chatbot.asks.filter((ask) => ask.answeredAt === undefined).length;
    await until(() => (sent() >= CONVERSATIONS / 2 && streamingUpstream() > 0 ? true : undefined), 30_000);
    const again = (part: number) => chats.filter((_, index) => index % 10 === part || index % 10 === part + 5);
    const unanswered = again(0).filter((chat) => scene.telegram.messagesIn(chat).length === 0).length;
    const whileStreaming = await Promise.all(
      again(0).map(async (chat) => taken(await group.deliver(update(chat, 0), chats.indexOf(chat) + 2))),
    );
    const atKill = { sent: sent(), streaming: streamingUpstream() };
    const victimCalls = victim.current.telegram.requests.length;
    const killedAt = performance.now();
    await victim.kill();
    // Another fifth gets its second update again while the instance is down (the others take it), then it restarts.
    const whileDown = await Promise.all(
      again(1).map(async (chat) => taken(await group.deliver(update(chat, 1), chats.indexOf(chat) + 2))),
    );
    await victim.start();
    expect([...whileStreaming, ...whileDown].filter((status) => status !== "duplicate")).toEqual([]);

    const tally = () => tallyAnswers(scene.telegram, expected, [killedAt]);
    await until(() => (tally().lost === 0 ? true : undefined), 60_000).catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const result = tally();
    const others = group.instances.filter((instance: BridgeInstance) => instance !== victim);
    const resumed = (
      await Promise.all([...others, victim].map((instance) => instance.metric("chatbridge_work_resumed_total")))
    ).reduce((sum, value) => sum + value, 0);
    const twice = askedTwice(scene.chatbot.asks);
    console.log(
      `3 instances on Redis, kill -9 of one (it had made ${victimCalls} Telegram calls) with ${atKill.sent} of 600 answers sent and ${atKill.streaming} streaming upstream; ${unanswered} of ${again(0).length} first updates delivered again before their answer: ${describeTally(result)}; ${resumed} conversations resumed after the crash, ${twice} questions asked upstream twice, ${scene.telegram.rateLimited().length} × 429`,
    );
    expect(result.examples).toEqual([]);
    expect({
      lost: result.lost,
      duplicated: result.duplicated,
      halfFinished: result.halfFinished,
      outOfOrder: result.outOfOrder,
    }).toEqual({ lost: 0, duplicated: 0, halfFinished: 0, outOfOrder: 0 });
    expect(result.whole).toBe(CONVERSATIONS * 2);
    expect(result.repeatedInFlight).toBeLessThanOrEqual((BOT_MESSAGES_PER_SECOND * 2 * IN_FLIGHT_MS) / 1000);
    // The kill really caught the victim holding conversations, which the others (or its next run) resumed.
    expect(victimCalls).toBeGreaterThan(0);
    expect(resumed).toBeGreaterThan(0);
    const asks = new Map<string, number>();
    for (const ask of scene.chatbot.asks) asks.set(ask.content, (asks.get(ask.content) ?? 0) + 1);
    expect(asks.size).toBe(CONVERSATIONS * 2);
    expect(Math.max(...asks.values())).toBeLessThanOrEqual(2);
  });
});
