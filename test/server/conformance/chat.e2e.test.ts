import { describe, expect, it } from "vitest";
import type { AnswerEvent } from "../../../src/client/index.js";
import {
  type ApiHarness,
  availableBackends,
  expectFailure,
  expectSuccess,
  SLOW_MODEL_KEY,
  sampleListing,
  type Tenant,
  useApiHarness,
} from "../../support/api-harness.js";

const ASK = "/chat/Chat/ClientAsk";
const HISTORY = "/chat/Chatbot/ChatContentHistory";
const DAY_MS = 86_400_000;
const day = (offsetDays = 0) => new Date(Date.now() + offsetDays * DAY_MS).toISOString().slice(0, 10);

/** Splits an SSE body into its `data:` objects, checking the framing on the way. */
function sseObjects(text: string): Record<string, unknown>[] {
  expect(text.endsWith("\n\n")).toBe(true);
  return text
    .split("\n\n")
    .filter((frame) => frame !== "")
    .map((frame) => {
      expect(frame).toMatch(/^data: \{.*\}$/s);
      return JSON.parse(frame.slice("data: ".length)) as Record<string, unknown>;
    });
}

async function collect(events: AsyncIterable<AnswerEvent>): Promise<AnswerEvent[]> {
  const out: AnswerEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}

async function history(api: ApiHarness, t: Tenant, query: Record<string, unknown>) {
  const response = await api.call(HISTORY, query, t.secret);
  expectSuccess(response);
  return response.body.Data as { SessionID: number; CreateTime: string; URI: string; Messages: unknown[] }[];
}

