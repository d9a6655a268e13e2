import { describe, expect, it } from "vitest";
import { DRAIN_LIMIT_BYTES } from "../../../src/common/early-answer.js";
import { expectSuccess, useApiHarness } from "../../support/api-harness.js";
import { png } from "../../support/media-fixtures.js";
import { type RawAnswer, type RawRequest, sendBody } from "../../support/raw-http.js";

const MB = 1024 * 1024;
/** Several times the 1 MB JSON limit, well within what the server drains. */
const BODY = 4 * MB;
/** Requests per case, half of them asking for `Connection: close` (which Node.js honours right after the answer). */
const REPEATS = 50;

/** What a case must be answered with. */
interface Expected {
  status: number;
  message: string | RegExp;
  allow?: string;
}

/** Why an answer is not the expected one, or undefined when it is. */
function problemOf(answer: RawAnswer, expected: Expected, bodyBytes: number): string | undefined {
  if (answer.error !== undefined) return `${answer.error} after ${answer.sentBytes} bytes, status ${answer.status}`;
  if (answer.status !== expected.status) return `status ${answer.status}`;
  if (!answer.complete) return "an incomplete answer";
  if (answer.sentBytes !== bodyBytes) return `only ${answer.sentBytes} bytes of the body sent`;
  if (!answer.headers["content-type"]?.startsWith("application/json"))
    return `Content-Type ${answer.headers["content-type"]}`;
  if (expected.allow !== undefined && answer.headers.allow !== expected.allow) return `Allow ${answer.headers.allow}`;
  const envelope = JSON.parse(answer.body) as Record<string, unknown>;
  if (Object.keys(envelope).sort().join() !== "Code,Data,Message,Success,Version") return "not the envelope";
  const success = expected.status === 200;
  if (envelope.Code !== expected.status || envelope.Success !== success || envelope.Version !== "1.0.0") {
    return `envelope ${answer.body}`;
  }
  const message = String(envelope.Message);
  const matches = typeof expected.message === "string" ? message === expected.message : expected.message.test(message);
  return matches ? undefined : `Message ${message}`;
}

describe("answers sent before the body is read (a refusal from the headers alone)", () => {
  const api = useApiHarness("sqlite");

  /** A fresh upload URL (path and query); `used` PUTs a file to it first. */
  const uploadPath = async (used: boolean) => {
    const response = await api.call("/chat/User/GetPreUploadUrl", { fileName: "house.png" }, api.a.secret);
    expectSuccess(response);
    const path = String(response.body.Data.PreUploadUrl).slice(api.url.length);
    if (used) {
      expectSuccess(
        await api.call(path, png(), { "content-type": "application/octet-stream" }, { method: "PUT" }),
        true,
      );
    }
    return path;
  };

  /** Sends `request` {@link REPEATS} times, one after the other, and lists every answer that is not `expected`. */
  const problems = async (name: string, request: Omit<RawRequest, "connection">, expected: Expected) => {
    const found: string[] = [];
    for (let n = 0; n < REPEATS; n++) {
      const connection = n % 2 === 0 ? "close" : "keep-alive";
      const answer = await sendBody(api.url, { ...request, connection });
      const problem = problemOf(answer, expected, request.withholdBody ? 0 : request.bodyBytes);
      if (problem) found.push(`${name} #${n} (${connection}): ${problem}`);
    }
    return found;
  };

  it("reaches a client that sends its whole body: every one gets its status and the envelope, none a reset", async () => {
    const json = { "content-type": "application/json" };
    const found = [
      ...(await problems(
        "RealEstateCreate over 1 MB",
        {
          method: "POST",
          path: "/chat/Chatbot/RealEstateCreate",
          headers: { ...json, ...api.a.secret },
          bodyBytes: BODY,
        },
        { status: 413, message: "The body is larger than 1 MB" },
      )),
      ...(await problems(
        "Remove over 1 MB without a key",
        { method: "POST", path: "/chat/Chatbot/Remove", headers: json, bodyBytes: BODY },
        { status: 413, message: "The body is larger than 1 MB" },
      )),
      ...(await problems(
        "Remove with a wrong method",
        { method: "DELETE", path: "/chat/Chatbot/Remove", headers: json, bodyBytes: BODY },
        {
          status: 405,
          message: /^DELETE is not allowed on \/chat\/Chatbot\/Remove; use POST$/,
          allow: "POST, OPTIONS",
        },
      )),
      ...(await problems(
        "OPTIONS with a body",
        { method: "OPTIONS", path: "/chat/Chatbot/Remove", headers: json, bodyBytes: BODY },
        { status: 200, message: "", allow: "POST, OPTIONS" },
      )),
      ...(await problems(
        "upload URL with a forged token",
        {
          method: "PUT",
          path: (await uploadPath(false)).replace(/token=[^&]+/, "token=forged"),
          bodyBytes: BODY,
        },
        { status: 404, message: "Unknown upload URL" },
      )),
      ...(await problems(
        "used upload URL",
        { method: "PUT", path: await uploadPath(true), bodyBytes: BODY },
        { status: 409, message: "This upload URL was already used" },
      )),
    ];
    expect(found).toEqual([]);
  }, 120_000);

  it("answers from the headers alone, before any byte of the body was sent", async () => {
    const found = await problems(
      "RealEstateCreate, body withheld",
      {
        method: "POST",
        path: "/chat/Chatbot/RealEstateCreate",
        headers: { "content-type": "application/json", ...api.a.secret },
        bodyBytes: BODY,
        withholdBody: true,
        timeoutMs: 5_000,
      },
      { status: 413, message: "The body is larger than 1 MB" },
    );
    expect(found).toEqual([]);
  });

  it("answers a body declared past what it drains, then closes the connection before the body's end", async () => {
    // A declared upload over 100 MB: 413 at once, then at most DRAIN_LIMIT_BYTES more are read before the cut.
    const declared = 100 * MB + 1;
    const answer = await sendBody(api.url, {
      method: "PUT",
      path: await uploadPath(false),
      bodyBytes: declared,
      connection: "keep-alive",
    });
    expect(answer.status).toBe(413);
    expect(answer.complete).toBe(true);
    expect(answer.headers.connection).toBe("close");
    expect(JSON.parse(answer.body)).toMatchObject({
      Code: 413,
      Success: false,
      Message: /uploads may be at most 100 MB/,
    });
    expect(answer.sentBytes).toBeGreaterThan(DRAIN_LIMIT_BYTES);
    expect(answer.sentBytes).toBeLessThan(declared);
  }, 60_000);
});
