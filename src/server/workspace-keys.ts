import { randomBytes } from "node:crypto";
import type { Workspace } from "./domain.js";
import type { ApiStore } from "./store/api-store.js";

/** Fresh credentials: 32 random bytes each, prefixed so an operator can tell them apart. */
export function newWorkspaceKeys(): { secretKey: string; sessionKey: string } {
  return {
    secretKey: `sk_${randomBytes(32).toString("base64url")}`,
    sessionKey: `ss_${randomBytes(32).toString("base64url")}`,
  };
}

/** Creates a workspace with new keys (`chatbridge keys create`). */
export function createWorkspace(store: ApiStore, name: string): Promise<Workspace> {
  return store.workspaces.create({ name, ...newWorkspaceKeys() });
}
