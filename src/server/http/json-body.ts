import express, { type NextFunction, type Request, type Response } from "express";
import { ApiError } from "./api-error.js";

/** Largest JSON body accepted by the API operations. */
export const MAX_JSON_BODY = "1mb";

const readRaw = express.raw({ type: () => true, limit: MAX_JSON_BODY });

/**
 * Reads the body as JSON whatever the Content-Type says: the spec's own samples for the real-estate
 * operations send no Content-Type (curl then sends form-urlencoded), so the bytes decide. A body that is
 * not a JSON object gets a 400 naming the problem; an oversized one a 413 (see the error handler).
 */
export function jsonBody(req: Request, res: Response, next: NextFunction): void {
  readRaw(req, res, (error?: unknown) => {
    if (error) return next(error);
    const raw = Buffer.isBuffer(req.body) ? req.body.toString("utf8") : "";
    if (raw.trim() === "") {
      req.body = {};
      return next();
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch (cause) {
      const type = req.headers["content-type"];
      const hint = type && !/json/i.test(type) ? ` (Content-Type was ${type}; send application/json)` : "";
      return next(new ApiError(400, `The body is not valid JSON: ${(cause as Error).message}${hint}`));
    }
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
      return next(new ApiError(400, "The body must be a JSON object"));
    }
    req.body = parsed;
    next();
  });
}
