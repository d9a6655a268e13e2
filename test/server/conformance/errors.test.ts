import { describe, expect, it } from "vitest";
import {
  availableBackends,
  expectFailure,
  expectSuccess,
  sampleListing,
  useApiHarness,
} from "../../support/api-harness.js";

const SECRET = "the secret key in Authorization";
const SESSION = "the session key in chatrobot-sessionkey";

/** Every operation, its method, and the credentials it accepts (as the 401 names them). */
const OPERATIONS: { name: string; path: string; method?: string; wants: string }[] = [
  { name: "Add", path: "/chat/Chatbot/Add", wants: SECRET },
  { name: "Edit", path: "/chat/Chatbot/Edit", wants: SECRET },
  { name: "Remove", path: "/chat/Chatbot/Remove", wants: SECRET },
  { name: "Get", path: "/chat/Chatbot/Get", wants: `${SECRET} or ${SESSION}` },
  { name: "GetSession", path: "/chat/Chatbot/GetSession", wants: SECRET },
  { name: "ModelList", path: "/chat/Chatbot/ModelList", method: "GET", wants: SECRET },
  { name: "ChatContentHistory", path: "/chat/Chatbot/ChatContentHistory", wants: `${SECRET} or ${SESSION}` },
  { name: "LeadList", path: "/chat/Chatbot/LeadList", wants: `${SECRET} or ${SESSION}` },
  { name: "LeadAdd", path: "/chat/Chatbot/LeadAdd", wants: SECRET },
  { name: "ClientAsk", path: "/chat/Chat/ClientAsk", wants: SECRET },
  { name: "RealEstateCreate", path: "/chat/Chatbot/RealEstateCreate", wants: `${SECRET} or ${SESSION}` },
  { name: "RealEstateUpdate", path: "/chat/Chatbot/RealEstateUpdate", wants: `${SECRET} or ${SESSION}` },
  { name: "RealEstateList", path: "/chat/Chatbot/RealEstateList", wants: SESSION },
  { name: "RealEstateDelete", path: "/chat/Chatbot/RealEstateDelete", wants: `${SECRET} or ${SESSION}` },
  { name: "GetPreUploadUrl", path: "/chat/User/GetPreUploadUrl", wants: SECRET },
  { name: "UploadSuccess", path: "/chat/User/UploadSuccess", wants: SECRET },
];

