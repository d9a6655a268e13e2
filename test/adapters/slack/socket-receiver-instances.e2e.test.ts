import { createClient } from "@keyv/redis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningBridge } from "../../../src/app/bridge-app.js";
import { SlackEmulator } from "../../emulators/slack.js";
import { startBridgeUnderTest } from "../../support/bridge-under-test.js";
import { deleteRedisKeys, freshRedisNamespace, redisForTests, TEST_REDIS_URL } from "../../support/redis.js";
import { TcpRelay } from "../../support/tcp-relay.js";
import { until } from "../../support/waiting.js";
import { ScriptedChatbot } from "../../upstream/scripted-chatbot.js";

const redis = await redisForTests();

/** This file's Redis database; the instances share a namespace no other run uses, and only its keys are deleted. */
const DATABASE = 12;
const STORE_URL = `${TEST_REDIS_URL}/${DATABASE}`;
const APP_TOKEN = "xapp-1-A0EMULATOR-instances";
const BOT_TOKEN = "xoxb-socket-instances";

describe.skipIf(!redis.available)("Slack Socket Mode on two instances sharing one Redis", () => {
  const namespace = freshRedisNamespace();
  let slack: SlackEmulator;
  let chatbot: ScriptedChatbot;
  /** The first instance reaches Redis through it, so that it alone can lose Redis. */
  let relay: TcpRelay;
  let first: RunningBridge;
  let second: RunningBridge;

  beforeAll(async () => {
    [slack, chatbot, relay] = await Promise.all([
      SlackEmulator.start({ token: BOT_TOKEN, appToken: APP_TOKEN, botUserId: "U0SOCKBOT" }),
      ScriptedChatbot.start(),
      TcpRelay.start(Number(new URL(TEST_REDIS_URL).port)),
    ]);
    const env = (storeUrl: string) => ({
      STORE_URL: storeUrl,
      STORE_NAMESPACE: namespace,
      SLACK_BOT_TOKEN: BOT_TOKEN,
      SLACK_APP_TOKEN: APP_TOKEN,
      SLACK_API_URL: slack.url,
    });
    // One after the other, so that connection 0 is the first instance's and connection 1 the second's.
    first = await startBridgeUnderTest(chatbot, env(`redis://127.0.0.1:${relay.port}/${DATABASE}`));
    await until(() => (slack.socketConnections === 1 ? true : undefined));
    second = await startBridgeUnderTest(chatbot, env(STORE_URL));
    await until(() => (slack.socketConnections === 2 ? true : undefined));
  });
  afterAll(async () => {
    relay?.restore();
    await first?.close(1000);
    await second?.close(1000);
    await Promise.all([slack?.close(), chatbot?.close(), relay?.close()]);
    if (redis.available) await deleteRedisKeys(namespace, STORE_URL);
  });

  let nextTs = 1767500000;
  /** A direct message of its own conversation. */
  const directMessage = (channel: string, text: string) => {
    const ts = `${++nextTs}.000100`;
    return {
      type: "event_callback",
      team_id: "T0TEST",
      event_id: `Ev${ts.replace(".", "")}`,
      event: { type: "message", channel_type: "im", channel, user: "U0ANA", ts, text },
    };
  };
  const answersIn = (channel: string, answer: string) =>
    slack.messagesIn(channel).filter((message) => message.text.endsWith(answer)).length;

  /** Whether the store holds the claim of the event of message `ts`: what makes it durable and a repeat a duplicate. */
  async function claimed(ts: string): Promise<boolean> {
    const client = createClient({ url: STORE_URL });
    await client.connect();
    try {
      for await (const keys of client.scanIterator({ MATCH: `${namespace}:claim:*${ts}*`, COUNT: 500 })) {
        if (keys.length > 0) return true;
      }
      return false;
    } finally {
      await client.close();
    }
  }

  /** Waits until the instance's /readyz answers 200: its store connection is back. */
  async function readyAgain(instance: RunningBridge): Promise<void> {
    const deadline = Date.now() + 15_000;
    while ((await fetch(`${instance.url}/readyz`)).status !== 200) {
      if (Date.now() > deadline) throw new Error("the instance did not get Redis back");
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  it("each instance holds a connection; an event is acknowledged once recorded and answered once, whichever gets it", async () => {
    const one = directMessage("D0ONE", "homes");
    const two = directMessage("D0TWO", "rentals");
    const [ackOne, ackTwo] = await Promise.all([
      slack.sendOverSocket(one, { connection: 0 }),
      slack.sendOverSocket(two, { connection: 1 }),
    ]);
    expect([ackOne.envelope_id, ackTwo.envelope_id].every(Boolean)).toBe(true);
    // Acknowledged means recorded: the claims are in Redis by the time the acks arrived.
    expect(await claimed(one.event.ts)).toBe(true);
    expect(await claimed(two.event.ts)).toBe(true);
    // Slack retries an event on any connection: the other instance acknowledges it and drops it.
    await slack.sendOverSocket(one, { connection: 1, retryAttempt: 1, retryReason: "timeout" });
    await slack.sendOverSocket(two, { connection: 0, retryAttempt: 1, retryReason: "timeout" });
    await until(() =>
      answersIn("D0ONE", "Answer to homes") && answersIn("D0TWO", "Answer to rentals") ? true : undefined,
    );
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect([answersIn("D0ONE", "Answer to homes"), answersIn("D0TWO", "Answer to rentals")]).toEqual([1, 1]);
  });

  it("does not acknowledge an envelope whose event could not be recorded, so that Slack's retry is answered", async () => {
    const event = directMessage("D0LOST", "condos");
    relay.cut();
    try {
      await expect(slack.sendOverSocket(event, { connection: 0, timeoutMs: 1_500 })).rejects.toThrow(/no ack/);
      expect(await claimed(event.event.ts)).toBe(false);
    } finally {
      relay.restore();
    }
    // Once the first instance has Redis again, Slack's retry to it is recorded, acknowledged and answered, once.
    await readyAgain(first);
    await slack.sendOverSocket(event, { connection: 0, retryAttempt: 1, retryReason: "timeout" });
    expect(await claimed(event.event.ts)).toBe(true);
    await until(() => (answersIn("D0LOST", "Answer to condos") ? true : undefined));
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(answersIn("D0LOST", "Answer to condos")).toBe(1);
  });
});
