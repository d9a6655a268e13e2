import { brotliCompressSync, gzipSync } from "node:zlib";
import { type Dispatcher, request } from "undici";
import { askSchema } from "../../src/api/requests/chat.js";
import { addChatbotSchema, chatbotRefSchema, historySchema } from "../../src/api/requests/chatbot.js";
import { confirmUploadSchema, preUploadSchema } from "../../src/api/requests/files.js";
import { leadAddSchema, leadListSchema } from "../../src/api/requests/lead.js";
import {
  createListingSchema,
  deleteListingsSchema,
  listListingsSchema,
  updateListingSchema,
} from "../../src/api/requests/listing.js";
import { createEngines } from "../../src/server/engine/registry.js";
import { editChatbotSchemaFor } from "../../src/server/schemas/edit-chatbot.js";
import type { FuzzFixtures } from "./api-fuzz-target.js";
import { validListing } from "./api-fuzz-target.js";
import { type Fuzzer, fuzzer, type Json } from "./mutate.js";

/** One operation of the API as the fuzzer drives it. */
interface Operation {
  name: string;
  method: "GET" | "POST" | "PUT";
  path: string;
  /** The key it is sent with: the secret key, the session key, or none (the upload URL's token is its key). */
  key: "secret" | "session" | "none";
  /** The fields its schema knows: every "Invalid request" problem must name one of them. */
  fields: string[];
  /** A valid body; `n` numbers the request, for values that must be unique. */
  valid(fixtures: FuzzFixtures, n: number): Json;
}

const fieldsOf = (schema: { shape: object }) => Object.keys(schema.shape);
const engines = createEngines({ baseUrl: undefined, apiKey: undefined, model: undefined });

