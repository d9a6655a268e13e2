import { describe, expect, it } from "vitest";
import { LISTING_VISIT, listingVisitContent } from "../../../src/api/listing-visit.js";
import { ChatbotApiError } from "../../../src/client/index.js";
import {
  type ApiHarness,
  availableBackends,
  expectFailure,
  expectSuccess,
  type Tenant,
  useApiHarness,
} from "../../support/api-harness.js";

const LIST = "/chat/Chatbot/LeadList";
const ADD = "/chat/Chatbot/LeadAdd";
const ASK = "/chat/Chat/ClientAsk";
const DAY_MS = 86_400_000;
const utcDay = (offsetDays = 0) => new Date(Date.now() + offsetDays * DAY_MS).toISOString().slice(0, 10);

async function leads(api: ApiHarness, t: Tenant, query: Record<string, unknown>) {
  const response = await api.call(LIST, query, t.secret);
  expectSuccess(response);
  return response.body.Data as Record<string, unknown>[];
}

describe.each(await availableBackends())("leads (%s)", (backend) => {
  const api = useApiHarness(backend);

  it("LeadAdd records a handoff and answers it as LeadList shows it", async () => {
    const serialNumber = await api.addChatbot(api.a);
    const sessionID = await api.openSession(api.a, serialNumber);
    const body = {
      serialNumber,
      sessionID,
      Type: "Handoff",
      Name: "Jane Doe",
      Email: "jane@example.com",
      Phone: "+1 512 555 0100",
      Content: "I'd like to talk to an agent about 12 Oak St",
    };
    const added = await api.call(ADD, body, api.a.secret);
    expectSuccess(added, {
      Type: "Handoff",
      Name: "Jane Doe",
      Email: "jane@example.com",
      Phone: "+1 512 555 0100",
      Content: "I'd like to talk to an agent about 12 Oak St",
      SessionID: sessionID,
      CreateTime: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
    });
    // Without a session, a name or contact details: still a lead, without Email and Phone fields.
    const bare = await api.call(ADD, { serialNumber, type: "Handoff", content: "Call me back" }, api.a.secret);
    expectSuccess(bare);
    expect(bare.body.Data).toEqual({
      Type: "Handoff",
      Name: "",
      Content: "Call me back",
      SessionID: null,
      CreateTime: expect.any(String),
    });

    // A listing link's visit, as the bridge records it.
    const content = listingVisitContent("TX-1001", "telegram");
    const visit = await api.call(ADD, { serialNumber, sessionID, Type: LISTING_VISIT, Content: content }, api.a.secret);
    expectSuccess(visit, {
      Type: "ListingVisit",
      Name: "",
      Content: content,
      SessionID: sessionID,
      CreateTime: expect.any(String),
    });

    expect(await leads(api, api.a, { serialNumber })).toEqual([added.body.Data, bare.body.Data, visit.body.Data]);
  });

  it("LeadAdd records a request for a viewing as a Viewing lead", async () => {
    const serialNumber = await api.addChatbot(api.a);
    const sessionID = await api.openSession(api.a, serialNumber);
    const body = {
      serialNumber,
      sessionID,
      Type: "Viewing",
      Name: "Ana",
      Phone: "+34 600 123 456",
      Content: "Viewing of MLS TX-1001 (12 Oak St): Saturday at 10am",
    };
    const added = await api.call(ADD, body, api.a.secret);
    expectSuccess(added, {
      Type: "Viewing",
      Name: "Ana",
      Phone: "+34 600 123 456",
      Content: "Viewing of MLS TX-1001 (12 Oak St): Saturday at 10am",
      SessionID: sessionID,
      CreateTime: expect.any(String),
    });
    expect(await leads(api, api.a, { serialNumber })).toEqual([added.body.Data]);
  });

  it("LeadAdd validates its fields, naming the field, and records nothing", async () => {
    const serialNumber = await api.addChatbot(api.a);
    const otherChatbot = await api.addChatbot(api.a);
    const foreignSession = await api.openSession(api.a, otherChatbot);
    const cases: [Record<string, unknown>, number, string][] = [
      [{ Type: "Handoff" }, 400, "Invalid request: serialNumber is required"],
      [{ serialNumber }, 400, "Invalid request: Type is required"],
      [{ serialNumber, Type: "Contact" }, 400, "Invalid request: Type must be Handoff, Viewing or ListingVisit"],
      [
        { serialNumber, Type: "Handoff", Email: "jane-at-example" },
        400,
        "Invalid request: Email must be an e-mail address",
      ],
      [
        { serialNumber, Type: "Handoff", Phone: "555-01" },
        400,
        "Invalid request: Phone must be a phone number with 7 to 15 digits, such as +1 512 555 0100",
      ],
      [
        { serialNumber, Type: "Handoff", Phone: "call 5125550100" },
        400,
        "Invalid request: Phone must be a phone number with 7 to 15 digits, such as +1 512 555 0100",
      ],
      [
        { serialNumber, Type: "Handoff", Name: "x".repeat(201) },
        400,
        "Invalid request: Name must have at most 200 characters",
      ],
      [{ serialNumber, Type: "Handoff", Content: 42 }, 400, "Invalid request: Content must be a string, not a number"],
      [
        { serialNumber, Type: "Handoff", sessionID: "12" },
        400,
        "Invalid request: sessionID must be a whole number ≥ 1, not a string",
      ],
      [{ serialNumber, Type: "Handoff", sessionID: 0 }, 400, "Invalid request: sessionID must be a whole number ≥ 1"],
      [
        { Type: "Lead", Email: "x", Phone: "1", Name: 5 },
        400,
        "Invalid request: serialNumber is required; Type must be Handoff, Viewing or ListingVisit; Name must be a string, not a number; " +
          "Email must be an e-mail address; Phone must be a phone number with 7 to 15 digits, such as +1 512 555 0100",
      ],
      [
        { serialNumber, Type: "Handoff", sessionID: foreignSession },
        404,
        `Session ${foreignSession} not found in chatbot ${serialNumber}`,
      ],
    ];
    for (const [body, status, message] of cases) {
      expectFailure(await api.call(ADD, body, api.a.secret), status, message);
    }
    expect(await leads(api, api.a, { serialNumber })).toEqual([]);
  });

  it("records the e-mail addresses and phone numbers users write to ClientAsk as Contact leads, once per session", async () => {
    const serialNumber = await api.addChatbot(api.a);
    const sessionID = await api.openSession(api.a, serialNumber);
    const ask = async (session: number, content: string) =>
      expectSuccess(await api.call(ASK, { sessionID: session, content }, api.a.secret));
    const question = "I'm Jane, reach me at jane@example.com or (512) 555-0100 about the $450,000 home, MLS# 12345678";
    await ask(sessionID, "Homes for sale built after 1998 under $450,000?");
    await ask(sessionID, question);
    await ask(sessionID, "Again: JANE@example.com, 512-555-0100");
    const later = await api.openSession(api.a, serialNumber);
    await ask(later, "It's jane@example.com");

    const found = await leads(api, api.a, { serialNumber });
    expect(found).toEqual([
      {
        Type: "Contact",
        Name: "",
        Email: "jane@example.com",
        Content: question,
        SessionID: sessionID,
        CreateTime: expect.any(String),
      },
      {
        Type: "Contact",
        Name: "",
        Phone: "(512) 555-0100",
        Content: question,
        SessionID: sessionID,
        CreateTime: expect.any(String),
      },
      {
        Type: "Contact",
        Name: "",
        Email: "jane@example.com",
        Content: "It's jane@example.com",
        SessionID: later,
        CreateTime: expect.any(String),
      },
    ]);
    expect(await leads(api, api.a, { serialNumber, sessionID: later })).toEqual([found[2]]);
  });

  it("LeadList filters by whole UTC days (endTime included) and accepts the session key", async () => {
    const serialNumber = await api.addChatbot(api.a);
    const add = async (content: string) =>
      expectSuccess(await api.call(ADD, { serialNumber, Type: "Handoff", Content: content }, api.a.secret));
    try {
      api.clock.advance(-2 * DAY_MS);
      await add("two days ago");
      api.clock.reset();
      api.clock.advance(-DAY_MS);
      await add("yesterday");
    } finally {
      api.clock.reset();
    }
    await add("today");
    const contents = async (query: Record<string, unknown>) =>
      (await leads(api, api.a, { serialNumber, ...query })).map((lead) => lead.Content);

    expect(await contents({})).toEqual(["two days ago", "yesterday", "today"]);
    expect(await contents({ startTime: utcDay(-1) })).toEqual(["yesterday", "today"]);
    expect(await contents({ endTime: utcDay(-1) })).toEqual(["two days ago", "yesterday"]);
    expect(await contents({ startTime: utcDay(-1), endTime: utcDay(-1) })).toEqual(["yesterday"]);
    expect(await contents({ startTime: utcDay(1) })).toEqual([]);
    const bySession = await api.call(LIST, { serialNumber, startTime: utcDay() }, api.a.session);
    expectSuccess(bySession);
    expect(bySession.body.Data.map((lead: { Content: string }) => lead.Content)).toEqual(["today"]);
  });

  it("LeadList validates its fields, naming the field", async () => {
    const serialNumber = api.a.serialNumber;
    const cases: [Record<string, unknown>, string][] = [
      [{}, "serialNumber is required"],
      [{ serialNumber, startTime: "01/05/2024" }, "startTime must be a date as YYYY-MM-DD"],
      [{ serialNumber, endTime: "2024-02-30" }, "endTime must be a date as YYYY-MM-DD"],
      [{ serialNumber, startTime: "2024-05-02", endTime: "2024-05-01" }, "startTime must not be after endTime"],
      [{ serialNumber, sessionID: 1.5 }, "sessionID must be a whole number ≥ 1"],
      [
        { startTime: "2024-05-02", endTime: "2024-05-01", sessionID: "7" },
        "serialNumber is required; sessionID must be a whole number ≥ 1, not a string; startTime must not be after endTime",
      ],
    ];
    for (const [body, problems] of cases) {
      expectFailure(await api.call(LIST, body, api.a.secret), 400, `Invalid request: ${problems}`);
    }
  });

  it("answers another workspace's chatbot like an unknown one, and LeadAdd wants the secret key", async () => {
    const unknown = "ffffffffffffffffffffffffffffffff";
    for (const [path, extra] of [
      [LIST, {}],
      [ADD, { Type: "Handoff" }],
    ] as const) {
      const theirs = await api.call(path, { serialNumber: api.b.serialNumber, ...extra }, api.a.secret);
      expectFailure(theirs, 404, `Chatbot ${api.b.serialNumber} not found`);
      expectFailure(
        await api.call(path, { serialNumber: unknown, ...extra }, api.a.secret),
        404,
        `Chatbot ${unknown} not found`,
      );
    }
    const withSessionKey = await api.call(ADD, { serialNumber: api.a.serialNumber, Type: "Handoff" }, api.a.session);
    expectFailure(
      withSessionKey,
      401,
      "LeadAdd needs the secret key in Authorization; chatrobot-sessionkey (the session key) is not accepted here",
    );
    expect(await leads(api, api.b, { serialNumber: api.b.serialNumber })).toEqual([]);
  });

  it("works through the client's addLead and listLeads", async () => {
    const serialNumber = await api.addChatbot(api.a);
    const client = api.client(api.a);
    const sessionID = await client.createSession(serialNumber);

    const added = await client.addLead({ serialNumber, sessionID, Name: "Bo", Phone: "030 12345678" });

    expect(added).toMatchObject({ Type: "Handoff", Name: "Bo", Phone: "030 12345678", SessionID: sessionID });
    expect(await client.listLeads({ serialNumber, sessionID })).toEqual([added]);
    expect(await client.listLeads({ serialNumber, startTime: utcDay(1) })).toEqual([]);
    const refused = await client.addLead({ serialNumber, Email: "nope" }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ChatbotApiError);
    expect((refused as ChatbotApiError).message).toMatch(/Email must be an e-mail address/);
  });
});
