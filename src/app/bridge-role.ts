import { parseStoreUrl } from "../bridge/store/store-url.js";

/**
 * What one `chatbridge start` process does (`--role`):
 * - `all` (the default): takes the platforms' events and answers them;
 * - `web`: takes the platforms' events only — webhooks, the web chat's routes and event streams, Telegram long
 *   polling, Slack Socket Mode, admin — recording each durably and acknowledging it; it answers nothing;
 * - `worker`: answers only: it works through the recorded events with every channel's outbound side, and serves
 *   nothing but /healthz, /readyz, /metrics (and the embedded chatbot API its own client talks to).
 * Every role runs the background passes when it holds their lease.
 */
export type BridgeRole = "web" | "worker" | "all";

/** The roles, as `--role` accepts them. */
export const BRIDGE_ROLES: readonly BridgeRole[] = ["all", "web", "worker"];

/** Whether a process of this role takes the platforms' events (webhooks, polling, sockets, the web chat). */
export function receives(role: BridgeRole): boolean {
  return role !== "worker";
}

/** Whether a process of this role answers (runs the conversation workers). */
export function answers(role: BridgeRole): boolean {
  return role !== "web";
}

/**
 * Why a role cannot work with this store, as one line for the operator, or undefined when it can. `web` and `worker`
 * only make sense with processes of the other role sharing the store: `memory://` is this process's alone, so
 * what a web process records would never be answered.
 */
export function roleRefusal(role: BridgeRole, storeUrl: string | undefined, dataDir: string): string | undefined {
  if (role === "all" || parseStoreUrl(storeUrl, dataDir).kind !== "memory") return undefined;
  return `--role ${role} needs a store that the other processes share, but STORE_URL=memory:// is this process's memory alone: set STORE_URL=redis://… (or leave it unset for the SQLite file in DATA_DIR, which processes on one machine share).`;
}

/**
 * A warning for the banner when the role works with this store only under a condition: SQLite is shared by the
 * processes of one machine that open the same file, never across machines.
 */
export function roleWarning(role: BridgeRole, storeUrl: string | undefined, dataDir: string): string | undefined {
  if (role === "all") return undefined;
  const location = parseStoreUrl(storeUrl, dataDir);
  if (location.kind !== "sqlite") return undefined;
  return `--role ${role} with the SQLite store ${location.file}: only processes on this machine that open this file work together; for processes on several machines set STORE_URL=redis://… on all of them.`;
}
