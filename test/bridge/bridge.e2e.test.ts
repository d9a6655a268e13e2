import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { Bridge } from "../../src/bridge/bridge.js";
import type { InboundMessage } from "../../src/bridge/inbound.js";
import { createBridgeMetrics } from "../../src/bridge/metrics.js";
import type { BridgeStore } from "../../src/bridge/store/bridge-store.js";
import { openBridgeStore } from "../../src/bridge/store/open-bridge-store.js";
import { ChatbotClient } from "../../src/client/index.js";
import { createLogger } from "../../src/common/log.js";
import { type BridgeConfig, loadConfig } from "../../src/config/config.js";
import { ANSWER_STEPS } from "../../src/features/index.js";
import { holds } from "../support/waiting.js";
import { answerObjects, FakeChatbotApi, framings, sendEnvelope, writeSlowly } from "../upstream/fake-chatbot-api.js";
import { FakeChannel, type FakeChannelOptions } from "./reply/fake-channel.js";

let api: FakeChatbotApi;
let store: BridgeStore;
let channel: FakeChannel;
let bridge: Bridge;
let sessions = 0;
let asks: { session: number; content: string; started: number }[] = [];

const defaults = loadConfig({}, { envFile: undefined }).bridge;

function build(overrides: Partial<BridgeConfig> = {}, channelOptions: FakeChannelOptions = {}) {
  const client = new ChatbotClient({ baseUrl: api.url, apiKey: "sk", timeoutMs: 2000 });
  // Limits far above what the tests send, so pacing does not slow them; the pacer has its own tests.
  const fast = { perSecond: 1000, burst: 1000 };
  channel = new FakeChannel({
    enforce: false,
    limits: { perChat: fast, perGroup: fast, perBot: fast, minUpdateIntervalMs: { private: 10, group: 10 } },
    ...channelOptions,
  });
  bridge = new Bridge({
    steps: ANSWER_STEPS,
    store,
    config: { ...defaults, answerTimeoutMs: 1500, ...overrides },
    chatbots: [{ botId: "bot", client, serialNumber: "bot-1" }],
    log: createLogger("silent"),
    metrics: createBridgeMetrics(),
  });
  bridge.attach(channel);
  bridge.startWorking();
}

let eventSeq = 0;
function inbound(text: string, chatId = "c1", eventId = String(++eventSeq)): InboundMessage {
  return {
    channel: "fake",
    botId: "bot",
    eventId,
    target: { chatId, isGroup: false },
    user: { id: chatId },
    text,
    media: [],
    receivedAt: new Date(),
  };
}

/** The chatbot answers "Answer to <question>" in three fragments, a little slowly. */
function answering(pauseMs = 15) {
  api.route("POST", "/chat/Chat/ClientAsk", async (req, res) => {
    const body = req.body as { sessionID: number; content: string };
    asks.push({ session: body.sessionID, content: body.content, started: Date.now() });
    await writeSlowly(res, [framings.sse(answerObjects(["Answer ", "to ", body.content]))], { pauseMs });
  });
}

const finalTexts = (chatId = "c1") => channel.messagesIn(chatId).map((message) => message.text);

/** Waits until every message taken was answered (the durable work is empty), then stops the bridge. */
async function settle(): Promise<void> {
  await holds(async () => (await store.work.stats()).items === 0, 10_000);
  await bridge.stop(5000);
}

beforeAll(async () => {
  api = await FakeChatbotApi.start();
});
afterAll(() => api.close());
beforeEach(async () => {
  store = await openBridgeStore({ url: "memory://", dataDir: "/nonexistent" });
  sessions = 0;
  asks = [];
  api.requests.length = 0;
  api.route("POST", "/chat/Chatbot/GetSession", (_req, res) => sendEnvelope(res, { SessionID: 100 + ++sessions }));
  api.route("POST", "/chat/Chatbot/Get", (_req, res) =>
    sendEnvelope(res, { serialNumber: "bot-1", WelcomeMessage: "Welcome!", SuggestedMessage: "Homes\nRentals" }),
  );
  answering();
});
afterEach(() => store.close());

