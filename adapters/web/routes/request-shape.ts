import type { NextFunction, Request, Response } from "express";
import { z } from "zod";
import { answerBeforeBody } from "../../../src/plugin/plugin-api.js";
import { visitorToken } from "../visitor-identity.js";

/** A chatbot's serial number as a request names it; the web chat's own is checked by the admission. */
export const serialNumber = z.string().trim().min(1).max(64);

/** A query parameter's value when one was given: `?chatbot=` names no chatbot, like no parameter at all. */
export function named(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}

/**
 * Refuses a request with a body on a route that reads none (413, in words), so that nobody makes this instance take
 * in a body only to discard it.
 */
export function noBody(req: Request, res: Response, next: NextFunction): void {
  if (req.get("transfer-encoding") !== undefined || Number(req.get("content-length") ?? 0) > 0) {
    answerBeforeBody(req, res, 413, { error: "this endpoint takes no request body" });
    return;
  }
  next();
}

/**
 * The JSON body as `schema` reads it, or a 400 naming the first field it refuses (then undefined): the page learns
 * what to fix, and a malformed post goes no further.
 */
export function parsedBody<S extends z.ZodType>(schema: S, req: Request, res: Response): z.output<S> | undefined {
  const parsed = schema.safeParse(req.body);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  res.status(400).json({ error: `${issue?.path.join(".") || "body"} ${issue?.message ?? "is invalid"}` });
  return undefined;
}

/**
 * The visitor token of `?visitor=`, or a 400 said (then undefined): the uploads and the event stream name their
 * visitor in the query, since their bodies are a file or nothing.
 */
export function visitorQuery(req: Request, res: Response): string | undefined {
  const parsed = visitorToken.safeParse(req.query.visitor);
  if (parsed.success) return parsed.data;
  res.status(400).json({ error: `visitor ${parsed.error.issues[0]?.message ?? "is invalid"}` });
  return undefined;
}
