import type { NextFunction, Request, Response } from "express";
import type { Logger } from "../../common/log.js";
import { ApiError, type ApiStatus } from "./api-error.js";
import { MAX_JSON_BODY } from "./json-body.js";
import { sendFailureBeforeBody } from "./request-drain.js";

/** A header value as it may go into a message: one line, short. */
function quoted(value: unknown): string {
  return JSON.stringify(String(value ?? "").slice(0, 40));
}

const CLIENT_STATUSES: readonly ApiStatus[] = [400, 401, 403, 404, 405, 409, 413, 415, 429];

/**
 * The answer to a body that could not be read, from the error of express's body parser (body-parser and
 * raw-body): by its `type`, or by its 4xx `status` when it has no type (a body that does not decompress as
 * its Content-Encoding says). Undefined for anything else.
 */
function bodyFailure(error: unknown, req: Request): ApiError | undefined {
  const fields = typeof error === "object" && error !== null ? (error as Record<string, unknown>) : {};
  const { type, status, statusCode, encoding, charset } = fields;
  const code = Number(status ?? statusCode);
  switch (type) {
    case "entity.too.large":
      return new ApiError(413, `The body is larger than ${MAX_JSON_BODY}`);
    case "encoding.unsupported":
      return new ApiError(
        415,
        `Content-Encoding ${quoted(encoding)} is not supported; send the body uncompressed, or compressed with gzip, deflate or br`,
      );
    case "charset.unsupported":
      return new ApiError(415, `The charset ${quoted(charset)} is not supported; send UTF-8 JSON`);
    case "request.size.invalid":
      return new ApiError(400, "The body is not as long as its Content-Length says");
    case "entity.parse.failed":
      return new ApiError(400, "The body is not valid JSON");
    case "entity.verify.failed":
      return new ApiError(403, "The body was refused");
  }
  if (!(code >= 400 && code <= 499)) return undefined;
  const contentEncoding = req.headers["content-encoding"];
  if (type === undefined && contentEncoding && contentEncoding.toLowerCase() !== "identity") {
    return new ApiError(
      400,
      `The body could not be decompressed as Content-Encoding ${quoted(contentEncoding)} says; send it uncompressed, or compressed that way`,
    );
  }
  const known = CLIENT_STATUSES.find((candidate) => candidate === code) ?? 400;
  return new ApiError(known, `The request could not be read${typeof type === "string" ? ` (${type})` : ""}`);
}

/**
 * Turns every failure into the envelope: ApiErrors as they are, the body parser's errors as 4xx with what was
 * wrong with the body, anything else as a 500 whose details go to the log only (never a stack trace to the
 * caller). A body the request still has unread is drained (bounded) so that the client receives the answer.
 */
export function apiErrorHandler(log: Logger) {
  return (error: unknown, req: Request, res: Response, _next: NextFunction): void => {
    if (res.headersSent) {
      res.end();
      return;
    }
    // The client left while sending its body: nobody to answer.
    if (typeof error === "object" && error !== null && "type" in error && error.type === "request.aborted") return;
    const failure = error instanceof ApiError ? error : bodyFailure(error, req);
    if (failure) sendFailureBeforeBody(req, res, failure.status, failure.message);
    else {
      log.error({ err: error, path: req.path }, "unexpected failure in the chatbot API");
      sendFailureBeforeBody(req, res, 500, "Internal error");
    }
  };
}