describe("Bridge", () => {
  it("greets a first contact in the same message as the answer, greeting first", async () => {
    build();
    expect(await bridge.accept(inbound("hello"))).toBe("accepted");
    await settle();
    expect(finalTexts()).toEqual(["Welcome!\n\nAnswer to hello"]);
  });

  it("answers /start with the greeting alone, its suggestions as quick replies", async () => {
    build();
    await bridge.accept(inbound("/start"));
    await settle();
    expect(finalTexts()).toEqual(["Welcome!"]);
    expect(channel.messagesIn("c1")[0]?.quickReplies).toEqual(["Homes", "Rentals"]);
    expect(asks).toHaveLength(0);
  });

  it("never answers a re-delivered event twice, even while the first is streaming", async () => {
    build();
    const message = inbound("once", "c1", "evt-1");
    expect(await bridge.accept(message)).toBe("accepted");
    expect(await bridge.accept(message)).toBe("duplicate");
    await settle();
    expect(asks).toHaveLength(1);
    expect(finalTexts()).toEqual(["Welcome!\n\nAnswer to once"]);
  });

  it("answers one conversation in order, one at a time, others in parallel", async () => {
    build();
    answering(40);
    for (const text of ["one", "two", "three"]) await bridge.accept(inbound(text, "c1"));
    await bridge.accept(inbound("other", "c2"));
    await settle();
    const c1 = asks.filter((ask) => ["one", "two", "three"].includes(ask.content));
    expect(c1.map((ask) => ask.content)).toEqual(["one", "two", "three"]);
    // Each question goes upstream only after the previous answer's final text reached the chat.
    const finalAt = (content: string) =>
      Math.max(
        ...channel
          .callsIn("c1")
          .filter((call) => call.text?.endsWith(`Answer to ${content}`))
          .map((call) => call.at),
      );
    expect(c1[1]?.started).toBeGreaterThanOrEqual(finalAt("one"));
    expect(c1[2]?.started).toBeGreaterThanOrEqual(finalAt("two"));
    const other = asks.find((ask) => ask.content === "other");
    expect(other?.started).toBeLessThan(c1[1]?.started ?? 0);
    expect(finalTexts("c1")).toEqual(["Welcome!\n\nAnswer to one", "Answer to two", "Answer to three"]);
  });

  it("merges waiting messages into one question in merge mode", async () => {
    build({ queueMode: "merge" });
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    api.route("POST", "/chat/Chat/ClientAsk", async (req, res) => {
      const body = req.body as { sessionID: number; content: string };
      asks.push({ session: body.sessionID, content: body.content, started: Date.now() });
      if (body.content === "first") await gate;
      await writeSlowly(res, [framings.sse(answerObjects(["Answer ", "to ", body.content]))]);
    });
    await bridge.accept(inbound("first"));
    // The rest arrives while the first answer is under way.
    await holds(() => asks.length === 1, 5_000);
    for (const text of ["second", "third"]) await bridge.accept(inbound(text));
    release();
    await settle();
    expect(asks.map((ask) => ask.content)).toEqual(["first", "second\nthird"]);
  });

  it("keeps one session per conversation and starts a new one on /reset and on the reset keyword", async () => {
    build({ resetKeyword: "restart" });
    await bridge.accept(inbound("a"));
    await bridge.accept(inbound("b"));
    await bridge.accept(inbound("/reset"));
    await bridge.accept(inbound("c"));
    await bridge.accept(inbound("RESTART"));
    await bridge.accept(inbound("d"));
    await settle();
    expect(asks.map((ask) => [ask.content, ask.session])).toEqual([
      ["a", 101],
      ["b", 101],
      ["c", 102],
      ["d", 103],
    ]);
  });

  it("opens a new session once when the chatbot says the session is unknown", async () => {
    build();
    let refused = false;
    api.route("POST", "/chat/Chat/ClientAsk", async (req, res) => {
      const body = req.body as { sessionID: number; content: string };
      asks.push({ session: body.sessionID, content: body.content, started: Date.now() });
      if (!refused) {
        refused = true;
        return sendEnvelope(res, null, { status: 404, message: "Session not found" });
      }
      await writeSlowly(res, [framings.ndjson(answerObjects(["Fresh"]))]);
    });
    await bridge.accept(inbound("hi"));
    await settle();
    expect(asks.map((ask) => ask.session)).toEqual([101, 102]);
    expect(finalTexts().at(-1)).toBe("Welcome!\n\nFresh");
  });

  it("keeps the text shown and apologises when the stream breaks; the next message works", async () => {
    build();
    api.route("POST", "/chat/Chat/ClientAsk", (_req, res) =>
      writeSlowly(res, [framings.ndjson([{ content: "Half of " }, { content: "it" }])]),
    );
    await bridge.accept(inbound("broken"));
    await settle();
    expect(finalTexts()).toEqual(["Welcome!\n\nHalf of it", defaults.apologyText]);
    build();
    answering();
    await bridge.accept(inbound("again"));
    await settle();
    expect(finalTexts().at(-1)).toBe("Answer to again");
  });

  it("apologises when the chatbot is down or too slow", async () => {
    build({ answerTimeoutMs: 300 });
    api.route("POST", "/chat/Chat/ClientAsk", (_req, res) => sendEnvelope(res, null, { status: 500, message: "down" }));
    await bridge.accept(inbound("x", "c1"));
    api.route("POST", "/chat/Chat/ClientAsk", () => {});
    await bridge.accept(inbound("y", "c2"));
    await settle();
    expect(finalTexts("c1").at(-1)).toBe(defaults.apologyText);
    expect(finalTexts("c2").at(-1)).toBe(defaults.apologyText);
  });

  it("stops an answer on the user's request, keeping its text, without an apology", async () => {
    build();
    api.route("POST", "/chat/Chat/ClientAsk", (_req, res) =>
      writeSlowly(
        res,
        Array.from({ length: 100 }, () => '{"content":"la "}'),
        { pauseMs: 20 },
      ),
    );
    const message = inbound("sing");
    await bridge.accept(message);
    await new Promise((r) => setTimeout(r, 200));
    bridge.cancel(message);
    await settle();
    const [answer, ...rest] = finalTexts();
    expect(answer).toMatch(/^Welcome!\n\n(la )+$/);
    expect(rest).toEqual([]);
  });

  it("uses WELCOME_TEXT when the chatbot's settings cannot be read", async () => {
    build({ welcomeText: "Hello from the bridge" });
    api.route("POST", "/chat/Chatbot/Get", (_req, res) =>
      sendEnvelope(res, null, { status: 404, message: "no such operation" }),
    );
    await bridge.accept(inbound("/start"));
    await settle();
    expect(finalTexts()).toEqual(["Hello from the bridge"]);
    expect(asks).toHaveLength(0);
  });

  it("splits a long answer on the channel's rendered length, so no message is over the limit once rendered", async () => {
    // Rendering doubles the text here, as markup does on Slack: split on raw length, each message would be 2× over.
    const measure = (markdown: string) => markdown.length * 2;
    build({}, { capabilities: { maxTextLength: 200 }, measure });
    await bridge.accept(inbound("/start"));
    await bridge.accept(inbound(Array.from({ length: 60 }, (_, k) => `word${k}`).join(" ")));
    await settle();
    const answer = finalTexts().slice(1);
    expect(answer.length).toBeGreaterThanOrEqual(3);
    for (const text of answer) expect(measure(text)).toBeLessThanOrEqual(200);
    expect(answer.join(" ")).toContain("word59");
  });

  it("refuses new messages once stopping", async () => {
    build();
    await bridge.stop(100);
    expect(await bridge.accept(inbound("late"))).toBe("stopping");
  });
});
