import path from "node:path";
import SQLite from "better-sqlite3";
import { Kysely, PostgresDialect, SqliteDialect, sql } from "kysely";
import pg from "pg";
import { openSqliteFile } from "../../common/sqlite-file.js";
import type { ApiStore } from "./api-store.js";
import type { Clock } from "./codecs.js";
import { createKyselyStore } from "./kysely-store.js";
import { inProcessChangeFeed } from "./listing-change-feed.js";
import { migrateToLatest, type StoreDialect } from "./migrations.js";
import { postgresChangeFeed } from "./postgres-change-feed.js";
import { postgresConnectError } from "./postgres-errors.js";
import type { Database } from "./tables.js";

/** Where the store keeps its data. */
export interface OpenStoreOptions {
  /** A postgres:// (or postgresql://) URL; unset or empty = SQLite in `dataDir`. */
  databaseUrl?: string | undefined;
  /** Directory of the SQLite file (created if missing), or ":memory:" for a database that lives in memory. */
  dataDir: string;
  /** PostgreSQL only: the schema to use instead of the default search path, created if missing. */
  schema?: string;
  /**
   * The clock that stamps createdAt and updatedAt; default the system clock. Give the services' clock, so that
   * the limits (`countSince`) compare times from one source.
   */
  now?: Clock;
}

/** The SQLite file the store uses in a data directory. */
export function sqliteFilePath(dataDir: string): string {
  return path.join(dataDir, "chatbridge.db");
}

/**
 * Opens the database — PostgreSQL for a postgres URL, SQLite otherwise — and applies pending migrations before
 * returning the store. A migration that fails closes the database and rejects with the migration's name. A
 * database that cannot be reached, refuses the login or does not exist, and a DATA_DIR that cannot hold the SQLite
 * file, reject with a StartupError naming DATABASE_URL or DATA_DIR.
 */
export async function openApiStore(options: OpenStoreOptions): Promise<ApiStore> {
  const { db, dialect, schema } = options.databaseUrl
    ? await openPostgres(options.databaseUrl, options.schema)
    : openSqlite(options.dataDir);
  try {
    await migrateToLatest(db, dialect, schema);
  } catch (error) {
    await db.destroy();
    throw error;
  }
  // PostgreSQL may be shared by several server instances, each of which must hear the others' changes.
  const listingChanges = options.databaseUrl
    ? postgresChangeFeed({
        db,
        connectionString: options.databaseUrl,
        schema: schema ?? "public",
        connectionTimeoutMillis: POSTGRES_CONNECT_TIMEOUT_MS,
      })
    : inProcessChangeFeed();
  return createKyselyStore(db, options.now ?? (() => new Date()), listingChanges);
}

interface OpenedDatabase {
  db: Kysely<Database>;
  dialect: StoreDialect;
  /** PostgreSQL: the schema the tables and the migration log live in. */
  schema?: string;
}

function openSqlite(dataDir: string): OpenedDatabase {
  // The file is opened in WAL mode (see openSqliteFile); NORMAL syncs at checkpoints only, which WAL keeps consistent.
  const database =
    dataDir === ":memory:"
      ? new SQLite(":memory:")
      : openSqliteFile(sqliteFilePath(dataDir), { name: "DATA_DIR", value: dataDir });
  database.pragma("synchronous = NORMAL");
  // SQLite leaves foreign keys (and so ON DELETE CASCADE) off unless each connection asks.
  database.pragma("foreign_keys = ON");
  // Another process holding the write lock (a second instance, a backup) is waited for instead of failing.
  database.pragma("busy_timeout = 5000");
  return { db: new Kysely<Database>({ dialect: new SqliteDialect({ database }) }), dialect: "sqlite" };
}

/** Longest wait for a PostgreSQL connection (TCP, TLS and login). */
const POSTGRES_CONNECT_TIMEOUT_MS = 10_000;

/** PostgreSQL's type id of int8 (bigint): ids, epoch-millisecond timestamps and counts. */
const INT8 = pg.types.builtins.INT8;

async function openPostgres(url: string, schema: string | undefined): Promise<OpenedDatabase> {
  if (!/^postgres(ql)?:\/\//.test(url)) {
    throw new Error("the database URL must start with postgres:// or postgresql://");
  }
  if (schema !== undefined && !/^[A-Za-z_][A-Za-z0-9_]*$/.test(schema)) {
    throw new Error(`the PostgreSQL schema name ${JSON.stringify(schema)} must be a plain identifier`);
  }
  const pool = new pg.Pool({
    connectionString: url,
    // This pool only: int8 as a number (pg's default is a string), so rows read the same as from SQLite.
    // Ids and epoch milliseconds stay far below 2^53.
    types: {
      getTypeParser: ((oid: number, format?: "text" | "binary") =>
        oid === INT8 ? Number : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
    },
    // Every connection of the pool sees only the schema, so tables and the migration log live there.
    ...(schema === undefined ? {} : { options: `-c search_path=${schema}` }),
    // Without it a server that accepts but never answers (a firewall, a stuck server) keeps a connect waiting forever.
    connectionTimeoutMillis: POSTGRES_CONNECT_TIMEOUT_MS,
  });
  // A connection that breaks while idle is dropped by the pool and the next query opens another; without a
  // listener the "error" event would end the process.
  pool.on("error", () => {});
  // Connecting first makes a refused login, a missing database or a server that is down one clear line at
  // start-up, instead of a failed migration.
  try {
    await pool.query("select 1");
  } catch (error) {
    await pool.end();
    throw postgresConnectError(error, url, POSTGRES_CONNECT_TIMEOUT_MS);
  }
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  try {
    if (schema !== undefined) await db.schema.createSchema(schema).ifNotExists().execute();
    // The schema unqualified names resolve to: the migration log is looked for there only (see migrateToLatest).
    const current = await sql<{ name: string | null }>`select current_schema() as name`.execute(db);
    const name = current.rows[0]?.name ?? undefined;
    return { db, dialect: "postgres", ...(name ? { schema: name } : {}) };
  } catch (error) {
    await db.destroy();
    throw error;
  }
}
