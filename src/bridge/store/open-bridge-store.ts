import type { BridgeStore } from "./bridge-store.js";
import { openMemoryStore } from "./memory-store.js";
import { openSqliteStore } from "./sqlite-store.js";
import { parseStoreUrl } from "./store-url.js";

/** What {@link openBridgeStore} opens. */
export interface OpenBridgeStoreOptions {
  /** STORE_URL: unset for `<dataDir>/bridge.db`, `sqlite://…`, `redis://…`, `rediss://…` or `memory://`. */
  url?: string | undefined;
  /** DATA_DIR: holds the default SQLite file and relative `sqlite://` paths. */
  dataDir: string;
  /**
   * Prefix of every key and claim (default "chatbridge"), so several bridges — or test runs — can share one
   * Redis or SQLite file without seeing each other's state.
   */
  namespace?: string | undefined;
}

/** The namespace when none is given. */
export const DEFAULT_STORE_NAMESPACE = "chatbridge";

/**
 * Opens the store that STORE_URL names. Rejects with an error naming STORE_URL when the URL is not one of the
 * accepted forms, and with a StartupError naming STORE_URL (or DATA_DIR, for the default SQLite file) when Redis
 * cannot be reached or refuses the credentials, or the SQLite file or its folder cannot be written.
 */
export async function openBridgeStore(options: OpenBridgeStoreOptions): Promise<BridgeStore> {
  const location = parseStoreUrl(options.url, options.dataDir);
  const namespace = options.namespace ?? DEFAULT_STORE_NAMESPACE;
  // Keyv strips its prefix up to the first ":" and Redis SCAN reads "*?[" as patterns, so neither may appear.
  if (!/^[A-Za-z0-9_-]+$/.test(namespace)) {
    throw new Error(`the store namespace ${JSON.stringify(namespace)} may hold only letters, digits, "_" and "-"`);
  }
  switch (location.kind) {
    case "sqlite":
      return openSqliteStore(
        location.file,
        namespace,
        options.url ? { name: "STORE_URL", value: options.url } : { name: "DATA_DIR", value: options.dataDir },
      );
    case "redis": {
      // The Redis client (5 MB in memory) is imported only by a process whose store is on Redis.
      const { openRedisStore } = await import("./redis-store.js");
      return openRedisStore(location.url, location.description, namespace);
    }
    case "memory":
      return openMemoryStore(namespace);
  }
}