/** Every operation of the API, each with a valid request to mutate. */
export const OPERATIONS: Operation[] = [
  {
    name: "Add",
    method: "POST",
    path: "/chat/Chatbot/Add",
    key: "secret",
    fields: fieldsOf(addChatbotSchema),
    valid: () => ({ timeZone: "Europe/Madrid", type: 0 }),
  },
  {
    name: "Edit",
    method: "POST",
    path: "/chat/Chatbot/Edit",
    key: "secret",
    fields: fieldsOf(editChatbotSchemaFor(engines)),
    valid: (f) => ({
      serialNumber: f.editedSerialNumber,
      Name: "Fuzzed",
      Temperature: 3,
      ChatBubbleColor: "rgb(1,2,3)",
      TalkToHumanEmail: "agent@example.com",
      FacebookUrl: "https://facebook.com/x",
      RateLimitCount: 0,
      MessageLimit: -1,
      EnableUploadImage: true,
    }),
  },
  {
    name: "Remove",
    method: "POST",
    path: "/chat/Chatbot/Remove",
    key: "secret",
    fields: fieldsOf(chatbotRefSchema),
    valid: (f) => ({ serialNumber: f.removedSerialNumber }),
  },
  {
    name: "Get",
    method: "POST",
    path: "/chat/Chatbot/Get",
    key: "secret",
    fields: fieldsOf(chatbotRefSchema),
    valid: (f) => ({ serialNumber: f.serialNumber }),
  },
  {
    name: "GetSession",
    method: "POST",
    path: "/chat/Chatbot/GetSession",
    key: "secret",
    fields: fieldsOf(chatbotRefSchema),
    valid: (f) => ({ serialNumber: f.serialNumber }),
  },
  {
    name: "ModelList",
    method: "GET",
    path: "/chat/Chatbot/ModelList",
    key: "secret",
    fields: [],
    valid: () => ({}),
  },
  {
    name: "ChatContentHistory",
    method: "POST",
    path: "/chat/Chatbot/ChatContentHistory",
    key: "secret",
    fields: fieldsOf(historySchema),
    valid: (f) => ({ SerialNumber: f.serialNumber, StartTime: "2025-01-01", EndTime: "2030-12-31" }),
  },
  {
    name: "LeadList",
    method: "POST",
    path: "/chat/Chatbot/LeadList",
    key: "secret",
    fields: fieldsOf(leadListSchema),
    valid: (f) => ({ serialNumber: f.serialNumber, startTime: "2025-01-01", sessionID: f.sessionId }),
  },
  {
    name: "LeadAdd",
    method: "POST",
    path: "/chat/Chatbot/LeadAdd",
    key: "secret",
    fields: fieldsOf(leadAddSchema),
    valid: (f) => ({
      serialNumber: f.serialNumber,
      sessionID: f.sessionId,
      Type: "Handoff",
      Name: "Jo",
      Email: "jo@example.com",
      Phone: "+1 512 555 0100",
      Content: "Call me",
    }),
  },
  {
    name: "ClientAsk",
    method: "POST",
    path: "/chat/Chat/ClientAsk",
    key: "secret",
    fields: fieldsOf(askSchema),
    valid: (f, n): Json =>
      n % 2 === 0
        ? {
            sessionID: f.sessionId,
            content: "2 bedroom condos in Austin under $400k",
            chatAskType: "Text",
            stream: false,
          }
        : { sessionID: f.sessionId, content: "Like this?", chatAskType: "Image", fileIds: [f.fileId] },
  },
  {
    name: "RealEstateCreate",
    method: "POST",
    path: "/chat/Chatbot/RealEstateCreate",
    key: "secret",
    fields: fieldsOf(createListingSchema),
    valid: (f, n) => validListing(f.serialNumber, `fuzz-${n}`),
  },
  {
    name: "RealEstateUpdate",
    method: "POST",
    path: "/chat/Chatbot/RealEstateUpdate",
    key: "secret",
    fields: fieldsOf(updateListingSchema),
    valid: (f) => ({ ...validListing(f.serialNumber, "fixture"), Key: f.listingId, KeyType: "NewOaks" }),
  },
  {
    name: "RealEstateList",
    method: "POST",
    path: "/chat/Chatbot/RealEstateList",
    key: "session",
    fields: fieldsOf(listListingsSchema),
    valid: (f) => ({
      SerialNumber: f.serialNumber,
      CityName: "Austin",
      SaleType: "for_sale",
      PageNumber: 1,
      PageSize: 5,
    }),
  },
  {
    name: "RealEstateDelete",
    method: "POST",
    path: "/chat/Chatbot/RealEstateDelete",
    key: "secret",
    fields: fieldsOf(deleteListingsSchema),
    valid: (f, n) => ({ SerialNumber: f.serialNumber, Keys: [`MLS-fuzz-${n - 1}`, "nothing"], KeyType: "MLSNumber" }),
  },
  {
    name: "GetPreUploadUrl",
    method: "POST",
    path: "/chat/User/GetPreUploadUrl",
    key: "secret",
    fields: fieldsOf(preUploadSchema),
    valid: () => ({ fileName: "house.png" }),
  },
  {
    name: "UploadSuccess",
    method: "POST",
    path: "/chat/User/UploadSuccess",
    key: "secret",
    fields: fieldsOf(confirmUploadSchema),
    valid: (f) => ({ FileStoreId: String(f.fileId) }),
  },
  { name: "Upload", method: "PUT", path: "/chat/User/Upload", key: "none", fields: [], valid: () => ({}) },
];

/** One fuzzed request. */
export interface FuzzRequest {
  operation: string;
  /** What was done to the valid request, for reports. */
  mutation: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string | Buffer;
}

const WRONG_METHODS = ["GET", "PUT", "DELETE", "PATCH", "OPTIONS", "POST"];
const CONTENT_TYPES = [
  "text/plain",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=x",
  "",
  "application/xml",
];

function keyHeaders(operation: Operation, fixtures: FuzzFixtures): Record<string, string> {
  if (operation.key === "secret") return { authorization: fixtures.secretKey };
  if (operation.key === "session") return { "chatrobot-sessionkey": fixtures.sessionKey };
  return {};
}