describe.each(await availableBackends())("chat (%s)", (backend) => {
  const api = useApiHarness(backend);

  it("answers ClientAsk with plain Data {messageid, content, totalToken, noAnswer} from the listings", async () => {
    const serial = await api.addChatbot(api.a);
    const listing = sampleListing(serial, { City: "Springfield", SalePrice: 455000, Bedrooms: 4 });
    expectSuccess(await api.call("/chat/Chatbot/RealEstateCreate", listing, api.a.secret));
    const sessionID = await api.openSession(api.a, serial);
    const response = await api.call(ASK, { sessionID, content: "Homes for sale in Springfield?" }, api.a.secret);
    expectSuccess(response);
    const data = response.body.Data;
    expect(Object.keys(data).sort()).toEqual(["content", "messageid", "noAnswer", "totalToken"]);
    expect(Number.isSafeInteger(data.messageid)).toBe(true);
    expect(Number.isSafeInteger(data.totalToken) && data.totalToken > 0).toBe(true);
    expect(data.noAnswer).toBe(false);
    expect(data.content).toContain("Springfield");
    expect(data.content).toMatch(/455,000|455000|455K/i);
    const [question, answer] = await api.store.messages.recent(sessionID, 10);
    expect(question).toMatchObject({ role: "User", content: "Homes for sale in Springfield?", askType: "Text" });
    expect(answer).toMatchObject({ id: data.messageid, role: "AI", content: data.content, partial: false });
    expect(data.messageid).toBeGreaterThan(question?.id ?? Infinity);
    // Nothing matches: still an answer, flagged noAnswer.
    const none = await api.call(ASK, { sessionID, content: "Apartments for rent in Springfield" }, api.a.secret);
    expectSuccess(none);
    expect(none.body.Data.noAnswer).toBe(true);
    expect(none.body.Data.messageid).toBeGreaterThan(data.messageid);
  });

  it("streams text/event-stream: data: {content} frames, then {QuestionID, AnswerID, Answer, TotalToken, NoAnswer}", async () => {
    const sessionID = await api.openSession(api.a);
    const response = await fetch(`${api.url}${ASK}`, {
      method: "POST",
      headers: { ...api.a.secret, "content-type": "application/json" },
      body: JSON.stringify({ sessionID, content: "hi there", chatAskType: null, stream: true }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const objects = sseObjects(await response.text());
    const final = objects.pop() ?? {};
    expect(objects.length).toBeGreaterThan(0);
    for (const partial of objects) {
      expect(Object.keys(partial)).toEqual(["content"]);
      expect(typeof partial.content).toBe("string");
    }
    // The spec's four members, and NoAnswer (an extension: whether the chatbot had no answer, as in the plain envelope).
    expect(Object.keys(final).sort()).toEqual(["Answer", "AnswerID", "NoAnswer", "QuestionID", "TotalToken"]);
    expect(typeof final.NoAnswer).toBe("boolean");
    expect(final.Answer).toBe(objects.map((partial) => partial.content).join(""));
    expect(final.AnswerID as number).toBeGreaterThan(final.QuestionID as number);
    expect(Number.isSafeInteger(final.TotalToken) && (final.TotalToken as number) > 0).toBe(true);
    const [question, answer] = await api.store.messages.recent(sessionID, 10);
    expect(question).toMatchObject({ id: final.QuestionID, role: "User", content: "hi there" });
    expect(answer).toMatchObject({ id: final.AnswerID, role: "AI", content: final.Answer });
  });

  it("is decoded by the project's client, streamed and not, with ids growing along the session", async () => {
    const client = api.client(api.a);
    const sessionId = await client.createSession(api.a.serialNumber);
    const events = await collect(client.askStream({ sessionId, content: "3 bedroom homes for sale" }));
    const final = events.at(-1);
    if (final?.type !== "final") throw new Error("the stream did not end with its final object");
    const deltas = events.slice(0, -1);
    expect(deltas.length).toBeGreaterThan(0);
    expect(deltas.every((event) => event.type === "delta")).toBe(true);
    expect(deltas.map((event) => (event.type === "delta" ? event.content : "")).join("")).toBe(final.answer);
    expect(final.answerId).toBeGreaterThan(final.questionId ?? Infinity);
    const plain = await client.ask({ sessionId, content: "thanks!" });
    expect(plain.messageId).toBeGreaterThan(final.answerId);
    expect(plain.content.length).toBeGreaterThan(0);
  });

  it("appends AnswerSuffix to the answer, streamed and not", async () => {
    const suffix = "\n— Harbor & Pine bot";
    const serial = await api.addChatbot(api.a, { AnswerSuffix: suffix, WelcomeMessage: "Hello from Harbor!" });
    const sessionID = await api.openSession(api.a, serial);
    const plain = await api.call(ASK, { sessionID, content: "hello" }, api.a.secret);
    expectSuccess(plain);
    expect(plain.body.Data.content.endsWith(suffix)).toBe(true);
    expect(plain.body.Data.content.slice(0, -suffix.length).endsWith(suffix)).toBe(false); // appended once
    const client = api.client(api.a);
    const events = await collect(client.askStream({ sessionId: sessionID, content: "hello" }));
    const final = events.at(-1);
    if (final?.type !== "final") throw new Error("the stream did not end with its final object");
    expect(final.answer.endsWith(suffix)).toBe(true);
    // The suffix is streamed too: the fragments still concatenate to the whole answer.
    expect(events.map((event) => (event.type === "delta" ? event.content : "")).join("")).toBe(final.answer);
    const [, , , answer] = await api.store.messages.recent(sessionID, 10);
    expect(answer?.content.endsWith(suffix)).toBe(true);
  });

  it("keeps the history: ChatContentHistory by session, with date filters", async () => {
    const serial = await api.addChatbot(api.a);
    const opened = await api.call(
      "/chat/Chatbot/GetSession",
      { serialNumber: serial },
      {
        ...api.a.secret,
        origin: "https://shop.example.com",
      },
    );
    const sessionID = opened.body.Data.SessionID as number;
    await api.openSession(api.a, serial); // a session without messages is not history
    const first = await api.call(ASK, { sessionID, content: "hello" }, api.a.secret);
    const second = await api.call(ASK, { sessionID, content: "apartments for rent" }, api.a.secret);
    const all = await history(api, api.a, { SerialNumber: serial });
    expect(all).toEqual([
      {
        SessionID: sessionID,
        CreateTime: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/),
        URI: "https://shop.example.com",
        Messages: [
          { Type: "User", Content: "hello" },
          { Type: "AI", Content: first.body.Data.content },
          { Type: "User", Content: "apartments for rent" },
          { Type: "AI", Content: second.body.Data.content },
        ],
      },
    ]);
    expect(Math.abs(Date.parse(all[0]?.CreateTime ?? "") - Date.now())).toBeLessThan(60_000);
    expect(await history(api, api.a, { SerialNumber: serial, StartTime: day(), EndTime: day() })).toEqual(all);
    expect(await history(api, api.a, { serialNumber: serial, startTime: day(-1) })).toEqual(all);
    expect(await history(api, api.a, { SerialNumber: serial, StartTime: "2020-01-01", EndTime: "2020-01-31" })).toEqual(
      [],
    );
    expect(await history(api, api.a, { SerialNumber: serial, StartTime: day(1) })).toEqual([]);
    expect(await history(api, api.a, { SerialNumber: serial, EndTime: day(-1) })).toEqual([]);
    const bySession = await api.call(HISTORY, { SerialNumber: serial }, api.a.session);
    expectSuccess(bySession, all);
    const bad: [Record<string, unknown>, string][] = [
      [{ SerialNumber: serial, StartTime: "01/02/2025" }, "StartTime must be a date as YYYY-MM-DD"],
      [{ SerialNumber: serial, StartTime: day(1), EndTime: day() }, "StartTime must not be after EndTime"],
      [{ StartTime: day() }, "SerialNumber is required"],
      [{ StartTime: day(1), EndTime: day() }, "SerialNumber is required; StartTime must not be after EndTime"],
    ];
    for (const [body, problems] of bad) {
      expectFailure(await api.call(HISTORY, body, api.a.secret), 400, `Invalid request: ${problems}`);
    }
  });

  it("refuses another workspace's session exactly like an unknown one (404)", async () => {
    const theirs = await api.openSession(api.b);
    const unknown = theirs + 1_000_000;
    const foreign = await api.call(ASK, { sessionID: theirs, content: "hi" }, api.a.secret);
    const missing = await api.call(ASK, { sessionID: unknown, content: "hi", stream: true }, api.a.secret);
    expectFailure(foreign, 404, `Session ${theirs} not found; create one with GetSession`);
    expectFailure(missing, 404, `Session ${unknown} not found; create one with GetSession`);
    expect(foreign.body.Message.replace(String(theirs), "N")).toBe(missing.body.Message.replace(String(unknown), "N"));
    expect(await api.store.messages.recent(theirs, 10)).toEqual([]);
  });

  it("validates the question", async () => {
    const sessionID = await api.openSession(api.a);
    const cases: [Record<string, unknown>, string][] = [
      [{ content: "hi" }, "sessionID is required"],
      [{ sessionID: "12", content: "hi" }, "sessionID must be a whole number ≥ 1, not a string"],
      [{ sessionID }, "content is required"],
      [{ sessionID, content: "  " }, "content must not be empty when chatAskType is Text"],
      [{ sessionID, content: "hi", chatAskType: "File" }, "chatAskType must be Text, Audio, Image or Video"],
      [{ sessionID, content: "hi", stream: "yes" }, "stream must be true or false, not a string"],
      [{ sessionID, content: "x".repeat(10_001) }, "content must have at most 10,000 characters"],
      [
        { sessionID: -1, content: "", stream: 1, fileIds: [3] },
        "sessionID must be a whole number ≥ 1; stream must be true or false, not a number; " +
          "content must not be empty when chatAskType is Text; " +
          "fileIds is only valid when chatAskType is Image, Audio or Video",
      ],
    ];
    for (const [body, problems] of cases) {
      expectFailure(await api.call(ASK, body, api.a.secret), 400, `Invalid request: ${problems}`);
    }
    expect(await api.store.messages.recent(sessionID, 10)).toEqual([]);
  });

  it("rate-limits with RateLimitCount per RateLimitTime, answering 429 with RateLimitMessage", async () => {
    const message = "Whoa, slow down! Try again in a minute.";
    const serial = await api.addChatbot(api.a, { RateLimitCount: 2, RateLimitTime: 60, RateLimitMessage: message });
    const sessionID = await api.openSession(api.a, serial);
    const ask = (stream = false) => api.call(ASK, { sessionID, content: "hello", stream }, api.a.secret);
    try {
      expectSuccess(await ask());
      expectSuccess(await ask());
      expectFailure(await ask(), 429, message);
      expectFailure(await ask(true), 429, message); // refused before streaming: a plain envelope
      expect((await api.store.messages.recent(sessionID, 10)).length).toBe(4); // refused questions are not stored
      api.clock.advance(30_000);
      expectFailure(await ask(), 429, message);
      api.clock.advance(31_000);
      expectSuccess(await ask());
    } finally {
      api.clock.reset();
    }
  });

  it("enforces the monthly MessageLimit (429); -1 is unlimited", async () => {
    const serial = await api.addChatbot(api.a, { MessageLimit: 2 });
    const sessionID = await api.openSession(api.a, serial);
    const ask = () => api.call(ASK, { sessionID, content: "hello" }, api.a.secret);
    const limit = "This chatbot has used its MessageLimit of 2 messages for this month";
    try {
      expectSuccess(await ask());
      expectSuccess(await ask());
      expectFailure(await ask(), 429, limit);
      api.clock.advance(32 * DAY_MS); // next month: the count starts again
      expectSuccess(await ask());
    } finally {
      api.clock.reset();
    }
    expectFailure(await ask(), 429, limit);
    expectSuccess(await api.call("/chat/Chatbot/Edit", { serialNumber: serial, MessageLimit: -1 }, api.a.secret), 1);
    for (let i = 0; i < 3; i++) expectSuccess(await ask());
    expectSuccess(await api.call("/chat/Chatbot/Edit", { serialNumber: serial, MessageLimit: 0 }, api.a.secret), 1);
    expectFailure(await ask(), 429, "This chatbot has used its MessageLimit of 0 messages for this month");
  });

  it("stores the partial answer when the client disconnects mid-stream, and keeps serving", async () => {
    const serial = await api.addChatbot(api.a, { Model: SLOW_MODEL_KEY, AnswerSuffix: " [suffix]" });
    const sessionID = await api.openSession(api.a, serial);
    const controller = new AbortController();
    const response = await fetch(`${api.url}${ASK}`, {
      method: "POST",
      headers: { ...api.a.secret, "content-type": "application/json" },
      body: JSON.stringify({ sessionID, content: "tell me everything", stream: true }),
      signal: controller.signal,
    });
    expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let received = "";
    while (!received.includes("Part two")) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`the stream ended early: ${received}`);
      received += decoder.decode(value, { stream: true });
    }
    controller.abort();
    await reader.cancel().catch(() => {});
    await expect
      .poll(() => history(api, api.a, { SerialNumber: serial }), { timeout: 2_000, interval: 25 })
      .toEqual([
        expect.objectContaining({
          SessionID: sessionID,
          Messages: [
            { Type: "User", Content: "tell me everything" },
            { Type: "AI", Content: "Part one. Part two. " },
          ],
        }),
      ]);
    const [, partial] = await api.store.messages.recent(sessionID, 10);
    expect(partial).toMatchObject({ role: "AI", partial: true, content: "Part one. Part two. " });
    // The server goes on: the same session and another chatbot both answer.
    expectSuccess(await api.call(ASK, { sessionID: await api.openSession(api.a), content: "hi" }, api.a.secret));
    const whole = await api.call(ASK, { sessionID, content: "again" }, api.a.secret);
    expectSuccess(whole);
    expect(whole.body.Data.content).toBe("Part one. Part two. Part three. [suffix]");
  });
});
