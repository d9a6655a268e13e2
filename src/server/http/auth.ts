import type { NextFunction, Request, Response } from "express";
import type { ApiKey } from "../../api/operations.js";
import type { Workspace } from "../domain.js";
import type { ApiStore } from "../store/api-store.js";
import { ApiError } from "./api-error.js";

/** The workspace that authenticated the request (set by {@link requireKey}). */
export function workspaceOf(res: Response): Workspace {
  const workspace = res.locals.workspace as Workspace | undefined;
  if (!workspace) throw new ApiError(500, "No workspace on an authenticated route");
  return workspace;
}

function header(req: Request, name: string): string | undefined {
  const value = req.headers[name];
  const text = (Array.isArray(value) ? value[0] : value)?.trim();
  return text ? text : undefined;
}

/**
 * Resolves the workspace from `Authorization` (the secret key; a `Bearer ` prefix is tolerated) or
 * `chatrobot-sessionkey`, accepting only the kinds the operation allows. No key, or no known key of an
 * accepted kind, is a 401 that says which header the operation wants.
 */
export function requireKey(store: ApiStore, operation: string, accepts: readonly ApiKey[]) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const secret = header(req, "authorization")?.replace(/^Bearer\s+/i, "");
    const session = header(req, "chatrobot-sessionkey");
    let workspace: Workspace | undefined;
    if (secret && accepts.includes("secret")) workspace = await store.workspaces.bySecretKey(secret);
    if (!workspace && session && accepts.includes("session")) workspace = await store.workspaces.bySessionKey(session);
    if (workspace) {
      res.locals.workspace = workspace;
      return next();
    }
    const wanted = accepts
      .map((kind) =>
        kind === "secret" ? "the secret key in Authorization" : "the session key in chatrobot-sessionkey",
      )
      .join(" or ");
    const given = (accepts.includes("secret") && secret) || (accepts.includes("session") && session);
    if (given) throw new ApiError(401, `Invalid API key: ${operation} needs ${wanted}`);
    const other = secret
      ? "Authorization (the secret key)"
      : session
        ? "chatrobot-sessionkey (the session key)"
        : undefined;
    throw new ApiError(401, `${operation} needs ${wanted}${other ? `; ${other} is not accepted here` : ""}`);
  };
}