/** The request for case `n` of `operation`, all of it following from `random`. */
function fuzzRequest(operation: Operation, fixtures: FuzzFixtures, random: Fuzzer, n: number): FuzzRequest {
  const valid = operation.valid(fixtures, n);
  const json = (value: Json) => JSON.stringify(value);
  const headers: Record<string, string> = { ...keyHeaders(operation, fixtures), "content-type": "application/json" };
  const base = { operation: operation.name, method: operation.method, path: operation.path, headers };
  if (operation.name === "Upload") return uploadRequest(fixtures, random, base);
  if (operation.method === "GET") {
    if (random.chance(0.6)) return { ...base, mutation: "valid", headers: keyHeaders(operation, fixtures) };
  }
  const roll = random.next();
  if (roll < 0.42) return { ...base, mutation: "mutated", body: json(random.variant(valid)) };
  if (roll < 0.62) {
    const [field, value] = oneField(valid, random);
    return {
      ...base,
      mutation: `${field} = ${JSON.stringify(value)?.slice(0, 40)}`,
      body: json({ ...(valid as object), [field]: value }),
    };
  }
  if (roll < 0.72) return { ...base, mutation: "not JSON", body: random.text(json(valid)) };
  if (roll < 0.77) {
    const type = random.pick(CONTENT_TYPES);
    const typed = { ...keyHeaders(operation, fixtures), ...(type ? { "content-type": type } : {}) };
    return { ...base, mutation: `Content-Type ${type || "none"}`, headers: typed, body: json(random.variant(valid)) };
  }
  if (roll < 0.83) {
    const body = json(random.mutate(valid, 1));
    const encodings: [string, () => Buffer | string][] = [
      ["gzip", () => gzipSync(body)],
      ["gzip", () => body],
      ["br", () => brotliCompressSync(body)],
      ["deflate", () => Buffer.from(random.text(body))],
      ["br", () => gzipSync(body)],
      ["compress", () => body],
      ["gzip, br", () => body],
    ];
    const [encoding, encode] = random.pick(encodings);
    return {
      ...base,
      mutation: `Content-Encoding ${encoding}`,
      headers: { ...headers, "content-encoding": encoding },
      body: encode(),
    };
  }
  if (roll < 0.89) {
    const method = random.pick(WRONG_METHODS.filter((candidate) => candidate !== operation.method));
    const body = method === "GET" ? undefined : json(random.variant(valid));
    return { ...base, mutation: `method ${method}`, method, ...(body === undefined ? {} : { body }) };
  }
  if (roll < 0.92) {
    const padded = { ...(valid as Record<string, Json>), Padding: "x".repeat(1024 * 1024 + random.int(4096)) };
    return { ...base, mutation: "over 1 MB", body: json(padded) };
  }
  if (roll < 0.95) {
    const keys: Record<string, string>[] = [
      {},
      { authorization: "sk_wrong" },
      { "chatrobot-sessionkey": fixtures.sessionKey },
      { authorization: `Bearer ${fixtures.secretKey}`.repeat(random.int(3)) },
    ];
    const key = random.pick(keys);
    return { ...base, mutation: "keys", headers: { ...key, "content-type": "application/json" }, body: json(valid) };
  }
  if (roll < 0.97) {
    const paths = [
      `${operation.path}x`,
      `${operation.path}/extra`,
      operation.path.toUpperCase(),
      "/chat/",
      `/chat/${"%41".repeat(300)}`,
    ];
    return { ...base, mutation: "path", path: random.pick(paths), body: json(valid) };
  }
  return { ...base, mutation: "valid", body: json(valid) };
}

/**
 * Values that pass for a field's type but not for a database or a reader: NUL characters, lone surrogates,
 * ids beyond 64 bits, impossible dates, markup, path traversal, extremes.
 */
