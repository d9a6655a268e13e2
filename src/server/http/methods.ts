import type { Request, RequestHandler, Response, Router } from "express";
import { answerBeforeBody } from "../../common/early-answer.js";
import { ApiError } from "./api-error.js";
import { dataEnvelope } from "./envelope.js";

/** The methods an operation is served with. */
export type OperationMethod = "GET" | "POST" | "PUT";

/** Serves `path` with `method` only, OPTIONS with the envelope, anything else with a 405 (see {@link strictRoutes}). */
function serve(router: Router, method: OperationMethod, path: string, handlers: RequestHandler[]): void {
  const allowed = method === "GET" ? ["GET", "HEAD", "OPTIONS"] : [method, "OPTIONS"];
  const allow = allowed.join(", ");
  const route = router.route(path);
  if (method === "GET") route.get(...handlers);
  else if (method === "POST") route.post(...handlers);
  else route.put(...handlers);
  route.options((req: Request, res: Response) => {
    res.set("Allow", allow);
    // Nothing reads an OPTIONS request's body: one still on its way is drained, so that the answer arrives.
    answerBeforeBody(req, res, 200, dataEnvelope(allowed));
  });
  route.all((req: Request, res: Response) => {
    res.set("Allow", allow);
    throw new ApiError(405, `${req.method} is not allowed on ${req.baseUrl}${req.path}; use ${method}`);
  });
}

type Handlers = (RequestHandler | RequestHandler[])[];

/**
 * `router.get/post/put` for operations: each path is served with its one method. Every other method gets a 405
 * envelope with an `Allow` header, before any key check (which methods a path takes is no secret).
 *
 * OPTIONS is answered with 200, `Allow`, and the envelope whose `Data` lists the same methods. HTTP allows an
 * OPTIONS answer to have a body (RFC 9110 §9.3.7), so the rule that every answer of the API is the envelope
 * holds here too; a 204 would have been the one answer without it. The API sends no CORS headers, now as
 * before: its keys are secrets that do not belong in a browser page of another origin (the web chat talks to
 * its own server under /webchat), so a browser's preflight from another origin still fails as it did.
 */
export function strictRoutes(router: Router) {
  return {
    get: (path: string, ...handlers: Handlers) => serve(router, "GET", path, handlers.flat()),
    post: (path: string, ...handlers: Handlers) => serve(router, "POST", path, handlers.flat()),
    put: (path: string, ...handlers: Handlers) => serve(router, "PUT", path, handlers.flat()),
  };
}

/** The `get`/`post`/`put` of {@link strictRoutes}. */
export type StrictRoutes = ReturnType<typeof strictRoutes>;
