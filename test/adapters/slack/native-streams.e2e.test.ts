import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningBridge } from "../../../src/app/bridge-app.js";
import { SlackEmulator } from "../../emulators/slack.js";
import { startBridgeUnderTest } from "../../support/bridge-under-test.js";
import { until } from "../../support/waiting.js";
import { ScriptedChatbot } from "../../upstream/scripted-chatbot.js";

const SIGNING_SECRET = "slack-streams-signing-secret";
/**
 * chat.startStream and chat.stopStream are Tier 2, 20 calls a minute each, and every stream needs one of each: the
 * pacer keeps them as a count per minute (bursts included) with a little in reserve, so about nine streams can start
 * at once. Spent as an even rate, two started and the rest went out as one post each, with no text before it.
 */
const THREADS = 8;

let slack: SlackEmulator;
let chatbot: ScriptedChatbot;
let running: RunningBridge;

beforeAll(async () => {
  [slack, chatbot] = await Promise.all([
    SlackEmulator.start({ token: "xoxb-streams-token", botUserId: "U0STREAMS", teamId: "T0STREAMS" }),
    ScriptedChatbot.start(),
  ]);
  running = await startBridgeUnderTest(chatbot, {
    SLACK_BOT_TOKEN: "xoxb-streams-token",
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
    SLACK_API_URL: slack.url,
  });
});

afterAll(async () => {
  await running?.close(1000);
  await Promise.all([slack?.close(), chatbot?.close()]);
});

/** Asks one question in each of `count` assistant threads at once; the threads, their acknowledgements checked. */
async function askInThreads(count: number, prefix: string) {
  let ts = 1767390000 + prefix.length * 1000;
  const threads = Array.from({ length: count }, (_, i) => ({
    channel: `D0${prefix}${i}`,
    threadTs: `${++ts}.000100`,
  }));
  const acks = await Promise.all(
    threads.map(({ channel, threadTs }) =>
      slack.deliver(
        `${running.url}/webhooks/slack/events`,
        {
          type: "event_callback",
          team_id: "T0STREAMS",
          event_id: `Ev${prefix}${channel}`,
          event: {
            type: "message",
            channel_type: "im",
            channel,
            user: `U${channel}`,
            text: `question in ${channel}`,
            ts: `${++ts}.000200`,
            thread_ts: threadTs,
          },
        },
        { signingSecret: SIGNING_SECRET },
      ),
    ),
  );
  expect(acks.map((ack) => ack.status)).toEqual(threads.map(() => 200));
  return threads;
}

type Thread = Awaited<ReturnType<typeof askInThreads>>[number];

const answerIn = ({ channel, threadTs }: Thread) => slack.messagesIn(channel, threadTs).at(-1);

/** The thread's last message is its whole answer, no longer growing. */
const whole = (thread: Thread) => {
  const answer = answerIn(thread);
  return answer?.text.endsWith(`question in ${thread.channel}`) === true && !answer.streaming;
};

describe("Slack threads asked at once", () => {
  it(`streams ${THREADS} answers natively, each showing text well before its whole answer, within the tiers`, async () => {
    chatbot.answer = (question) => ({ fragments: ["Homes ", "for ", "you: ", question], pauseMs: 400 });
    const threads = await askInThreads(THREADS, "STREAM");
    await until(() => (threads.every(whole) ? true : undefined));
    for (const thread of threads) {
      const answer = answerIn(thread);
      // At first contact the greeting opens the answer's message.
      expect(answer).toMatchObject({
        text: `Welcome to **Homes**!\n\nHomes for you: question in ${thread.channel}`,
        format: "markdown",
      });
      // The stream opened with text (the greeting, then the first fragments) over a second before it stopped.
      expect((answer?.stoppedAt ?? 0) - (answer?.postedAt ?? 0)).toBeGreaterThan(1_000);
    }
    expect(slack.rateLimited()).toEqual([]);
  });

  it("opens the answers that native streams have no budget left for as posted messages, edited as they grow", async () => {
    // Past the streams the Tier 2 budgets allow (the first test spent some of this minute's too).
    chatbot.answer = (question) => ({ fragments: ["Homes ", "for ", "you: ", question], pauseMs: 900 });
    const threads = await askInThreads(2 * THREADS, "MORE");
    await until(() => (threads.every(whole) ? true : undefined));
    const answers = threads.map(answerIn);
    const streamed = answers.filter((answer) => answer?.stoppedAt !== undefined);
    const edited = answers.filter((answer) => answer?.stoppedAt === undefined && (answer?.edits ?? 0) > 0);
    expect(edited.length).toBeGreaterThan(0);
    expect(streamed.length + edited.length).toBe(threads.length);
    for (const answer of answers) {
      // Text showed well before the whole answer, natively streamed or posted and then edited to the end.
      const end = answer?.stoppedAt ?? answer?.changedAt ?? 0;
      expect(end - (answer?.postedAt ?? 0)).toBeGreaterThan(1_000);
    }
    expect(slack.rateLimited()).toEqual([]);
  });
});
