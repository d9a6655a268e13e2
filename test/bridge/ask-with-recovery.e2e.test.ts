import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { askWithRecovery } from "../../src/bridge/ask-with-recovery.js";
import { type AnswerEvent, ChatbotApiError, ChatbotClient } from "../../src/client/index.js";
import { answerObjects, FakeChatbotApi, framings, sendEnvelope, writeSlowly } from "../upstream/fake-chatbot-api.js";

const PATH = "/chat/Chat/ClientAsk";

let api: FakeChatbotApi;
let client: ChatbotClient;

beforeAll(async () => {
  api = await FakeChatbotApi.start();
  client = new ChatbotClient({ baseUrl: api.url, apiKey: "k", timeoutMs: 2000 });
});
afterAll(async () => {
  await client.close();
  await api.close();
});

async function drain(events: AsyncIterable<AnswerEvent>): Promise<{ events: AnswerEvent[]; error: unknown }> {
  const out: AnswerEvent[] = [];
  try {
    for await (const event of events) out.push(event);
    return { events: out, error: undefined };
  } catch (error) {
    return { events: out, error };
  }
}

describe("askWithRecovery", () => {
  it("asks again once in a new session when the chatbot API no longer knows the old one", async () => {
    let asked = 0;
    api.route("POST", PATH, (_req, res) => {
      asked++;
      if (asked === 1) return sendEnvelope(res, null, { status: 404, message: "Session not found" });
      return writeSlowly(res, [framings.sse(answerObjects(["Hel", "lo"]))]);
    });
    let renewed = 0;
    const source = await askWithRecovery(
      client,
      { sessionId: 5, content: "hi" },
      async () => ++renewed + 40,
      new AbortController().signal,
    );
    expect(source.sessionId).toBe(41);
    expect(renewed).toBe(1);
    expect(api.requestsTo(PATH).map((request) => (request.body as { sessionID: number }).sessionID)).toEqual([5, 41]);
    const { events, error } = await drain(source.events);
    expect(error).toBeUndefined();
    expect(events.map((event) => event.type)).toEqual(["delta", "delta", "final"]);
  });

  it("asks without keeping the text for errors, which the answer job keeps itself", async () => {
    api.route("POST", PATH, async (_req, res) => {
      await writeSlowly(res, ['{"content":"Cut "}', '{"content":"here"}'], { end: false });
      res.socket?.destroy();
    });
    const source = await askWithRecovery(
      client,
      { sessionId: 5, content: "hi" },
      async () => 6,
      new AbortController().signal,
    );
    const { events, error } = await drain(source.events);
    expect(events).toEqual([
      { type: "delta", content: "Cut " },
      { type: "delta", content: "here" },
    ]);
    expect(error).toBeInstanceOf(ChatbotApiError);
    expect(error).toMatchObject({ kind: "connection", partialText: undefined });
  });
});