const HOSTILE_VALUES: Json[] = [
  "\u0000",
  "a\u0000b",
  "\ud800",
  "🙂".repeat(300),
  "9".repeat(25),
  "-1",
  "2025-02-30",
  "../../etc/passwd",
  "<script>alert(1)</script>",
  "' OR 1=1 --",
  " ",
  "",
  "x".repeat(70_000),
  -1,
  0,
  0.5,
  2 ** 31,
  2 ** 53,
  -(2 ** 63),
  1e308,
  null,
  [],
  [null],
  {},
];

/** A field of the valid body and a hostile value for it: the rest of the body stays valid, so it reaches the store. */
function oneField(valid: Json, random: Fuzzer): [string, Json] {
  const fields = Object.keys(valid as object);
  return [fields.length > 0 ? random.pick(fields) : "serialNumber", random.pick(HOSTILE_VALUES)];
}

/** A PUT of bytes to an upload URL: fresh, used, with a forged token, an unknown id, or none. */
function uploadRequest(fixtures: FuzzFixtures, random: Fuzzer, base: Omit<FuzzRequest, "mutation">): FuzzRequest {
  const fresh = fixtures.uploadUrls.shift();
  const used = fresh ?? "/chat/User/Upload/1?token=used";
  const paths: [string, string][] = [
    ["fresh URL", used],
    ["forged token", used.replace(/token=[^&]+/, "token=forged")],
    ["no token", used.replace(/\?.*$/, "")],
    ["unknown id", used.replace(/Upload\/\d+/, "Upload/987654321")],
    ["odd id", used.replace(/Upload\/\d+/, `Upload/${random.pick(["-1", "1.5", "abc", "1e3", "0x10"])}`)],
  ];
  const [mutation, path] = random.pick(paths);
  const size = random.pick([0, 1, 100, 5_000, 70_000]);
  const body = Buffer.from(Array.from({ length: size }, () => random.int(256)));
  const method = random.chance(0.1) ? random.pick(["GET", "POST", "DELETE", "OPTIONS"]) : "PUT";
  const headers = { "content-type": random.pick(["application/octet-stream", "image/png", "application/json"]) };
  return {
    ...base,
    mutation: `${mutation}${method === "PUT" ? "" : `, method ${method}`}`,
    method,
    path,
    headers,
    ...(method === "GET" ? {} : { body }),
  };
}

/** `count` requests spread over every operation, reproducible from `seed` (the upload URLs are used up). */
export function fuzzRequests(fixtures: FuzzFixtures, count: number, seed: number): FuzzRequest[] {
  const random = fuzzer(seed);
  return Array.from({ length: count }, (_, n) => {
    const operation = OPERATIONS[n % OPERATIONS.length] as Operation;
    return fuzzRequest(operation, fixtures, random, n);
  });
}

/** What the API answered to one request. */
export interface FuzzAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** Sends one request to the API at `base`. */
export async function send(base: string, fuzzed: FuzzRequest, dispatcher: Dispatcher): Promise<FuzzAnswer> {
  const response = await request(`${base}${fuzzed.path}`, {
    method: fuzzed.method as Dispatcher.HttpMethod,
    headers: fuzzed.headers,
    // A GET carries no body (a client would not send one either).
    ...(fuzzed.body === undefined || fuzzed.method === "GET" ? {} : { body: fuzzed.body }),
    dispatcher,
  });
  return { status: response.statusCode, headers: response.headers, text: await response.body.text() };
}

