import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { ListingInput } from "../../src/api/types.js";
import { ChatbotApiError, ChatbotClient } from "../../src/client/index.js";
import { FakeChatbotApi, sendEnvelope } from "../upstream/fake-chatbot-api.js";

let api: FakeChatbotApi;
let client: ChatbotClient;

beforeAll(async () => {
  api = await FakeChatbotApi.start();
  client = new ChatbotClient({ baseUrl: api.url, apiKey: "secret-key", sessionKey: "session-key", timeoutMs: 2000 });
});
afterEach(() => {
  api.requests.length = 0;
});
afterAll(async () => {
  await client.close();
  await api.close();
});

const listing: ListingInput = {
  SerialNumber: "bot-1",
  SaleType: "for_sale",
  Status: "Active",
  CurrencySymbol: "$",
  PropertyType: "Condo",
  Bedrooms: 2,
  Bathrooms: 1.5,
  Url: "https://example.com/l/1",
  MLSNumber: "MLS1",
  YearBuilt: 2001,
  DaysOnMarket: 3,
  LotArea: 0,
  BuildingArea: 900,
  AreaUnit: "Square Feet",
  ParkingSpots: 1,
};

describe("operations", () => {
  it("edits settings with the secret key and the JSON content type", async () => {
    api.route("POST", "/chat/Chatbot/Edit", (_req, res) => sendEnvelope(res, 1));
    await client.editChatbot("bot-1", { Name: "Ada", Temperature: 1 });
    const [request] = api.requestsTo("/chat/Chatbot/Edit");
    expect(request?.headers.authorization).toBe("secret-key");
    expect(request?.headers["chatrobot-sessionkey"]).toBeUndefined();
    expect(request?.headers["content-type"]).toBe("application/json");
    expect(request?.body).toEqual({ serialNumber: "bot-1", Name: "Ada", Temperature: 1 });
  });

  it("creates a session and reads Data.SessionID, also when it is a numeric string", async () => {
    api.route("POST", "/chat/Chatbot/GetSession", (_req, res) => sendEnvelope(res, { SessionID: 123456 }));
    expect(await client.createSession("bot-1")).toBe(123456);
    expect(api.requestsTo("/chat/Chatbot/GetSession")[0]?.body).toEqual({ serialNumber: "bot-1" });
    api.route("POST", "/chat/Chatbot/GetSession", (_req, res) => sendEnvelope(res, { sessionId: "77" }));
    expect(await client.createSession("bot-1")).toBe(77);
  });

  it("asks without streaming and maps the answer", async () => {
    api.route("POST", "/chat/Chat/ClientAsk", (_req, res) =>
      sendEnvelope(res, { messageid: 375561, content: "Hello!", totalToken: 4337, noAnswer: false }),
    );
    const answer = await client.ask({ sessionId: 9, content: "hi" });
    expect(answer).toEqual({ messageId: 375561, content: "Hello!", totalToken: 4337, noAnswer: false });
    expect(api.requestsTo("/chat/Chat/ClientAsk")[0]?.body).toEqual({
      sessionID: 9,
      content: "hi",
      chatAskType: "Text",
      stream: false,
      fileIds: null,
    });
  });

  it("sends fileIds and the ask type for media", async () => {
    api.route("POST", "/chat/Chat/ClientAsk", (_req, res) =>
      sendEnvelope(res, { messageid: 1, content: "A house", totalToken: 3, noAnswer: false }),
    );
    await client.ask({ sessionId: 9, content: "", chatAskType: "Image", fileIds: [5, 6] });
    expect(api.requestsTo("/chat/Chat/ClientAsk")[0]?.body).toMatchObject({ chatAskType: "Image", fileIds: [5, 6] });
  });

  it("sends every configured credential to the real-estate writes and returns their results", async () => {
    api.route("POST", "/chat/Chatbot/RealEstateCreate", (_req, res) => sendEnvelope(res, "1001"));
    api.route("POST", "/chat/Chatbot/RealEstateUpdate", (_req, res) => sendEnvelope(res, 1));
    api.route("POST", "/chat/Chatbot/RealEstateDelete", (_req, res) => sendEnvelope(res, { SuccessCount: 2 }));
    expect(await client.createListing(listing)).toBe("1001");
    expect(await client.updateListing({ ...listing, Key: "1001", KeyType: "NewOaks" })).toBe(1);
    expect(await client.deleteListings({ SerialNumber: "bot-1", Keys: ["1001", "x"], KeyType: "NewOaks" })).toBe(2);
    for (const request of api.requests) {
      expect(request.headers.authorization).toBe("secret-key");
      expect(request.headers["chatrobot-sessionkey"]).toBe("session-key");
    }
    expect(api.requestsTo("/chat/Chatbot/RealEstateUpdate")[0]?.body).toMatchObject({
      Key: "1001",
      KeyType: "NewOaks",
    });
  });

  it("lists listings with the session key only", async () => {
    api.route("POST", "/chat/Chatbot/RealEstateList", (_req, res) =>
      sendEnvelope(res, { List: [{ ID: 1, City: "Austin", Price: "500000" }], VirtualCount: 31 }),
    );
    const page = await client.listListings({ SerialNumber: "bot-1", CityName: "Austin", PageSize: 1 });
    expect(page.VirtualCount).toBe(31);
    expect(page.List[0]?.City).toBe("Austin");
    const [request] = api.requestsTo("/chat/Chatbot/RealEstateList");
    expect(request?.headers["chatrobot-sessionkey"]).toBe("session-key");
    expect(request?.headers.authorization).toBeUndefined();
    expect(request?.body).toEqual({ SerialNumber: "bot-1", CityName: "Austin", PageSize: 1 });
  });

  it("refuses an operation whose credential is not configured, without sending anything", async () => {
    const keyless = new ChatbotClient({ baseUrl: api.url, apiKey: "secret-key" });
    const error = await keyless.listListings({ SerialNumber: "bot-1" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ChatbotApiError);
    expect(error).toMatchObject({ kind: "config", operation: "RealEstateList" });
    expect((error as Error).message).toContain("CHATBOT_SESSION_KEY");
    expect(api.requests).toHaveLength(0);
    await keyless.close();
  });

  it("lists models with GET and no body", async () => {
    api.route("GET", "/chat/Chatbot/ModelList", (_req, res) =>
      sendEnvelope(res, [
        { Key: "2", Value: "gpt-4o", Status: true },
        { Key: "22", Value: "claude-3.5-sonnet", Status: false },
      ]),
    );
    expect(await client.listModels()).toEqual([
      { Key: "2", Value: "gpt-4o", Status: true },
      { Key: "22", Value: "claude-3.5-sonnet", Status: false },
    ]);
    expect(api.requestsTo("/chat/Chatbot/ModelList")[0]?.raw.length).toBe(0);
  });

  it("adds and removes a chatbot, and reads the history", async () => {
    api.route("POST", "/chat/Chatbot/Add", (_req, res) => sendEnvelope(res, "3254a9d0"));
    api.route("POST", "/chat/Chatbot/Remove", (_req, res) => sendEnvelope(res, undefined));
    const history = [
      { SessionID: 1, CreateTime: "2026-01-01T00:00:00Z", URI: "", Messages: [{ Type: "User", Content: "hi" }] },
    ];
    api.route("POST", "/chat/Chatbot/ChatContentHistory", (_req, res) => sendEnvelope(res, history));
    expect(await client.addChatbot({ timeZone: "America/New_York" })).toBe("3254a9d0");
    expect(api.requestsTo("/chat/Chatbot/Add")[0]?.body).toEqual({ type: 0, timeZone: "America/New_York" });
    await client.removeChatbot("3254a9d0");
    expect(await client.chatHistory({ SerialNumber: "3254a9d0", StartTime: "2026-01-01" })).toEqual(history);
  });

  it("reads one chatbot's settings through the server's Get extension", async () => {
    api.route("POST", "/chat/Chatbot/Get", (_req, res) =>
      sendEnvelope(res, { serialNumber: "bot-1", WelcomeMessage: "Hello!", SuggestedMessage: "a\nb" }),
    );
    expect(await client.getChatbot("bot-1")).toEqual({
      serialNumber: "bot-1",
      WelcomeMessage: "Hello!",
      SuggestedMessage: "a\nb",
    });
    expect(api.requestsTo("/chat/Chatbot/Get")[0]?.body).toEqual({ serialNumber: "bot-1" });
  });

  it("lists leads and records a handoff (the server's LeadAdd extension) with the secret key", async () => {
    const lead = {
      Type: "Handoff",
      Name: "Jane",
      Email: "jane@example.com",
      Content: "Talk to an agent",
      SessionID: 9,
      CreateTime: "2026-05-01T14:00:00.000Z",
    };
    api.route("POST", "/chat/Chatbot/LeadList", (_req, res) => sendEnvelope(res, [lead]));
    api.route("POST", "/chat/Chatbot/LeadAdd", (_req, res) => sendEnvelope(res, lead));

    expect(await client.listLeads({ serialNumber: "bot-1", startTime: "2026-05-01", sessionID: 9 })).toEqual([lead]);
    expect(
      await client.addLead({ serialNumber: "bot-1", sessionID: 9, Name: "Jane", Email: "jane@example.com" }),
    ).toEqual(lead);

    const [list] = api.requestsTo("/chat/Chatbot/LeadList");
    expect(list?.body).toEqual({ serialNumber: "bot-1", startTime: "2026-05-01", sessionID: 9 });
    const [add] = api.requestsTo("/chat/Chatbot/LeadAdd");
    expect(add?.headers.authorization).toBe("secret-key");
    expect(add?.body).toEqual({
      Type: "Handoff",
      serialNumber: "bot-1",
      sessionID: 9,
      Name: "Jane",
      Email: "jane@example.com",
    });
    api.route("POST", "/chat/Chatbot/LeadList", (_req, res) => sendEnvelope(res, [lead, "not a lead"]));
    await expect(client.listLeads({ serialNumber: "bot-1" })).rejects.toMatchObject({ kind: "malformed" });
  });

  it("uploads in three steps, sending no credential to the upload URL", async () => {
    api.route("POST", "/chat/User/GetPreUploadUrl", (_req, res) =>
      sendEnvelope(res, { FileStoreId: "34317", PreUploadUrl: `${api.url}/uploads/abc?X-Amz-Expires=600&sig=1` }),
    );
    api.route("PUT", "/uploads/abc", (_req, res) => res.writeHead(200).end());
    api.route("POST", "/chat/User/UploadSuccess", (_req, res) => sendEnvelope(res, true));
    const bytes = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]);
    expect(await client.uploadFile({ fileName: "house.png", bytes, contentType: "image/png" })).toBe(34317);
    expect(api.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      "POST /chat/User/GetPreUploadUrl",
      "PUT /uploads/abc",
      "POST /chat/User/UploadSuccess",
    ]);
    const [, put, confirm] = api.requests;
    expect(put?.headers.authorization).toBeUndefined();
    expect(put?.headers["chatrobot-sessionkey"]).toBeUndefined();
    expect(put?.headers["content-type"]).toBe("image/png");
    expect([...(put?.raw ?? [])]).toEqual([...bytes]);
    expect(confirm?.body).toEqual({ FileStoreId: "34317" });
    expect(api.requestsTo("/chat/User/GetPreUploadUrl")[0]?.body).toEqual({ fileName: "house.png" });
  });

  it("uses the configured confirmation path", async () => {
    const custom = new ChatbotClient({ baseUrl: api.url, apiKey: "k", uploadConfirmPath: "/chat/User/ConfirmUpload" });
    api.route("POST", "/chat/User/GetPreUploadUrl", (_req, res) =>
      sendEnvelope(res, { FileStoreId: 8, PreUploadUrl: `${api.url}/uploads/x` }),
    );
    api.route("PUT", "/uploads/x", (_req, res) => res.writeHead(200).end());
    api.route("POST", "/chat/User/ConfirmUpload", (_req, res) => sendEnvelope(res, true));
    expect(await custom.uploadFile({ fileName: "a.wav", bytes: new Uint8Array([1]) })).toBe(8);
    expect(api.requestsTo("/chat/User/ConfirmUpload")).toHaveLength(1);
    await custom.close();
  });

  it("keeps connections alive across calls", async () => {
    api.route("POST", "/chat/Chatbot/Edit", (_req, res) => sendEnvelope(res, 1));
    const before = api.connections;
    for (let i = 0; i < 5; i++) await client.editChatbot("bot-1", {});
    expect(api.connections - before).toBeLessThanOrEqual(1);
  });

  it("honours a base URL with a path prefix", async () => {
    const prefixed = new ChatbotClient({ baseUrl: `${api.url}/tenant-a`, apiKey: "k" });
    api.route("POST", "/tenant-a/chat/Chatbot/GetSession", (_req, res) => sendEnvelope(res, { SessionID: 5 }));
    expect(await prefixed.createSession("bot")).toBe(5);
    await prefixed.close();
  });
});

