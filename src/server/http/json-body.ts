import express, { type NextFunction, type Request, type Response } from "express";
import { ApiError } from "./api-error.js";

/** Largest JSON body accepted by the API operations, in bytes (after decompression)… */
export const MAX_JSON_BODY_BYTES = 1024 * 1024;
/** …and as messages say it. */
export const MAX_JSON_BODY = "1 MB";

const readRaw = express.raw({ type: () => true, limit: MAX_JSON_BODY_BYTES });

/** True when an uncompressed body declares more bytes than the limit: refused before reading a byte of it. */
function declaredTooLarge(req: Request): boolean {
  const encoding = req.headers["content-encoding"]?.toLowerCase() ?? "identity";
  return encoding === "identity" && Number(req.headers["content-length"]) > MAX_JSON_BODY_BYTES;
}

/**
 * Reads the body as JSON whatever the Content-Type says: the spec's own samples for the real-estate
 * operations send no Content-Type (curl then sends form-urlencoded), so the bytes decide. A body compressed
 * with gzip, deflate or br (Content-Encoding) is decompressed. A body that is not a JSON object gets a 400
 * naming the problem; an oversized one a 413, by its Content-Length before it is read (the error handler
 * then drains it, bounded) or by counting.
 */
export function jsonBody(req: Request, res: Response, next: NextFunction): void {
  if (declaredTooLarge(req)) {
    next(new ApiError(413, `The body is larger than ${MAX_JSON_BODY}`));
    return;
  }
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
      const hint = type && !/json/i.test(type) ? ` (Content-Type was ${type.slice(0, 80)}; send application/json)` : "";
      return next(new ApiError(400, `The body is not valid JSON: ${(cause as Error).message}${hint}`));
    }
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
      return next(new ApiError(400, "The body must be a JSON object"));
    }
    req.body = parsed;
    next();
  });
}
