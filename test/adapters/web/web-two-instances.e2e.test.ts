import { randomBytes } from "node:crypto";
import { createClient } from "@keyv/redis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningBridge } from "../../../src/app/bridge-app.js";
import { startBridgeUnderTest } from "../../support/bridge-under-test.js";
import { redisForTests, TEST_REDIS_URL } from "../../support/redis.js";
import { until } from "../../support/waiting.js";
import { newVisitor, openWebChatStream } from "../../support/web-chat-stream.js";
import { ScriptedChatbot } from "../../upstream/scripted-chatbot.js";

const redis = await redisForTests();

/**
 * `startBridge` takes no store namespace, so both instances use the default one in a Redis database of this file's
 * own; every key this file makes holds its random tag or one of its visitors' ids, and only those are deleted (the
 * key that signs visitors' identities stays: it is the deployment's, as it would be in production).
 */
const STORE_URL = `${TEST_REDIS_URL}/13`;
const tag = `two${randomBytes(6).toString("hex")}`;
const visitorIds: string[] = [];

describe.skipIf(!redis.available)("the web chat on two instances sharing one Redis", () => {
  let chatbot: ScriptedChatbot;
  let a: RunningBridge;
  let b: RunningBridge;

  beforeAll(async () => {
    chatbot = await ScriptedChatbot.start();
    // Streamed slowly enough that the answer is shown, then edited, several times.
    chatbot.answer = (question) => ({ fragments: ["Answer ", "to ", question], pauseMs: 150 });
    // The per-address budgets live in this Redis database across runs (every run is 127.0.0.1 in the default
    // namespace): room for many runs within the hour.
    const WEB_CHAT_LIMITS = "identities=10000/1h messages=20/1m,10000/1m";
    a = await startBridgeUnderTest(chatbot, { STORE_URL, WEB_CHAT_LIMITS });
    b = await startBridgeUnderTest(chatbot, { STORE_URL, WEB_CHAT_LIMITS });
  });
  afterAll(async () => {
    await a?.close(1000);
    await b?.close(1000);
    await chatbot?.close();
    const client = createClient({ url: STORE_URL });
    await client.connect();
    for (const mark of [tag, ...visitorIds]) {
      for await (const keys of client.scanIterator({ MATCH: `*${mark}*`, COUNT: 500 })) {
        if (keys.length > 0) await client.del(keys);
      }
    }
    await client.close();
  });

  /** A visitor whose identity one instance issued: the other accepts it, both signing with the store's key. */
  const visitorFrom = async (bridge: RunningBridge) => {
    const token = await newVisitor(bridge.url);
    visitorIds.push(token.slice(0, token.indexOf(".")));
    return token;
  };

  const post = (bridge: RunningBridge, visitorId: string, messageId: string, text: string) =>
    fetch(`${bridge.url}/webchat/messages`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ visitorId, messageId, text }),
    });

  it("streams the answer to a message posted to one instance onto the page's stream held by the other", async () => {
    const visitor = await visitorFrom(b);
    const page = await openWebChatStream(a.url, visitor);
    try {
      expect((await post(b, visitor, "q1", "homes in Austin")).status).toBe(202);
      // A first contact: the greeting opens the answer, in one message on the page.
      const full = "Welcome to **Homes**!\n\nAnswer to homes in Austin";
      const answer = await until(() => page.messages().find((message) => message.text === full), 15_000);
      expect(page.messages().map((message) => message.text)).toEqual([full]);
      const states = page.events.filter((event) => event.messageId === answer.messageId);
      expect(states.length).toBeGreaterThan(1);
      for (const state of states) expect(full.startsWith(state.text ?? "-")).toBe(true);
      const ids = page.events.map((event) => event.id);
      expect([...ids].sort((x, y) => x - y)).toEqual(ids);
      expect(new Set(ids).size).toBe(ids.length);
    } finally {
      await page.close();
    }
  });

  it("replays what a page missed when it reconnects to the other instance with Last-Event-ID", async () => {
    const visitor = await visitorFrom(a);
    const first = await openWebChatStream(a.url, visitor);
    await post(b, visitor, "q1", "first question");
    const greeted = "Welcome to **Homes**!\n\nAnswer to first question";
    await until(() => first.messages().find((message) => message.text === greeted), 15_000);
    const lastSeen = first.lastId();
    await first.close();
    // Meanwhile (no stream open) the second answer is written; a second page of the visitor shows when it is done.
    await post(a, visitor, "q2", "second question");
    const observer = await openWebChatStream(b.url, visitor);
    const missed = await until(
      () => observer.messages().find((message) => message.text === "Answer to second question"),
      15_000,
    );
    await observer.close();
    const resumed = await openWebChatStream(b.url, visitor, lastSeen);
    try {
      await until(() => (resumed.events.length > 0 ? true : undefined), 5_000);
      await until(() => (resumed.events.length > 1 ? true : undefined), 5_000);
      // Only what was missed: the visitor's question (kept for the history), then the answer in its latest state;
      // nothing seen before is sent again. (The answer's final edit may still follow live: its text was complete a
      // moment before.)
      expect(resumed.events[0]).toMatchObject({
        type: "message",
        messageId: "v-q2",
        from: "visitor",
        text: "second question",
      });
      expect(resumed.events[1]).toMatchObject({
        type: "message",
        messageId: missed.messageId,
        text: "Answer to second question",
      });
      for (const event of resumed.events) {
        expect(event.id).toBeGreaterThan(lastSeen ?? Number.POSITIVE_INFINITY);
        expect(["v-q2", missed.messageId]).toContain(event.messageId);
      }
      // And the stream is live: the next answer, posted to the first instance, arrives on it.
      await post(a, visitor, "q3", "third question");
      await until(() => resumed.messages().find((message) => message.text === "Answer to third question"), 15_000);
      expect(resumed.messages().map((message) => message.text)).toEqual([
        "Answer to second question",
        "Answer to third question",
      ]);
    } finally {
      await resumed.close();
    }
  });
});
