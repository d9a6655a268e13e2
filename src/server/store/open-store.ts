import { mkdirSync } from "node:fs";
import path from "node:path";
import SQLite from "better-sqlite3";
import { Kysely, PostgresDialect, SqliteDialect } from "kysely";
import pg from "pg";
import type { ApiStore } from "./api-store.js";
import type { Clock } from "./codecs.js";
import { createKyselyStore } from "./kysely-store.js";
import { migrateToLatest, type StoreDialect } from "./migrations.js";
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
 * returning the store. A migration that fails closes the database and rejects with the migration's name.
 */
export async function openApiStore(options: OpenStoreOptions): Promise<ApiStore> {
  const { db, dialect } = options.databaseUrl
    ? await openPostgres(options.databaseUrl, options.schema)
    : openSqlite(options.dataDir);
  try {
    await migrateToLatest(db, dialect);
  } catch (error) {
    await db.destroy();
    throw error;
  }
  return createKyselyStore(db, options.now ?? (() => new Date()));
}

interface OpenedDatabase {
  db: Kysely<Database>;
  dialect: StoreDialect;
}

function openSqlite(dataDir: string): OpenedDatabase {
  let file = ":memory:";
  if (dataDir !== ":memory:") {
    mkdirSync(dataDir, { recursive: true });
    file = sqliteFilePath(dataDir);
  }
  const database = new SQLite(file);
  // WAL lets readers run while a write commits; NORMAL syncs at checkpoints only, which WAL keeps consistent.
  database.pragma("journal_mode = WAL");
  database.pragma("synchronous = NORMAL");
  // SQLite leaves foreign keys (and so ON DELETE CASCADE) off unless each connection asks.
  database.pragma("foreign_keys = ON");
  // Another process holding the write lock (a second instance, a backup) is waited for instead of failing.
  database.pragma("busy_timeout = 5000");
  return { db: new Kysely<Database>({ dialect: new SqliteDialect({ database }) }), dialect: "sqlite" };
}

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
  });
  // A connection that breaks while idle is dropped by the pool and the next query opens another; without a
  // listener the "error" event would end the process.
  pool.on("error", () => {});
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  if (schema !== undefined) {
    try {
      await db.schema.createSchema(schema).ifNotExists().execute();
    } catch (error) {
      await db.destroy();
      throw error;
    }
  }
  return { db, dialect: "postgres" };
}