describe.each(await availableBackends())("errors (%s)", (backend) => {
  const api = useApiHarness(backend);
  const body = (method?: string) => (method === "GET" ? undefined : { serialNumber: api.a.serialNumber });

  it("answers 401 without credentials, naming the header each operation wants", async () => {
    for (const { name, path, method, wants } of OPERATIONS) {
      expectFailure(await api.call(path, body(method), {}, { method }), 401, `${name} needs ${wants}`);
      const blank = await api.call(path, body(method), { authorization: "  ", "chatrobot-sessionkey": "" }, { method });
      expectFailure(blank, 401, `${name} needs ${wants}`);
    }
  });

  it("answers 401 to an unknown key of an accepted kind", async () => {
    for (const { name, path, method, wants } of OPERATIONS) {
      const headers: Record<string, string> =
        wants === SESSION ? { "chatrobot-sessionkey": "ss_unknown" } : { authorization: "sk_unknown" };
      expectFailure(
        await api.call(path, body(method), headers, { method }),
        401,
        `Invalid API key: ${name} needs ${wants}`,
      );
    }
  });

  it("refuses a key of the wrong kind: the session key on Edit and ClientAsk, the secret key on RealEstateList", async () => {
    const edit = await api.call("/chat/Chatbot/Edit", { serialNumber: api.a.serialNumber, Name: "x" }, api.a.session);
    expectFailure(edit, 401, `Edit needs ${SECRET}; chatrobot-sessionkey (the session key) is not accepted here`);
    const sessionID = await api.openSession(api.a);
    const ask = await api.call("/chat/Chat/ClientAsk", { sessionID, content: "hi" }, api.a.session);
    expectFailure(ask, 401, `ClientAsk needs ${SECRET}; chatrobot-sessionkey (the session key) is not accepted here`);
    // The session key put where the secret key goes is an invalid secret key.
    const swapped = await api.call(
      "/chat/Chat/ClientAsk",
      { sessionID, content: "hi" },
      {
        authorization: api.a.sessionKey,
      },
    );
    expectFailure(swapped, 401, `Invalid API key: ClientAsk needs ${SECRET}`);
    const list = await api.call("/chat/Chatbot/RealEstateList", { SerialNumber: api.a.serialNumber }, api.a.secret);
    expectFailure(list, 401, `RealEstateList needs ${SESSION}; Authorization (the secret key) is not accepted here`);
    expect(await api.store.messages.recent(sessionID, 10)).toEqual([]);
  });

  it("accepts the secret key with a Bearer prefix or surrounding spaces", async () => {
    const serialNumber = api.a.serialNumber;
    for (const authorization of [`Bearer ${api.a.secretKey}`, ` ${api.a.secretKey} `]) {
      expectSuccess(await api.call("/chat/Chatbot/GetSession", { serialNumber }, { authorization }));
    }
  });

  it("answers another workspace's chatbot with a 404 exactly like an unknown one, and changes nothing", async () => {
    const unknown = "ffffffffffffffffffffffffffffffff";
    const before = await api.call("/chat/Chatbot/Get", { serialNumber: api.b.serialNumber }, api.b.secret);
    const operations: [string, (serial: string) => Record<string, unknown>][] = [
      ["/chat/Chatbot/Edit", (serialNumber) => ({ serialNumber, Name: "Hijacked", MessageLimit: 0 })],
      ["/chat/Chatbot/Get", (serialNumber) => ({ serialNumber })],
      ["/chat/Chatbot/GetSession", (serialNumber) => ({ serialNumber })],
      ["/chat/Chatbot/ChatContentHistory", (SerialNumber) => ({ SerialNumber })],
      ["/chat/Chatbot/Remove", (serialNumber) => ({ serialNumber })],
      ["/chat/Chatbot/RealEstateCreate", (serial) => sampleListing(serial)],
    ];
    for (const [path, make] of operations) {
      const theirs = await api.call(path, make(api.b.serialNumber), api.a.secret);
      const nobody = await api.call(path, make(unknown), api.a.secret);
      expectFailure(theirs, 404, `Chatbot ${api.b.serialNumber} not found`);
      expectFailure(nobody, 404, `Chatbot ${unknown} not found`);
      expect(theirs.text.replace(api.b.serialNumber, "X")).toBe(nobody.text.replace(unknown, "X"));
    }
    const after = await api.call("/chat/Chatbot/Get", { serialNumber: api.b.serialNumber }, api.b.secret);
    expectSuccess(after, before.body.Data);
  });

  it("answers malformed bodies with a 400 envelope", async () => {
    const edit = (raw: string, headers: Record<string, string> = api.a.secret) =>
      api.call("/chat/Chatbot/Edit", raw, headers);
    expectFailure(await edit('{"serialNumber": "abc",'), 400, /^The body is not valid JSON: /);
    expectFailure(
      await edit("serialNumber=abc", { ...api.a.secret, "content-type": "application/x-www-form-urlencoded" }),
      400,
      /^The body is not valid JSON: .*\(Content-Type was application\/x-www-form-urlencoded; send application\/json\)$/,
    );
    for (const raw of ["[]", `[{"serialNumber":"${api.a.serialNumber}"}]`, '"text"', "42", "null", "true"]) {
      expectFailure(await edit(raw), 400, "The body must be a JSON object");
    }
    expectFailure(await edit(""), 400, "serialNumber is required");
    expectFailure(await edit("{}"), 400, "serialNumber is required");
  });

  it("answers a body over 1 MB with a 413 envelope, before anything else", async () => {
    const big = JSON.stringify({ serialNumber: api.a.serialNumber, SystemMessage: "x".repeat(1024 * 1024) });
    expectFailure(await api.call("/chat/Chatbot/Edit", big, api.a.secret), 413, "The body is larger than 1mb");
    expectFailure(await api.call("/chat/Chat/ClientAsk", big, {}), 413, "The body is larger than 1mb");
    // Just under the cap is read (and then judged on its fields).
    const fits = JSON.stringify({ serialNumber: api.a.serialNumber, SystemMessage: "x".repeat(1000 * 1000) });
    expectFailure(
      await api.call("/chat/Chatbot/Edit", fits, api.a.secret),
      400,
      "SystemMessage must have at most 20000 characters",
    );
  });

  it("answers unknown operations and wrong methods with a 404 envelope", async () => {
    const cases: [string, string, string][] = [
      ["POST", "/chat/Chatbot/DoesNotExist", "Unknown operation POST /chat/Chatbot/DoesNotExist"],
      ["POST", "/chat/Nope", "Unknown operation POST /chat/Nope"],
      ["GET", "/chat/Chatbot/Edit", "Unknown operation GET /chat/Chatbot/Edit"],
      ["POST", "/chat/Chatbot/ModelList", "Unknown operation POST /chat/Chatbot/ModelList"],
      ["DELETE", "/chat/Chatbot/RealEstateDelete", "Unknown operation DELETE /chat/Chatbot/RealEstateDelete"],
      ["PUT", "/chat/User/Upload/abc?token=x", "Unknown upload URL"],
    ];
    for (const [method, path, message] of cases) {
      const withBody = method === "GET" ? undefined : "{}";
      expectFailure(await api.call(path, withBody, api.a.secret, { method }), 404, message);
    }
  });

  it("matches operation paths case-insensitively, like the hosted platform", async () => {
    const response = await api.call("/chat/chatbot/getsession", { serialNumber: api.a.serialNumber }, api.a.secret);
    expectSuccess(response);
    expect(response.body.Data.SessionID).toBeGreaterThan(0);
  });
});