describe("failures are ChatbotApiErrors that say what happened", () => {
  it("HTTP 401 with an envelope carries status, Code and Message", async () => {
    api.route("POST", "/chat/Chatbot/Edit", (_req, res) =>
      sendEnvelope(res, null, { status: 401, message: "Invalid API key" }),
    );
    await expect(client.editChatbot("bot-1", {})).rejects.toMatchObject({
      name: "ChatbotApiError",
      operation: "Edit",
      kind: "http",
      status: 401,
      code: 401,
      message: "Edit: Invalid API key",
    });
  });

  it("HTTP 404 and 500 without an envelope quote the body", async () => {
    api.route("POST", "/chat/Chatbot/Edit", (_req, res) => res.writeHead(404).end("<html>Not Found</html>"));
    await expect(client.editChatbot("bot-1", {})).rejects.toMatchObject({ kind: "http", status: 404, code: undefined });
    api.route("POST", "/chat/Chatbot/Edit", (_req, res) => res.writeHead(500).end("Internal error"));
    const error = (await client.editChatbot("bot-1", {}).catch((e: unknown) => e)) as ChatbotApiError;
    expect(error.status).toBe(500);
    expect(error.message).toContain("Internal error");
  });

  it("Success false with HTTP 200 is an envelope error", async () => {
    api.route("POST", "/chat/Chatbot/Edit", (_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        JSON.stringify({ Data: null, Version: "1.0.0", Success: false, Code: 404, Message: "Chatbot not found" }),
      );
    });
    await expect(client.editChatbot("bot-1", {})).rejects.toMatchObject({
      kind: "envelope",
      status: 200,
      code: 404,
      message: "Edit: Chatbot not found",
    });
  });

  it("a body that is not JSON, or not an envelope, is malformed", async () => {
    api.route("POST", "/chat/Chatbot/Edit", (_req, res) => res.writeHead(200).end("<html>proxy login</html>"));
    await expect(client.editChatbot("bot-1", {})).rejects.toMatchObject({ kind: "malformed" });
    api.route("POST", "/chat/Chatbot/Edit", (_req, res) => res.writeHead(200).end('{"ok":true}'));
    await expect(client.editChatbot("bot-1", {})).rejects.toMatchObject({ kind: "malformed" });
  });

  it("Data of the wrong shape is malformed, naming the field", async () => {
    api.route("POST", "/chat/Chatbot/GetSession", (_req, res) => sendEnvelope(res, { SessionID: "abc" }));
    const error = (await client.createSession("bot-1").catch((e: unknown) => e)) as ChatbotApiError;
    expect(error.kind).toBe("malformed");
    expect(error.message).toContain("Data.SessionID");
  });

  it("a server that never answers times out", async () => {
    const quick = new ChatbotClient({ baseUrl: api.url, apiKey: "k", timeoutMs: 200 });
    api.route("POST", "/chat/Chatbot/Edit", () => {});
    const started = Date.now();
    await expect(quick.editChatbot("bot-1", {})).rejects.toMatchObject({ kind: "timeout", operation: "Edit" });
    expect(Date.now() - started).toBeLessThan(1500);
    expect(api.requestsTo("/chat/Chatbot/Edit")).toHaveLength(1);
    await quick.close();
  });

  it("a connection reset is a connection error", async () => {
    api.route("POST", "/chat/Chatbot/Edit", (req, res) => {
      void req;
      res.socket?.destroy();
    });
    await expect(client.editChatbot("bot-1", {})).rejects.toMatchObject({ kind: "connection", operation: "Edit" });
  });
});
