import { STATUS_CODES } from "node:http";
import type { NextFunction, Request, Response } from "express";
import { answerBeforeBody } from "../common/early-answer.js";
import type { Logger } from "../common/log.js";

/**
 * The bridge app's last route: every request no route took gets `404 {"error":"not found"}` instead of Express's
 * HTML page.
 */
export function unknownRoute(req: Request, res: Response): void {
  // Before any body was read: the rest is read and dropped, so that the client still sending it gets the 404.
  answerBeforeBody(req, res, 404, { error: "not found" });
}

/**
 * The bridge app's last error handler, so that no route ever answers with Express's HTML error page or a stack trace,
 * whatever NODE_ENV says: a body the body parsers refused is answered with a short JSON error (413 over its route's
 * limit, 400 not JSON, 415 an unsupported encoding), another refusal (a 4xx error with a status) with the status's
 * name, and anything else with `500 {"error":"internal error"}`, its details going to the log only. A response
 * already under way is cut off, since its status can no longer change.
 */
export function finalErrorHandler(log: Logger) {
  return (error: unknown, req: Request, res: Response, _next: NextFunction): void => {
    if (res.headersSent) {
      log.warn({ err: error, method: req.method, path: req.path }, "a response failed after it started");
      res.destroy();
      return;
    }
    const { type, status, limit } = (error ?? {}) as { type?: unknown; status?: unknown; limit?: unknown };
    // Nobody is left to answer.
    if (type === "request.aborted") return;
    // A body parser refuses a body over its limit from its Content-Length, before reading it: the rest is drained.
    const refusal = bodyRefusal(type, limit);
    if (refusal) {
      answerBeforeBody(req, res, refusal.status, { error: refusal.error });
      return;
    }
    if (typeof status === "number" && status >= 400 && status < 500) {
      answerBeforeBody(req, res, status, { error: STATUS_CODES[status] ?? "request refused" });
      return;
    }
    log.error({ err: error, method: req.method, path: req.path }, "unexpected failure handling a request");
    res.status(500).json({ error: "internal error" });
  };
}

/** What a body-parser failure (https://github.com/expressjs/body-parser#errors) is answered with. */
function bodyRefusal(type: unknown, limit: unknown): { status: number; error: string } | undefined {
  switch (type) {
    case "entity.too.large":
      return {
        status: 413,
        error: `the request body is over ${typeof limit === "number" ? size(limit) : "the limit"}`,
      };
    case "entity.parse.failed":
      return { status: 400, error: "the request body is not valid JSON" };
    case "request.size.invalid":
      return { status: 400, error: "the request body does not match its Content-Length" };
    case "encoding.unsupported":
    case "charset.unsupported":
      return { status: 415, error: "the request body's encoding is not supported; send UTF-8 JSON" };
    default:
      return undefined;
  }
}

function size(bytes: number): string {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KB`;
  return `${bytes} bytes`;
}
