import { describe, expect, it } from "vitest";
import {
  type ApiHarness,
  availableBackends,
  expectFailure,
  expectSuccess,
  sampleListing,
  useApiHarness,
} from "../../support/api-harness.js";

const EDIT = "/chat/Chatbot/Edit";
const GET = "/chat/Chatbot/Get";

/** A value for every editable setting of the spec's table, none of them a default. */
const EVERY_SETTING = {
  Name: "Harbor & Pine",
  Model: "1",
  SystemMessage: "Answer in one sentence.",
  Temperature: 7,
  TimeZone: "Europe/Madrid",
  AnswerSuffix: " (bot)",
  ChatProfilePicture: "34327",
  ChatIcon: "34328",
  ChatBubbleAlign: 1,
  ChatBubbleColor: "rgb(10, 20, 30)",
  ChatbotPopupOnce: true,
  ChatbotPrivacyPolicyDescription: "We keep chats for 30 days.",
  ChatbotPrivacyPolicyName: "privacy policy",
  ChatbotPrivacyPolicyUrl: "https://example.com/privacy",
  EnablePushToTalk: true,
  EnableUploadImage: false,
  FacebookUrl: "https://facebook.com/harbor",
  InstagramUrl: "https://instagram.com/harbor",
  WhatsappUrl: "https://wa.me/15550100",
  RemoveChatLogOnBrowserClose: true,
  SuggestedMessage: "Homes in Austin\nRentals in Denver",
  TalkToHumanEmail: "agents@example.com",
  TalkToHumanResponseMessage: "An agent will write to you.",
  UserInputPlaceholder: "Type here",
  UserMessageColor: "rgb(0,0,0)",
  WelcomeMessage: "Welcome to Harbor & Pine!",
  VerifyDomain: true,
  Domains: "example.com,www.example.com",
  CustomDomain: "chat.example.com",
  RateLimitCount: 50,
  RateLimitTime: 120,
  RateLimitMessage: "Easy there!",
  EmailForDailyChatLogs: "logs@example.com",
  EmailForDailyLeads: "leads@example.com",
  AIResponseLanguage: "Spanish",
  MessageLimit: 1000,
};

async function settingsOf(api: ApiHarness, serialNumber: string) {
  const response = await api.call(GET, { serialNumber }, api.a.secret);
  expectSuccess(response);
  return response.body.Data as Record<string, unknown>;
}

