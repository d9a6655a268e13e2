import { randomBytes } from "node:crypto";
import pg from "pg";

/** The local PostgreSQL the tests use (trust authentication). */
export const TEST_POSTGRES_URL = "postgres://postgres@127.0.0.1:5432/test";

/** Whether the tests' PostgreSQL can be used, and why not when it cannot. */
export type PostgresAvailability = { available: true; url: string } | { available: false; reason: string };

let checked: Promise<PostgresAvailability> | undefined;

/**
 * Checks once (per test file) that the tests' PostgreSQL answers. When it does not, the PostgreSQL suites skip
 * with the reason printed — unless CHATBRIDGE_REQUIRE_SERVICES=1 (set by CI), where a skipped suite would hide
 * a broken setup, so this rejects and the test file fails.
 */
export function postgresForTests(): Promise<PostgresAvailability> {
  checked ??= check();
  return checked;
}

async function check(): Promise<PostgresAvailability> {
  const client = new pg.Client({ connectionString: TEST_POSTGRES_URL, connectionTimeoutMillis: 3_000 });
  try {
    await client.connect();
    await client.query("select 1");
    return { available: true, url: TEST_POSTGRES_URL };
  } catch (error) {
    const reason = `PostgreSQL at ${TEST_POSTGRES_URL} is unreachable: ${error instanceof Error ? error.message : String(error)}`;
    if (process.env.CHATBRIDGE_REQUIRE_SERVICES === "1") {
      throw new Error(`${reason} (CHATBRIDGE_REQUIRE_SERVICES=1 requires it; start PostgreSQL)`, { cause: error });
    }
    console.warn(`skipping the PostgreSQL tests: ${reason}`);
    return { available: false, reason };
  } finally {
    await client.end().catch(() => {});
  }
}

/** A schema name no other test run uses, so runs in parallel never see each other's tables. */
export function freshSchemaName(): string {
  return `chatbridge_test_${process.pid}_${randomBytes(4).toString("hex")}`;
}

/** Drops a test schema with everything in it. */
export async function dropSchema(schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: TEST_POSTGRES_URL });
  await client.connect();
  try {
    await client.query(`drop schema if exists "${schema}" cascade`);
  } finally {
    await client.end();
  }
}
