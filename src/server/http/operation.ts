import type { Request, RequestHandler, Response } from "express";
import type { z } from "zod";
import { API_ROOT, type ApiOperation } from "../../api/operations.js";
import type { Workspace } from "../domain.js";
import { parseRequest } from "../schemas/parse-request.js";
import type { ApiStore } from "../store/api-store.js";
import { requireKey, workspaceOf } from "./auth.js";
import { sendData } from "./envelope.js";
import { jsonBody } from "./json-body.js";
import type { StrictRoutes } from "./methods.js";

/**
 * A route handler of an authenticated operation: gets the validated request, returns the envelope's `Data`, or
 * handles `res` itself.
 */
export type OperationHandler<Input> = (context: {
  input: Input;
  workspace: Workspace;
  req: Request;
  res: Response;
}) => Promise<unknown>;

/** Marks a handler that wrote the response itself (a stream). */
export const RESPONDED = Symbol("responded");

/** The middleware chain of one operation: JSON body, credential check, validation, handler, envelope. */
function operationChain<Request extends z.ZodObject>(
  store: ApiStore,
  row: ApiOperation<Request>,
  handler: OperationHandler<z.output<Request>>,
): RequestHandler[] {
  return [
    jsonBody,
    requireKey(store, row.name, row.accepts),
    async (req, res) => {
      const input = parseRequest(row.request, req.body);
      const data = await handler({ input, workspace: workspaceOf(res), req, res });
      if (data !== RESPONDED) sendData(res, data);
    },
  ];
}

/**
 * Serves a row of the API's table (`src/api/operations.ts`) at its path under the router's mount point, with its
 * method, the keys it accepts, and its request schema; a caller may pass the row with a narrower schema of its own
 * (Edit's models).
 */
export function serveOperation<Request extends z.ZodObject>(
  routes: StrictRoutes,
  store: ApiStore,
  row: ApiOperation<Request>,
  handler: OperationHandler<z.output<Request>>,
): void {
  const path = row.path.slice(API_ROOT.length);
  const chain = operationChain(store, row, handler);
  if (row.method === "GET") routes.get(path, chain);
  else routes.post(path, chain);
}

/** An AbortSignal that fires when the client goes away before the response is complete. */
export function clientGone(res: Response): AbortSignal {
  const controller = new AbortController();
  res.on("close", () => {
    if (!res.writableFinished) controller.abort();
  });
  return controller.signal;
}
