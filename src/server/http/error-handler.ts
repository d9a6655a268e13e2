import type { NextFunction, Request, Response } from "express";
import type { Logger } from "../../log.js";
import { ApiError } from "./api-error.js";
import { sendFailure } from "./envelope.js";
import { MAX_JSON_BODY } from "./json-body.js";

/**
 * Turns every failure into the envelope: ApiErrors as they are, body-parser errors as 400/413, anything
 * else as a 500 whose details go to the log only (never a stack trace to the caller).
 */
export function apiErrorHandler(log: Logger) {
  return (error: unknown, req: Request, res: Response, _next: NextFunction): void => {
    if (res.headersSent) {
      res.end();
      return;
    }
    const type = (error as { type?: string }).type;
    if (error instanceof ApiError) sendFailure(res, error.status, error.message);
    else if (type === "entity.too.large") sendFailure(res, 413, `The body is larger than ${MAX_JSON_BODY}`);
    else if (type === "encoding.unsupported" || type === "charset.unsupported") {
      sendFailure(res, 400, "The body's encoding is not supported; send UTF-8 JSON");
    } else if (type !== "request.aborted") {
      log.error({ err: error, path: req.path }, "unexpected failure in the chatbot API");
      sendFailure(res, 500, "Internal error");
    }
  };
}
