import { describe, expect, it } from "vitest";
import { describeTally, tallyAnswers } from "../support/answer-tally.js";
import { privateText } from "../support/bridge-instances.js";
import { redisForTests } from "../support/redis.js";
import { until } from "../support/waiting.js";
import { durabilityScene } from "./scene.js";
import { answerText, askedTwice, GREETING, type SlowAnswers } from "./slow-answers.js";

const redis = await redisForTests();

const TOKEN = "123456789:AAhandover-token-of-the-emulator";
const CONVERSATIONS = 50;
/**
 * Answers streaming ten times longer than the grace period: the stopping instance cannot finish them, and none is
 * complete before the SIGTERM even when the 50 questions reach the chatbot over a few seconds (a loaded machine).
 */
const SHAPE: SlowAnswers = { chars: 200, fragments: 20, streamMs: 5_000 };
const GRACE_MS = 500;
/** Long, so that a takeover by lease expiry would show: the handover must not wait for it. */
const LEASE_MS = 20_000;
/** The longest the other instance may take to finish everything after the SIGTERM: the grace, an answer asked
 * again (5 s), and 50 final messages at Telegram's 30 a second, with room for a loaded machine. */
const TAKEOVER_WITHIN_MS = 9_000;

/**
 * SIGTERM to one of two `chatbridge start` instances while 50 answers stream, each longer than the grace period:
 * the stopping instance lets its answers run for the grace, then hands its conversations over (releases their
 * leases with the ledger in place), and the other instance completes them at once — every one, none twice, long
 * before the leases would have expired.
 */
describe.skipIf(!redis.available)("handing answers over at SIGTERM", () => {
  const scene = durabilityScene({ token: TOKEN, shape: SHAPE, redis: true });

  it("SIGTERM during 50 streaming answers: the other instance completes them at once, none twice", {
    timeout: 60_000,
  }, async () => {
    const bridges = await scene.start(["all", "all"], {
      WORK_LEASE_MS: String(LEASE_MS),
      SHUTDOWN_GRACE_MS: String(GRACE_MS),
    });
    const [stopping, staying] = [bridges.at(0), bridges.at(1)];
    const chats = Array.from({ length: CONVERSATIONS }, (_, index) => 9_500_001 + index);
    const question = (chat: number) => `homes for chat ${chat}`;
    const expected = new Map(chats.map((chat) => [chat, [`${GREETING}${answerText(question(chat), SHAPE)}`]]));
    const acks = await Promise.all(
      chats.map((chat, index) =>
        (index % 2 ? staying : stopping).postTelegram(privateText(chat, chat, question(chat))),
      ),
    );
    expect(acks.map((ack) => ack.status)).toEqual(chats.map(() => 200));

    // Every answer under way upstream, none complete yet.
    await until(() => (scene.chatbot.asks.length === CONVERSATIONS ? true : undefined), 20_000);
    await new Promise((resolve) => setTimeout(resolve, SHAPE.streamMs / 4));
    expect(scene.chatbot.asks.filter((ask) => ask.answeredAt !== undefined)).toEqual([]);
    const stoppingCalls = stopping.current.telegram.requests.length;
    const sigterm = performance.now();
    const exited = stopping.terminate().then((exit) => ({ ...exit, afterMs: performance.now() - sigterm }));

    const tally = () => tallyAnswers(scene.telegram, expected);
    await until(() => (tally().whole === CONVERSATIONS ? true : undefined), 30_000).catch(() => undefined);
    const completedMs = performance.now() - sigterm;
    const exit = await exited;
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const result = tally();
    const handedOver = await staying.metric("chatbridge_ledger_resumes_total");
    const twice = askedTwice(scene.chatbot.asks);
    console.log(
      `SIGTERM to one of 2 instances (grace ${GRACE_MS} ms, lease ${LEASE_MS} ms) during ${CONVERSATIONS} answers: all complete ${Math.round(completedMs)} ms after the SIGTERM; ${describeTally(result)}; ${handedOver} jobs resumed by the other instance, ${twice} questions asked upstream twice; the stopped instance exited ${exit.code ?? exit.signal} ${Math.round(exit.afterMs)} ms after the SIGTERM`,
    );
    expect(result.examples).toEqual([]);
    expect({ lost: result.lost, duplicated: result.duplicated, halfFinished: result.halfFinished }).toEqual({
      lost: 0,
      duplicated: 0,
      halfFinished: 0,
    });
    expect(result.whole).toBe(CONVERSATIONS);
    // The stopping instance held answers under way, and the other resumed them from the ledger…
    expect(stoppingCalls).toBeGreaterThan(0);
    expect(handedOver).toBeGreaterThan(0);
    // …at once, not after a lease expired.
    expect(completedMs).toBeLessThan(TAKEOVER_WITHIN_MS);
    expect(exit.code).toBe(0);
    expect(scene.telegram.rateLimited()).toEqual([]);
  });
});
