import type { Request, RequestHandler, Response } from "express";
import type { Workspace } from "../domain.js";
import type { ApiStore } from "../store/api-store.js";
import { type KeyKind, requireKey, workspaceOf } from "./auth.js";
import { sendData } from "./envelope.js";
import { jsonBody } from "./json-body.js";

/** A route handler of an authenticated operation: returns the envelope's `Data`, or handles `res` itself. */
export type OperationHandler = (input: {
  body: unknown;
  workspace: Workspace;
  req: Request;
  res: Response;
}) => Promise<unknown>;

/** Marks a handler that wrote the response itself (a stream). */
export const RESPONDED = Symbol("responded");

/** The middleware chain of one operation: JSON body, credential check, handler, envelope. */
export function operation(
  store: ApiStore,
  name: string,
  accepts: readonly KeyKind[],
  handler: OperationHandler,
): RequestHandler[] {
  return [
    jsonBody,
    requireKey(store, name, accepts),
    async (req, res) => {
      const data = await handler({ body: req.body, workspace: workspaceOf(res), req, res });
      if (data !== RESPONDED) sendData(res, data);
    },
  ];
}

/** An AbortSignal that fires when the client goes away before the response is complete. */
export function clientGone(res: Response): AbortSignal {
  const controller = new AbortController();
  res.on("close", () => {
    if (!res.writableFinished) controller.abort();
  });
  return controller.signal;
}
