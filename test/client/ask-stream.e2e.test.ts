import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AnswerEvent, ChatbotApiError, ChatbotClient } from "../../src/client/index.js";
import { answerObjects, FakeChatbotApi, framings, sendEnvelope, writeSlowly } from "../upstream/fake-chatbot-api.js";

const PATH = "/chat/Chat/ClientAsk";
const fragments = ["Hello", ", **Ana**", '! "Quoted" \\ back', "slash\n", "Ünïcödé 🏡 ", "東京 }{ data: x"];
const expected: AnswerEvent[] = [
  ...fragments.map((content) => ({ type: "delta" as const, content })),
  { type: "final", questionId: 11, answerId: 12, answer: fragments.join(""), totalToken: 42, noAnswer: undefined },
];

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

async function collect(events: AsyncIterable<AnswerEvent>): Promise<AnswerEvent[]> {
  const out: AnswerEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}

async function failure(events: AsyncIterable<AnswerEvent>): Promise<ChatbotApiError> {
  const error = await collect(events).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ChatbotApiError);
  return error as ChatbotApiError;
}

describe("streamed answers over HTTP", () => {
  for (const [name, frame] of Object.entries(framings)) {
    it(`decodes ${name} and asks with stream: true`, async () => {
      const wire = Buffer.from(frame(answerObjects(fragments)));
      api.route("POST", PATH, (_req, res) => writeSlowly(res, [wire.subarray(0, 50), wire.subarray(50)]));
      expect(await collect(client.askStream({ sessionId: 3, content: "hi" }))).toEqual(expected);
      expect(api.requestsTo(PATH).at(-1)?.body).toMatchObject({ sessionID: 3, stream: true });
    });

    it(`decodes ${name} split at every byte boundary`, async () => {
      const wire = Buffer.from(frame(answerObjects(fragments)));
      let split = 1;
      api.route("POST", PATH, (_req, res) =>
        writeSlowly(res, [wire.subarray(0, split), wire.subarray(split)], { pauseMs: 1 }),
      );
      for (; split < wire.length; split++) {
        expect(await collect(client.askStream({ sessionId: 3, content: "hi" }))).toEqual(expected);
      }
    });
  }

  it("accepts a plain envelope answering a stream request", async () => {
    api.route("POST", PATH, (_req, res) =>
      sendEnvelope(res, { messageid: 99, content: "Whole answer", totalToken: 5, noAnswer: true }),
    );
    expect(await collect(client.askStream({ sessionId: 3, content: "hi" }))).toEqual([
      { type: "delta", content: "Whole answer" },
      { type: "final", questionId: undefined, answerId: 99, answer: "Whole answer", totalToken: 5, noAnswer: true },
    ]);
  });

  it("turns an error envelope inside the stream into an error carrying the text so far", async () => {
    const error = { Data: null, Version: "1.0.0", Success: false, Code: 429, Message: "Too many messages" };
    api.route("POST", PATH, (_req, res) =>
      writeSlowly(res, [`data: {"content":"Part one"}\n\n`, `data: ${JSON.stringify(error)}\n\n`]),
    );
    const e = await failure(client.askStream({ sessionId: 3, content: "hi" }));
    expect(e).toMatchObject({
      kind: "envelope",
      code: 429,
      partialText: "Part one",
      message: "ClientAsk: Too many messages",
    });
  });

  it("reports HTTP 401 and 404 envelopes before any event", async () => {
    api.route("POST", PATH, (_req, res) => sendEnvelope(res, null, { status: 401, message: "Invalid API key" }));
    expect(await failure(client.askStream({ sessionId: 3, content: "hi" }))).toMatchObject({
      kind: "http",
      status: 401,
    });
    api.route("POST", PATH, (_req, res) => sendEnvelope(res, null, { status: 404, message: "Session not found" }));
    expect(await failure(client.askStream({ sessionId: 3, content: "hi" }))).toMatchObject({
      kind: "http",
      status: 404,
      code: 404,
      message: "ClientAsk: Session not found",
    });
  });

  it("reports HTTP 500 with an HTML page", async () => {
    api.route("POST", PATH, (_req, res) => res.writeHead(500, { "content-type": "text/html" }).end("<h1>Oops</h1>"));
    const e = await failure(client.askStream({ sessionId: 3, content: "hi" }));
    expect(e).toMatchObject({ kind: "http", status: 500 });
    expect(api.requestsTo(PATH).length).toBeGreaterThan(0);
  });

  it("a stream that ends without the final object is incomplete, with the partial text", async () => {
    api.route("POST", PATH, (_req, res) =>
      writeSlowly(res, [framings.ndjson([{ content: "Half an " }, { content: "answer" }])]),
    );
    expect(await failure(client.askStream({ sessionId: 3, content: "hi" }))).toMatchObject({
      kind: "incomplete",
      partialText: "Half an answer",
    });
  });

  it("a stalled stream times out with the partial text", async () => {
    const quick = new ChatbotClient({ baseUrl: api.url, apiKey: "k", timeoutMs: 250 });
    api.route("POST", PATH, (_req, res) =>
      writeSlowly(res, ['data: {"content":"Before the stall"}\n\n'], { end: false }),
    );
    const started = Date.now();
    const e = await failure(quick.askStream({ sessionId: 3, content: "hi" }));
    expect(e).toMatchObject({ kind: "timeout", partialText: "Before the stall" });
    expect(Date.now() - started).toBeLessThan(2000);
    await quick.close();
  });

  it("a connection cut mid-stream is a connection error with the partial text", async () => {
    api.route("POST", PATH, async (_req, res) => {
      await writeSlowly(res, ['{"content":"Cut "}', '{"content":"here"}'], { end: false });
      res.socket?.destroy();
    });
    expect(await failure(client.askStream({ sessionId: 3, content: "hi" }))).toMatchObject({
      kind: "connection",
      partialText: "Cut here",
    });
  });

  it("without partialText, a failure mid-stream carries no text and the events before it still come", async () => {
    api.route("POST", PATH, async (_req, res) => {
      await writeSlowly(res, ['{"content":"Cut "}', '{"content":"here"}'], { end: false });
      res.socket?.destroy();
    });
    const events: AnswerEvent[] = [];
    let caught: unknown;
    try {
      for await (const event of client.askStream({ sessionId: 3, content: "hi" }, { partialText: false }))
        events.push(event);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ChatbotApiError);
    expect(caught).toMatchObject({ kind: "connection", partialText: undefined });
    expect(events).toEqual([
      { type: "delta", content: "Cut " },
      { type: "delta", content: "here" },
    ]);
  });

  it("aborting the signal cancels the upstream request", async () => {
    let gone: Promise<void> = Promise.resolve();
    api.route("POST", PATH, (req, res) => {
      gone = req.clientGone;
      return writeSlowly(
        res,
        Array.from({ length: 200 }, () => '{"content":"word "}'),
        { pauseMs: 20 },
      );
    });
    const controller = new AbortController();
    const seen: string[] = [];
    const e = await (async () => {
      try {
        for await (const event of client.askStream({ sessionId: 3, content: "hi" }, { signal: controller.signal })) {
          if (event.type === "delta") seen.push(event.content);
          if (seen.length === 3) controller.abort();
        }
      } catch (error) {
        return error;
      }
    })();
    expect(e).toMatchObject({ name: "ChatbotApiError", kind: "aborted" });
    expect(seen).toHaveLength(3);
    await expect(
      Promise.race([gone.then(() => "gone"), new Promise((r) => setTimeout(() => r("still open"), 1000))]),
    ).resolves.toBe("gone");
  });

  it("leaving the loop early closes the upstream connection", async () => {
    let gone: Promise<void> = Promise.resolve();
    api.route("POST", PATH, (req, res) => {
      gone = req.clientGone;
      return writeSlowly(
        res,
        Array.from({ length: 200 }, () => 'data: {"content":"word "}\n\n'),
        { pauseMs: 20 },
      );
    });
    for await (const event of client.askStream({ sessionId: 3, content: "hi" })) {
      expect(event.type).toBe("delta");
      break;
    }
    await expect(
      Promise.race([gone.then(() => "gone"), new Promise((r) => setTimeout(() => r("still open"), 1000))]),
    ).resolves.toBe("gone");
  });
});
