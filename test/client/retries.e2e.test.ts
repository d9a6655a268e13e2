import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ChatbotClient } from "../../src/client/index.js";
import { parseRetryAfter, retryDelay } from "../../src/client/retry.js";
import { FakeChatbotApi, sendEnvelope } from "../upstream/fake-chatbot-api.js";

const retry = { attempts: 3, baseDelayMs: 50, maxDelayMs: 200 };
let api: FakeChatbotApi;
let client: ChatbotClient;

beforeEach(async () => {
  api = await FakeChatbotApi.start();
  client = new ChatbotClient({ baseUrl: api.url, apiKey: "k", sessionKey: "s", timeoutMs: 300, retry });
});
afterEach(async () => {
  await client.close();
  await api.close();
});

/** Fails the first `failures` requests with `fail`, then answers `data`. */
function flaky(failures: number, fail: Parameters<typeof sendEnvelope>[2], data: unknown) {
  let seen = 0;
  return (_req: unknown, res: Parameters<typeof sendEnvelope>[0]) => {
    seen++;
    if (seen <= failures) sendEnvelope(res, null, fail);
    else sendEnvelope(res, data);
  };
}

describe("retries", () => {
  it("retries a read after 503s and succeeds", async () => {
    api.route("POST", "/chat/Chatbot/RealEstateList", flaky(2, { status: 503 }, { List: [], VirtualCount: 0 }));
    expect(await client.listListings({ SerialNumber: "b" })).toEqual({ List: [], VirtualCount: 0 });
    expect(api.requestsTo("/chat/Chatbot/RealEstateList")).toHaveLength(3);
  });

  it("gives up on a read after the configured attempts", async () => {
    api.route("GET", "/chat/Chatbot/ModelList", flaky(10, { status: 500, message: "down" }, []));
    await expect(client.listModels()).rejects.toMatchObject({ kind: "http", status: 500, message: "ModelList: down" });
    expect(api.requestsTo("/chat/Chatbot/ModelList")).toHaveLength(3);
  });

  it("retries a read that timed out", async () => {
    let seen = 0;
    api.route("POST", "/chat/Chatbot/ChatContentHistory", (_req, res) => {
      if (++seen === 2) sendEnvelope(res, []);
    });
    expect(await client.chatHistory({ SerialNumber: "b" })).toEqual([]);
    expect(seen).toBe(2);
  });

  it("waits for Retry-After on 429 before reading again", async () => {
    api.route(
      "POST",
      "/chat/Chatbot/RealEstateList",
      flaky(1, { status: 429, headers: { "retry-after": "1" } }, { List: [], VirtualCount: 0 }),
    );
    const started = Date.now();
    await client.listListings({ SerialNumber: "b" });
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
  });

  it("never repeats a write that reached the server", async () => {
    api.route("POST", "/chat/Chat/ClientAsk", flaky(1, { status: 503 }, { messageid: 1, content: "x", totalToken: 1 }));
    await expect(client.ask({ sessionId: 1, content: "hi" })).rejects.toMatchObject({ status: 503 });
    expect(api.requestsTo("/chat/Chat/ClientAsk")).toHaveLength(1);
    api.route("POST", "/chat/Chatbot/RealEstateCreate", () => {});
    await expect(client.createListing({} as never)).rejects.toMatchObject({ kind: "timeout" });
    expect(api.requestsTo("/chat/Chatbot/RealEstateCreate")).toHaveLength(1);
  });

  it("repeats a write whose connection was refused, since it never left", async () => {
    const port = api.port;
    await api.close();
    const reopened = (async () => {
      await new Promise((r) => setTimeout(r, 60));
      api = await FakeChatbotApi.start(port);
      api.route("POST", "/chat/Chat/ClientAsk", (_req, res) =>
        sendEnvelope(res, { messageid: 1, content: "back", totalToken: 1, noAnswer: false }),
      );
    })();
    const patient = new ChatbotClient({
      baseUrl: `http://127.0.0.1:${port}`,
      apiKey: "k",
      retry: { attempts: 6, baseDelayMs: 40, maxDelayMs: 200 },
    });
    const answer = await patient.ask({ sessionId: 1, content: "hi" });
    await reopened;
    expect(answer.content).toBe("back");
    expect(api.requestsTo("/chat/Chat/ClientAsk")).toHaveLength(1);
    await patient.close();
  });

  it("a refused connection that stays refused ends as a connection error", async () => {
    const port = api.port;
    await api.close();
    const lonely = new ChatbotClient({ baseUrl: `http://127.0.0.1:${port}`, apiKey: "k", retry });
    await expect(lonely.ask({ sessionId: 1, content: "hi" })).rejects.toMatchObject({
      kind: "connection",
      message: expect.stringContaining("ECONNREFUSED"),
    });
    await lonely.close();
    api = await FakeChatbotApi.start();
  });
});

describe("backoff", () => {
  it("grows exponentially with jitter and respects the ceiling and Retry-After", () => {
    const policy = { attempts: 5, baseDelayMs: 100, maxDelayMs: 1000 };
    expect(retryDelay(policy, 0, undefined, () => 0)).toBe(50);
    expect(retryDelay(policy, 0, undefined, () => 1)).toBe(100);
    expect(retryDelay(policy, 2, undefined, () => 1)).toBe(400);
    expect(retryDelay(policy, 6, undefined, () => 1)).toBe(1000);
    expect(retryDelay(policy, 0, 3000, () => 1)).toBe(3000);
  });

  it("reads Retry-After as seconds or as a date", () => {
    expect(parseRetryAfter("2")).toBe(2000);
    expect(parseRetryAfter(new Date(10_000).toUTCString(), 4_000)).toBe(6000);
    expect(parseRetryAfter("soon")).toBeUndefined();
    expect(parseRetryAfter(undefined)).toBeUndefined();
  });
});
