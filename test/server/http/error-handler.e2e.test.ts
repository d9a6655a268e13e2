import { once } from "node:events";
import type { AddressInfo } from "node:net";
import express from "express";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiError } from "../../../src/server/http/api-error.js";
import { apiErrorHandler } from "../../../src/server/http/error-handler.js";

/** An error as body-parser and raw-body make them (http-errors): a message, a status and often a type. */
const parserError = (status: number, type?: string, extra: Record<string, unknown> = {}) =>
  Object.assign(new Error("internal wording"), { status, statusCode: status, expose: status < 500, type, ...extra });

const ERRORS: Record<string, Error> = {
  "too-large": parserError(413, "entity.too.large"),
  "encoding-unsupported": parserError(415, "encoding.unsupported", { encoding: "compress" }),
  "charset-unsupported": parserError(415, "charset.unsupported", { charset: "koi8-r" }),
  "size-invalid": parserError(400, "request.size.invalid"),
  "parse-failed": parserError(400, "entity.parse.failed"),
  "verify-failed": parserError(403, "entity.verify.failed"),
  "typeless-400": Object.assign(new Error("incorrect header check"), { status: 400, code: "Z_DATA_ERROR" }),
  "odd-4xx": parserError(411, "some.new.type"),
  "encoding-set": parserError(500, "stream.encoding.set"),
  plain: new Error("a bug at /work/main/src/x.ts:12"),
  api: new ApiError(409, "This upload URL was already used"),
};

describe("apiErrorHandler", () => {
  const logged: string[] = [];
  let base = "";
  let server: ReturnType<express.Express["listen"]>;

  beforeAll(async () => {
    const app = express();
    app.post("/fail/:name", (req, _res, next) => {
      req.resume();
      req.on("end", () => next(ERRORS[req.params.name]));
    });
    app.use(apiErrorHandler(pino({ level: "error" }, { write: (line: string) => void logged.push(line) })));
    server = app.listen(0, "127.0.0.1");
    await once(server, "listening");
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(() => {
    server.closeAllConnections();
    server.close();
  });

  const fail = async (name: string, headers: Record<string, string> = {}) => {
    const response = await fetch(`${base}/fail/${name}`, { method: "POST", headers, body: "{}" });
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    const body = (await response.json()) as { Message: string };
    expect(body).toEqual({
      Data: null,
      Version: "1.0.0",
      Success: false,
      Code: response.status,
      Message: expect.any(String),
    });
    return { status: response.status, message: body.Message };
  };

  it("answers the body parser's errors with their 4xx status and what was wrong with the body", async () => {
    expect(await fail("too-large")).toEqual({ status: 413, message: "The body is larger than 1 MB" });
    expect(await fail("encoding-unsupported")).toEqual({
      status: 415,
      message:
        'Content-Encoding "compress" is not supported; send the body uncompressed, or compressed with gzip, deflate or br',
    });
    expect(await fail("charset-unsupported")).toEqual({
      status: 415,
      message: 'The charset "koi8-r" is not supported; send UTF-8 JSON',
    });
    expect(await fail("size-invalid")).toEqual({
      status: 400,
      message: "The body is not as long as its Content-Length says",
    });
    expect(await fail("parse-failed")).toEqual({ status: 400, message: "The body is not valid JSON" });
    expect(await fail("verify-failed")).toEqual({ status: 403, message: "The body was refused" });
    // A decompression failure has no type: the request's Content-Encoding tells.
    expect(await fail("typeless-400", { "content-encoding": "br" })).toEqual({
      status: 400,
      message:
        'The body could not be decompressed as Content-Encoding "br" says; send it uncompressed, or compressed that way',
    });
    expect(await fail("typeless-400")).toEqual({ status: 400, message: "The request could not be read" });
    // A 4xx the API does not use becomes a 400 that still says what happened.
    expect(await fail("odd-4xx")).toEqual({ status: 400, message: "The request could not be read (some.new.type)" });
    expect(await fail("api")).toEqual({ status: 409, message: "This upload URL was already used" });
    expect(logged).toEqual([]);
  });

  it("answers anything else with a 500 that shows nothing of it, and logs it", async () => {
    expect(await fail("encoding-set")).toEqual({ status: 500, message: "Internal error" });
    expect(await fail("plain")).toEqual({ status: 500, message: "Internal error" });
    expect(logged).toHaveLength(2);
    expect(logged[1]).toContain("a bug at /work/main/src/x.ts:12");
  });
});
