import path from "node:path";
import { maskPassword } from "../../common/masked-url.js";

/** Where the bridge keeps its state, read from STORE_URL. */
export type StoreLocation =
  | { kind: "sqlite"; file: string }
  | { kind: "redis"; url: string; description: string }
  | { kind: "memory" };

const ACCEPTED_FORMS =
  "redis://host:6379, rediss://host:6380 (TLS), memory:// (tests), sqlite:///absolute/path.db, " +
  "sqlite://file.db (in DATA_DIR), or leave STORE_URL unset for DATA_DIR/bridge.db";

/** The SQLite file used when STORE_URL is unset. */
export function defaultSqliteFile(dataDir: string): string {
  return path.resolve(dataDir, "bridge.db");
}

/**
 * Reads STORE_URL. Unset or blank means the SQLite file in `dataDir`; a relative `sqlite://` path is taken
 * inside `dataDir` too, so every file the bridge writes lives in the one directory a deployment mounts.
 */
export function parseStoreUrl(url: string | undefined, dataDir: string): StoreLocation {
  const value = url?.trim() ?? "";
  if (value === "") return { kind: "sqlite", file: defaultSqliteFile(dataDir) };
  if (/^memory:\/\/$/i.test(value)) return { kind: "memory" };
  const sqlite = /^sqlite:\/\/(.+)$/i.exec(value);
  if (sqlite?.[1]) return { kind: "sqlite", file: path.resolve(dataDir, sqlite[1]) };
  if (/^rediss?:\/\//i.test(value)) {
    const parsed = URL.canParse(value) ? new URL(value) : undefined;
    if (parsed?.hostname) return { kind: "redis", url: value, description: describeRedisUrl(parsed) };
  }
  throw new Error(`STORE_URL ${JSON.stringify(maskPassword(value))} is not supported: use ${ACCEPTED_FORMS}`);
}

/** Scheme, host, port and database number: everything but the credentials. */
function describeRedisUrl(url: URL): string {
  const database = url.pathname === "/" ? "" : url.pathname;
  return `${url.protocol}//${url.host}${database}`;
}