/** Sends every request, `concurrency` at a time; the answers come back in the requests' order. */
export async function sendAll(
  base: string,
  requests: FuzzRequest[],
  dispatcher: Dispatcher,
  concurrency = 8,
): Promise<FuzzAnswer[]> {
  const answers: FuzzAnswer[] = new Array(requests.length);
  let next = 0;
  const worker = async () => {
    while (next < requests.length) {
      const index = next++;
      answers[index] = await send(base, requests[index] as FuzzRequest, dispatcher);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return answers;
}

/** Failures whose Message says the problem without naming a field. */
const KNOWN_PROBLEMS = [
  /^The body is not valid JSON: /,
  /^The body must be a JSON object$/,
  /^The body is larger than 1 MB$/,
  /^The body could not be decompressed as Content-Encoding ".*" says; /,
  /^Content-Encoding ".*" is not supported; /,
  /^\w+ is not allowed on \/chat\/\S+; use (GET|POST|PUT)$/,
  /^Unknown operation \w+ \/chat\//,
  /^Unknown upload URL$/,
  /^This upload URL (was already used|has expired)/,
  /^The upload is empty$/,
  /^(Invalid API key: )?\w+ needs the (secret|session) key in (Authorization|chatrobot-sessionkey)/,
  /^Chatbot .+ not found$/s,
  /^Session \d+ not found/,
  /^File \d+ /,
  /^No listing with (NewOaks id|MLSNumber|URL) /,
  /^(MLSNumber|Url) .+ is already used by listing \d+$/,
];

const ENVELOPE_KEYS = ["Code", "Data", "Message", "Success", "Version"];

/** Whether a problem of an "Invalid request" message starts with the name of a field the operation knows. */
function namesField(problem: string, fields: string[]): boolean {
  if (/^and \d+ more$/.test(problem)) return true;
  const root = /^([A-Za-z]+)/.exec(problem)?.[1];
  return root !== undefined && (fields.includes(root) || problem.startsWith("The body "));
}

/**
 * What is wrong with an answer, or undefined when it is as the API promises: never a 5xx; always the JSON
 * envelope (a streamed ClientAsk excepted), with `Code` equal to the status; no HTML, stack trace or file path;
 * a 4xx whose Message names a field of the operation or says the problem; `Allow` on a 405 and an OPTIONS.
 */
export function problemOf(fuzzed: FuzzRequest, answer: FuzzAnswer): string | undefined {
  if (answer.status >= 500) return `status ${answer.status}`;
  if (/<html|<!doctype|\n\s+at \S+ \(|\/(work|tmp|home|usr)\/|node_modules|file:\/\//i.test(answer.text)) {
    return "HTML, a stack trace or a file path in the answer";
  }
  const type = String(answer.headers["content-type"] ?? "");
  if (fuzzed.operation === "ClientAsk" && answer.status === 200 && type.startsWith("text/event-stream")) {
    const frames = answer.text.split("\n\n").filter((frame) => frame.trim() !== "");
    return frames.every((frame) => frame.startsWith("data: ") && isJson(frame.slice(6))) ? undefined : "bad SSE frame";
  }
  if (!type.startsWith("application/json")) return `Content-Type ${type}`;
  let envelope: Record<string, unknown>;
  try {
    envelope = JSON.parse(answer.text) as Record<string, unknown>;
  } catch {
    return "a body that is not JSON";
  }
  if (Object.keys(envelope).sort().join() !== ENVELOPE_KEYS.join()) return "not the envelope's fields";
  if (envelope.Code !== answer.status || envelope.Version !== "1.0.0") return "Code or Version wrong";
  if (envelope.Success !== (answer.status === 200)) return "Success does not match the status";
  if ((answer.status === 405 || fuzzed.method === "OPTIONS") && !answer.headers.allow) return "no Allow header";
  if (answer.status === 200) return envelope.Message === "" ? undefined : "a Message on success";
  const message = String(envelope.Message);
  if (envelope.Data !== null) return "Data on a failure";
  if (message.startsWith("Invalid request: ")) {
    const operation = OPERATIONS.find((candidate) => candidate.name === fuzzed.operation);
    const problems = message.slice("Invalid request: ".length).split("; ");
    const unnamed = problems.find((problem) => !namesField(problem, operation?.fields ?? []));
    return unnamed === undefined ? undefined : `a problem that names no field: ${unnamed}`;
  }
  return KNOWN_PROBLEMS.some((pattern) => pattern.test(message)) ? undefined : `an unexpected Message: ${message}`;
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
