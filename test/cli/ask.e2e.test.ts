import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { run } from "../../src/cli/run.js";
import { terminal } from "../support/terminal.js";
import { answerObjects, FakeChatbotApi, framings, sendEnvelope, writeSlowly } from "../upstream/fake-chatbot-api.js";

let api: FakeChatbotApi;

beforeAll(async () => {
  api = await FakeChatbotApi.start();
});
afterAll(() => api.close());
beforeEach(() => {
  api.requests.length = 0;
  api.route("POST", "/chat/Chatbot/GetSession", (_req, res) => sendEnvelope(res, { SessionID: 501 }));
  api.route("POST", "/chat/Chat/ClientAsk", (_req, res) =>
    writeSlowly(res, [framings.sse(answerObjects(["Three ", "homes ", "match."]))]),
  );
});

const env = () => ({ CHATBOT_API_URL: api.url, CHATBOT_API_KEY: "sk-test", CHATBOT_SERIAL_NUMBER: "bot-9" });

describe("chatbridge ask", () => {
  it("creates a session, streams the answer to stdout and reports usage on stderr", async () => {
    const t = terminal(env());
    expect(await run(["ask", "homes", "in", "Austin?"], t.io)).toBe(0);
    expect(t.out()).toBe("Three homes match.\n");
    expect(t.err()).toContain("session 501");
    expect(t.err()).toContain("42 tokens");
    expect(api.requestsTo("/chat/Chatbot/GetSession")[0]?.body).toEqual({ serialNumber: "bot-9" });
    expect(api.requestsTo("/chat/Chat/ClientAsk")[0]?.body).toMatchObject({
      sessionID: 501,
      content: "homes in Austin?",
      stream: true,
    });
    expect(api.requestsTo("/chat/Chat/ClientAsk")[0]?.headers.authorization).toBe("sk-test");
  });

  it("prints one JSON object with --json and reuses --session", async () => {
    const t = terminal(env());
    expect(await run(["ask", "--json", "--session", "77", "hi"], t.io)).toBe(0);
    expect(JSON.parse(t.out())).toEqual({
      sessionId: 77,
      questionId: 11,
      answerId: 12,
      answer: "Three homes match.",
      totalToken: 42,
    });
    expect(api.requestsTo("/chat/Chatbot/GetSession")).toHaveLength(0);
  });

  it("reads the question from piped stdin", async () => {
    const t = terminal(env(), "cheapest condo?\n");
    expect(await run(["ask"], t.io)).toBe(0);
    expect(api.requestsTo("/chat/Chat/ClientAsk")[0]?.body).toMatchObject({ content: "cheapest condo?" });
  });

  it("exits 1 with the API's message and the fix when the key is wrong", async () => {
    api.route("POST", "/chat/Chatbot/GetSession", (_req, res) =>
      sendEnvelope(res, null, { status: 401, message: "Invalid API key" }),
    );
    const t = terminal(env());
    expect(await run(["ask", "hi"], t.io)).toBe(1);
    expect(t.err()).toMatch(/GetSession: Invalid API key \(401\) — the secret key is wrong: check CHATBOT_API_KEY/);
    expect(t.err()).not.toContain("sk-test");
  });

  it("exits 1 and keeps the partial text when the stream breaks", async () => {
    api.route("POST", "/chat/Chat/ClientAsk", (_req, res) =>
      writeSlowly(res, [framings.ndjson([{ content: "Half" }])]),
    );
    const t = terminal(env());
    expect(await run(["ask", "hi"], t.io)).toBe(1);
    expect(t.out()).toBe("Half\n");
    expect(t.err()).toContain("ended before the final");
  });

  it("stops the answer and cancels upstream on interrupt", async () => {
    let gone: Promise<void> = Promise.resolve();
    api.route("POST", "/chat/Chat/ClientAsk", (req, res) => {
      gone = req.clientGone;
      return writeSlowly(
        res,
        Array.from({ length: 100 }, () => '{"content":"la "}'),
        { pauseMs: 20 },
      );
    });
    const t = terminal(env());
    const exit = run(["ask", "sing"], t.io);
    await new Promise((r) => setTimeout(r, 150));
    t.io.signals.emit("interrupt");
    expect(await exit).toBe(130);
    expect(t.out()).toMatch(/^(la )+\n$/);
    await gone;
  });

  it("exits 2 naming each missing variable of a configured API", async () => {
    const t = terminal({ CHATBOT_API_URL: api.url });
    expect(await run(["ask", "hi"], t.io)).toBe(2);
    const lines = t.err().trim().split("\n");
    expect(lines).toHaveLength(2);
    expect(lines[0]).toContain("CHATBOT_API_KEY");
    expect(lines[1]).toContain("CHATBOT_SERIAL_NUMBER");
    expect(api.requests).toHaveLength(0);
  });

  it("exits 2 on an invalid variable, masking secrets", async () => {
    const t = terminal({ ...env(), PORT: "x", CHATBOT_API_URL: "not a url" });
    expect(await run(["ask", "hi"], t.io)).toBe(2);
    expect(t.err()).toContain('PORT="x"');
    expect(t.err()).toContain("CHATBOT_API_URL=");
  });

  it("exits 2 on bad usage", async () => {
    for (const args of [["ask", "--nope"], ["ask", "--session", "abc", "hi"], ["frobnicate"], []]) {
      const t = terminal(env());
      expect(await run(args, t.io)).toBe(2);
      expect(t.err() + t.out()).not.toBe("");
    }
  });

  it("prints help with exit 0", async () => {
    for (const args of [["--help"], ["ask", "--help"], ["start", "--help"], ["api", "-h"]]) {
      const t = terminal({});
      expect(await run(args, t.io)).toBe(0);
      expect(t.out()).toContain("Usage: chatbridge");
    }
  });

  it("start with a remote API exits 2 naming the missing credentials", async () => {
    const t = terminal({ CHATBOT_API_URL: api.url, STORE_URL: "memory://" });
    expect(await run(["start"], t.io)).toBe(2);
    expect(t.err()).toContain("CHATBOT_API_KEY");
    expect(t.err()).toContain("CHATBOT_SERIAL_NUMBER");
  });
});