describe.each(await availableBackends())("chatbots (%s)", (backend) => {
  const api = useApiHarness(backend);

  it("Add returns the new chatbot's serial number, with default settings", async () => {
    const response = await api.call("/chat/Chatbot/Add", { timeZone: "Asia/Shanghai", type: 0 }, api.a.secret);
    expectSuccess(response);
    const serial = response.body.Data as string;
    expect(serial).toMatch(/^[0-9a-f]{32}$/);
    expect(serial).not.toBe(api.a.serialNumber);
    const settings = await settingsOf(api, serial);
    expect(settings).toMatchObject({ serialNumber: serial, TimeZone: "Asia/Shanghai", MessageLimit: -1, Model: "1" });
    expect(Object.keys(settings).sort()).toEqual(["serialNumber", ...Object.keys(EVERY_SETTING)].sort());
  });

  it("Add validates its fields", async () => {
    const cases: [unknown, string | RegExp][] = [
      [{ type: 0 }, "Invalid request: timeZone is required"],
      [
        { timeZone: "Mars/Olympus", type: 0 },
        "Invalid request: timeZone must be an IANA time zone such as America/New_York",
      ],
      [{ timeZone: "UTC", type: 1 }, "Invalid request: type must be 0 (generic chatbot)"],
      [{ timeZone: "UTC" }, "Invalid request: type is required"],
      [{}, "Invalid request: timeZone is required; type is required"],
    ];
    for (const [body, message] of cases) {
      expectFailure(await api.call("/chat/Chatbot/Add", body, api.a.secret), 400, message);
    }
  });

  it("Edit changes every setting and answers Data 1; Get (extension) shows them", async () => {
    const serial = await api.addChatbot(api.a);
    expectSuccess(await api.call(EDIT, { serialNumber: serial, ...EVERY_SETTING }, api.a.secret), 1);
    expect(await settingsOf(api, serial)).toEqual({ serialNumber: serial, ...EVERY_SETTING });
    // Get takes the session key too.
    const bySession = await api.call(GET, { serialNumber: serial }, api.a.session);
    expectSuccess(bySession, { serialNumber: serial, ...EVERY_SETTING });
  });

  it("Edit leaves omitted settings as they were", async () => {
    const serial = await api.addChatbot(api.a, EVERY_SETTING);
    expectSuccess(await api.call(EDIT, { serialNumber: serial, Name: "Renamed", MessageLimit: -1 }, api.a.secret), 1);
    expect(await settingsOf(api, serial)).toEqual({
      serialNumber: serial,
      ...EVERY_SETTING,
      Name: "Renamed",
      MessageLimit: -1,
    });
    // Only the named chatbot changed.
    expect((await settingsOf(api, api.a.serialNumber)).Name).not.toBe("Renamed");
  });

  it("accepts field names in other letter cases, and refuses one given twice", async () => {
    const serial = await api.addChatbot(api.a);
    expectSuccess(await api.call(EDIT, { serialnumber: serial, name: "lower case" }, api.a.secret), 1);
    expect((await settingsOf(api, serial)).Name).toBe("lower case");
    expectSuccess(await api.call(EDIT, { SERIALNUMBER: serial, WELCOMEMESSAGE: "Upper" }, api.a.secret), 1);
    expect((await settingsOf(api, serial)).WelcomeMessage).toBe("Upper");
    expectSuccess(await api.call(GET, { SerialNumber: serial }, api.a.secret));
    const twice = await api.call(EDIT, { serialNumber: serial, serialnumber: serial }, api.a.secret);
    expectFailure(twice, 400, "Invalid request: serialNumber is given twice (as serialNumber and serialnumber)");
  });

  it("Edit validates each setting, naming the field and the problem, and changes nothing", async () => {
    const serial = await api.addChatbot(api.a);
    const before = await settingsOf(api, serial);
    const colour = "must be a colour like rgb(37,99,235) with values from 0 to 255";
    const cases: [Record<string, unknown>, string | RegExp][] = [
      [{ Name: "x" }, "serialNumber is required"],
      [{ serialNumber: 42 }, "serialNumber must be a string, not a number"],
      [{ serialNumber: null }, "serialNumber must be a string, not null"],
      [{ serialNumber: serial, ChatBubbleColor: "rgb(300,0,0)" }, `ChatBubbleColor ${colour}`],
      [{ serialNumber: serial, UserMessageColor: "#ffffff" }, `UserMessageColor ${colour}`],
      [{ serialNumber: serial, TalkToHumanEmail: "not-an-email" }, "TalkToHumanEmail must be an e-mail address"],
      [{ serialNumber: serial, EmailForDailyLeads: "a@" }, "EmailForDailyLeads must be an e-mail address"],
      [{ serialNumber: serial, FacebookUrl: "facebook.com/harbor" }, "FacebookUrl must be an http(s) URL"],
      [{ serialNumber: serial, ChatbotPrivacyPolicyUrl: "javascript:alert(1)" }, /^ChatbotPrivacyPolicyUrl must be/],
      [{ serialNumber: serial, Temperature: 11 }, "Temperature must be a whole number from 0 to 10"],
      [{ serialNumber: serial, Temperature: -1 }, "Temperature must be a whole number from 0 to 10"],
      [{ serialNumber: serial, Temperature: 0.5 }, "Temperature must be a whole number from 0 to 10"],
      [{ serialNumber: serial, Temperature: "5" }, "Temperature must be a whole number from 0 to 10, not a string"],
      [{ serialNumber: serial, ChatBubbleAlign: 2 }, "ChatBubbleAlign must be 0 or 1"],
      [{ serialNumber: serial, ChatbotPopupOnce: "yes" }, "ChatbotPopupOnce must be true or false, not a string"],
      [{ serialNumber: serial, TimeZone: "Nowhere/City" }, /^TimeZone must be an IANA time zone/],
      [{ serialNumber: serial, RateLimitTime: 0 }, "RateLimitTime must be a whole number from 1 to 2,678,400"],
      [{ serialNumber: serial, MessageLimit: -2 }, "MessageLimit must be a whole number from -1 to 100,000,000"],
      [{ serialNumber: serial, Name: "" }, "Name must not be empty"],
      [
        { serialNumber: serial, Model: "999" },
        /^Model must be the Key of a model ModelList shows as available: 1 \(.+\)$/,
      ],
      [
        { serialNumber: serial, Model: "2" },
        /^Model must be the Key of a model ModelList shows as available: 1 \(.+\)$/,
      ],
    ];
    for (const [body, problem] of cases) {
      const message =
        typeof problem === "string"
          ? `Invalid request: ${problem}`
          : new RegExp(`^Invalid request: ${problem.source.slice(1)}`);
      expectFailure(await api.call(EDIT, body, api.a.secret), 400, message);
    }
    // Every problem of one request in one answer, the unavailable model among them.
    const several = { serialNumber: serial, Name: "", Temperature: "hot", Model: "2", ChatBubbleAlign: 3 };
    expectFailure(
      await api.call(EDIT, several, api.a.secret),
      400,
      /^Invalid request: Name must not be empty; Model must be the Key of a model ModelList shows as available: 1 \(.+\); Temperature must be a whole number from 0 to 10, not a string; ChatBubbleAlign must be 0 or 1$/,
    );
    expect(await settingsOf(api, serial)).toEqual(before);
  });

  it("ModelList lists the models as {Key, Value, Status}; Edit takes an available Key", async () => {
    const response = await api.call("/chat/Chatbot/ModelList", undefined, api.a.secret, { method: "GET" });
    expectSuccess(response);
    const models = response.body.Data as { Key: string; Value: string; Status: boolean }[];
    for (const model of models) {
      expect(Object.keys(model).sort()).toEqual(["Key", "Status", "Value"]);
      expect(model).toEqual({ Key: expect.any(String), Value: expect.any(String), Status: expect.any(Boolean) });
    }
    const available = models.filter((model) => model.Status).map((model) => model.Key);
    const unavailable = models.filter((model) => !model.Status).map((model) => model.Key);
    expect(available).toContain("1");
    expect(unavailable).toContain("2"); // no LLM configured in the tests
    const serial = await api.addChatbot(api.a);
    expect((await settingsOf(api, serial)).Model).toBe("1");
    expectSuccess(await api.call(EDIT, { serialNumber: serial, Model: available[0] }, api.a.secret), 1);
    expect(await api.call("/chat/Chatbot/ModelList", undefined, api.a.session, { method: "GET" })).toMatchObject({
      status: 401,
    });
  });

  it("GetSession returns {SessionID}, a new integer each time", async () => {
    const first = await api.call("/chat/Chatbot/GetSession", { serialNumber: api.a.serialNumber }, api.a.secret);
    expectSuccess(first);
    expect(Object.keys(first.body.Data)).toEqual(["SessionID"]);
    expect(Number.isSafeInteger(first.body.Data.SessionID)).toBe(true);
    expect(first.body.Data.SessionID).toBeGreaterThan(0);
    const second = await api.call("/chat/Chatbot/GetSession", { SerialNumber: api.a.serialNumber }, api.a.secret);
    expectSuccess(second);
    expect(second.body.Data.SessionID).not.toBe(first.body.Data.SessionID);
    const stored = await api.store.sessions.byId(second.body.Data.SessionID);
    expect(stored?.chatbotId).toBe((await api.store.chatbots.bySerialNumber(api.a.serialNumber))?.id);
    expectFailure(
      await api.call("/chat/Chatbot/GetSession", {}, api.a.secret),
      400,
      "Invalid request: serialNumber is required",
    );
  });

  it("Remove deletes the chatbot with its listings and sessions; then everything about it is a 404", async () => {
    const serial = await api.addChatbot(api.a);
    const listed = await api.call("/chat/Chatbot/RealEstateCreate", sampleListing(serial), api.a.secret);
    expectSuccess(listed);
    const session = await api.openSession(api.a, serial);
    const chatbotId = (await api.store.chatbots.bySerialNumber(serial))?.id ?? -1;
    expect(await api.store.listings.count(chatbotId)).toBe(1);
    // Another workspace cannot remove it.
    expectFailure(
      await api.call("/chat/Chatbot/Remove", { serialNumber: serial }, api.b.secret),
      404,
      `Chatbot ${serial} not found`,
    );
    expectSuccess(await api.call("/chat/Chatbot/Remove", { serialNumber: serial }, api.a.secret), null);
    const gone = `Chatbot ${serial} not found`;
    expectFailure(await api.call(GET, { serialNumber: serial }, api.a.secret), 404, gone);
    expectFailure(await api.call("/chat/Chatbot/Remove", { serialNumber: serial }, api.a.secret), 404, gone);
    expectFailure(await api.call("/chat/Chatbot/GetSession", { serialNumber: serial }, api.a.secret), 404, gone);
    expectFailure(await api.call("/chat/Chatbot/RealEstateList", { SerialNumber: serial }, api.a.session), 404, gone);
    const ask = await api.call("/chat/Chat/ClientAsk", { sessionID: session, content: "hi" }, api.a.secret);
    expectFailure(ask, 404, `Session ${session} not found; create one with GetSession`);
    expect(await api.store.listings.count(chatbotId)).toBe(0);
    expect(await api.store.sessions.byId(session)).toBeUndefined();
  });
});
