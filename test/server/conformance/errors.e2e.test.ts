import { request as httpRequest } from "node:http";
import { brotliCompressSync, deflateSync, gzipSync } from "node:zlib";
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

/** The failure envelope, exactly. */
const envelope = (code: number, message: string) => ({
  Data: null,
  Version: "1.0.0",
  Success: false,
  Code: code,
  Message: message,
});

/** A request whose headers go out and whose body never comes: the answer must come from the headers alone. */
function headersOnly(
  url: string,
  method: string,
  headers: Record<string, string | number>,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method, headers });
    req.on("response", (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        body += chunk;
      });
      res.on("end", () => {
        resolve({ status: res.statusCode ?? 0, body });
        req.destroy();
      });
    });
    req.on("error", reject);
    req.flushHeaders();
  });
}

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
    expectFailure(await edit(""), 400, "Invalid request: serialNumber is required");
    expectFailure(await edit("{}"), 400, "Invalid request: serialNumber is required");
  });

  it("answers a body over 1 MB with a 413 envelope, before anything else", async () => {
    const big = JSON.stringify({ serialNumber: api.a.serialNumber, SystemMessage: "x".repeat(1024 * 1024) });
    expectFailure(await api.call("/chat/Chatbot/Edit", big, api.a.secret), 413, "The body is larger than 1 MB");
    expectFailure(await api.call("/chat/Chat/ClientAsk", big, {}), 413, "The body is larger than 1 MB");
    // Just under the cap is read (and then judged on its fields).
    const fits = JSON.stringify({ serialNumber: api.a.serialNumber, SystemMessage: "x".repeat(1000 * 1000) });
    expectFailure(
      await api.call("/chat/Chatbot/Edit", fits, api.a.secret),
      400,
      "Invalid request: SystemMessage must have at most 20,000 characters",
    );
    // A Content-Length over the cap is refused from the headers, before the body comes.
    const declared = await headersOnly(`${api.url}/chat/Chatbot/Edit`, "POST", {
      ...api.a.secret,
      "content-type": "application/json",
      "content-length": 50 * 1024 * 1024,
    });
    expect(declared.status).toBe(413);
    expect(JSON.parse(declared.body)).toEqual(envelope(413, "The body is larger than 1 MB"));
  });

  it("reads gzip, deflate and br bodies, and answers a body that does not decompress with a 400", async () => {
    const body = JSON.stringify({ serialNumber: api.a.serialNumber });
    const encodings: [string, (input: string) => Buffer][] = [
      ["gzip", (input) => gzipSync(input)],
      ["deflate", (input) => deflateSync(input)],
      ["br", (input) => brotliCompressSync(input)],
    ];
    for (const [encoding, compress] of encodings) {
      const headers = { ...api.a.secret, "content-encoding": encoding };
      const compressed = await api.call("/chat/Chatbot/GetSession", compress(body), headers);
      expectSuccess(compressed);
      expect(compressed.body.Data.SessionID).toBeGreaterThan(0);
      // The header without the compression: the bytes are plain JSON.
      expectFailure(
        await api.call("/chat/Chatbot/GetSession", body, headers),
        400,
        `The body could not be decompressed as Content-Encoding "${encoding}" says; send it uncompressed, or compressed that way`,
      );
      // Cut short.
      const cut = compress(body).subarray(0, 12);
      expectFailure(
        await api.call("/chat/Chatbot/GetSession", cut, headers),
        400,
        /^The body could not be decompressed/,
      );
    }
    // Compressed and then judged on its fields like any body.
    const edit = await api.call("/chat/Chatbot/Edit", gzipSync("{}"), { ...api.a.secret, "content-encoding": "gzip" });
    expectFailure(edit, 400, "Invalid request: serialNumber is required");
    // Decompressed beyond the cap: 413, however small the compressed body.
    const bomb = gzipSync(
      JSON.stringify({ serialNumber: api.a.serialNumber, SystemMessage: "x".repeat(2 * 1024 * 1024) }),
    );
    expect(bomb.length).toBeLessThan(10_000);
    const inflated = await api.call("/chat/Chatbot/Edit", bomb, { ...api.a.secret, "content-encoding": "gzip" });
    expectFailure(inflated, 413, "The body is larger than 1 MB");
    const unknown = await api.call("/chat/Chatbot/GetSession", body, {
      ...api.a.secret,
      "content-encoding": "compress",
    });
    expectFailure(
      unknown,
      415,
      'Content-Encoding "compress" is not supported; send the body uncompressed, or compressed with gzip, deflate or br',
    );
    // The server still answers.
    expectSuccess(await api.call("/chat/Chatbot/GetSession", body, api.a.secret));
  });

  it("refuses strings with the NUL character on every store, naming the field", async () => {
    const sessionID = await api.openSession(api.a);
    const cases: [string, unknown, Record<string, string>, string][] = [
      ["/chat/Chatbot/GetSession", { serialNumber: "a\u0000" }, api.a.secret, "serialNumber"],
      ["/chat/Chat/ClientAsk", { sessionID, content: "hi\u0000" }, api.a.secret, "content"],
      [
        "/chat/Chatbot/RealEstateList",
        { SerialNumber: api.a.serialNumber, CityName: "\u0000" },
        api.a.session,
        "CityName",
      ],
      [
        "/chat/Chatbot/RealEstateCreate",
        sampleListing(api.a.serialNumber, { Images: ["https://example.com/a\u0000.jpg"] }),
        api.a.secret,
        "Images[0]",
      ],
      ["/chat/Chatbot/Edit", { serialNumber: api.a.serialNumber, Name: "A\u0000B" }, api.a.secret, "Name"],
    ];
    for (const [path, body, headers, field] of cases) {
      expectFailure(
        await api.call(path, body, headers),
        400,
        `Invalid request: ${field} must not contain the NUL character (\\u0000)`,
      );
    }
    expect(await api.store.messages.recent(sessionID, 10)).toEqual([]);
  });

  it("answers an unknown path under /chat with a 404 envelope naming it", async () => {
    const cases: [string, string, string][] = [
      ["POST", "/chat/Chatbot/DoesNotExist", "Unknown operation POST /chat/Chatbot/DoesNotExist"],
      ["POST", "/chat/Nope", "Unknown operation POST /chat/Nope"],
      ["GET", "/chat", "Unknown operation GET /chat/"],
      ["OPTIONS", "/chat/Chatbot/DoesNotExist", "Unknown operation OPTIONS /chat/Chatbot/DoesNotExist"],
      ["PUT", "/chat/User/Upload/abc?token=x", "Unknown upload URL"],
    ];
    for (const [method, path, message] of cases) {
      const withBody = method === "POST" || method === "PUT" ? "{}" : undefined;
      expectFailure(await api.call(path, withBody, api.a.secret, { method }), 404, message);
    }
    const long = `/chat/${"x".repeat(5000)}`;
    const cut = await api.call(long, "{}", api.a.secret);
    expectFailure(cut, 404, /^Unknown operation POST \/chat\/x+…$/);
    expect(cut.body.Message.length).toBeLessThan(300);
  });

  it("answers a wrong method on an operation with a 405 envelope and Allow, before any key check", async () => {
    const cases: [string, string, string, string][] = [
      ["GET", "/chat/Chatbot/Edit", "POST, OPTIONS", "GET is not allowed on /chat/Chatbot/Edit; use POST"],
      ["PUT", "/chat/Chatbot/Edit", "POST, OPTIONS", "PUT is not allowed on /chat/Chatbot/Edit; use POST"],
      [
        "DELETE",
        "/chat/Chatbot/RealEstateDelete",
        "POST, OPTIONS",
        "DELETE is not allowed on /chat/Chatbot/RealEstateDelete; use POST",
      ],
      [
        "POST",
        "/chat/Chatbot/ModelList",
        "GET, HEAD, OPTIONS",
        "POST is not allowed on /chat/Chatbot/ModelList; use GET",
      ],
      ["GET", "/chat/User/Upload/12?token=x", "PUT, OPTIONS", "GET is not allowed on /chat/User/Upload/12; use PUT"],
      ["PATCH", "/chat/chatbot/edit", "POST, OPTIONS", "PATCH is not allowed on /chat/chatbot/edit; use POST"],
    ];
    for (const [method, path, allow, message] of cases) {
      for (const headers of [api.a.secret, {}]) {
        const withBody = method === "GET" ? undefined : '{"serialNumber":"x"}';
        const response = await api.call(path, withBody, headers, { method });
        expectFailure(response, 405, message);
        expect(response.headers.get("allow")).toBe(allow);
      }
    }
    // HEAD is a GET without the body: 405 with Allow on a POST operation (the envelope's length, no envelope).
    const head = await fetch(`${api.url}/chat/Chat/ClientAsk`, { method: "HEAD" });
    expect(head.status).toBe(405);
    expect(head.headers.get("allow")).toBe("POST, OPTIONS");
  });

  it("answers OPTIONS on an operation in the envelope, with Allow, without a key", async () => {
    const cases: [string, string[]][] = [
      ["/chat/Chatbot/Edit", ["POST", "OPTIONS"]],
      ["/chat/Chat/ClientAsk", ["POST", "OPTIONS"]],
      ["/chat/Chatbot/ModelList", ["GET", "HEAD", "OPTIONS"]],
      ["/chat/User/Upload/12?token=x", ["PUT", "OPTIONS"]],
    ];
    for (const [path, methods] of cases) {
      const response = await api.call(path, undefined, {}, { method: "OPTIONS" });
      expectSuccess(response, methods);
      expect(response.headers.get("allow")).toBe(methods.join(", "));
      // No CORS: the API's keys do not belong in another origin's page (see strictRoutes).
      const preflight = await api.call(
        path,
        undefined,
        { origin: "https://elsewhere.example", "access-control-request-method": methods[0] ?? "" },
        { method: "OPTIONS" },
      );
      expectSuccess(preflight, methods);
      expect(preflight.headers.get("access-control-allow-origin")).toBeNull();
    }
  });

  it("matches operation paths case-insensitively, like the hosted platform", async () => {
    const response = await api.call("/chat/chatbot/getsession", { serialNumber: api.a.serialNumber }, api.a.secret);
    expectSuccess(response);
    expect(response.body.Data.SessionID).toBeGreaterThan(0);
  });
});
