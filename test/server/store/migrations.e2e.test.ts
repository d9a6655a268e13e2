import { existsSync } from "node:fs";
import path from "node:path";
import SQLite from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { openApiStore, sqliteFilePath } from "../../../src/server/store/open-store.js";
import { dropSchema, freshSchemaName, postgresForTests, TEST_POSTGRES_URL } from "../../support/postgres.js";
import { removeDataDir, tempDataDir } from "../../support/sqlite.js";
import { minimalListing, newChatbot } from "./fixtures.js";

const postgres = await postgresForTests();

/** The tables of a SQLite file, read without the store. */
function sqliteTables(file: string): string[] {
  const database = new SQLite(file, { readonly: true });
  try {
    const rows = database.prepare("select name from sqlite_master where type = 'table' order by name").all();
    return rows.map((row) => (row as { name: string }).name);
  } finally {
    database.close();
  }
}

describe("opening the SQLite store", () => {
  const dataDirs: string[] = [];
  const newDataDir = () => {
    const dataDir = tempDataDir();
    dataDirs.push(dataDir);
    return dataDir;
  };
  afterEach(() => {
    for (const dataDir of dataDirs.splice(0)) removeDataDir(dataDir);
  });

  it("creates the data directory and a WAL-journaled chatbridge.db in it", async () => {
    const dataDir = path.join(newDataDir(), "nested", "data");
    const store = await openApiStore({ dataDir });
    await store.close();

    expect(existsSync(path.join(dataDir, "chatbridge.db"))).toBe(true);
    const database = new SQLite(sqliteFilePath(dataDir), { readonly: true });
    expect(database.pragma("journal_mode", { simple: true })).toBe("wal");
    database.close();
  });

  it("migrates once: opening again keeps the data and applies nothing twice", async () => {
    const dataDir = newDataDir();
    const first = await openApiStore({ dataDir });
    const chatbot = await newChatbot(first);
    const listing = await first.listings.create(chatbot.id, minimalListing());
    await first.close();

    const second = await openApiStore({ dataDir });
    try {
      expect(await second.chatbots.byId(chatbot.id)).toEqual(chatbot);
      expect(await second.listings.findByKeys(chatbot.id, "NewOaks", [String(listing.ID)])).toEqual([listing]);
    } finally {
      await second.close();
    }
    const database = new SQLite(sqliteFilePath(dataDir), { readonly: true });
    expect(database.prepare("select name from kysely_migration order by name").all()).toEqual([
      { name: "0001_initial" },
      { name: "0002_leads_and_digests" },
    ]);
    database.close();
  });

  it("stops with the failing migration's name, applies none of it, and succeeds once the cause is gone", async () => {
    const dataDir = newDataDir();
    const file = sqliteFilePath(dataDir);
    const database = new SQLite(file);
    database.exec("create table files (id integer primary key)");
    database.close();

    await expect(openApiStore({ dataDir })).rejects.toThrow(/database migration 0001_initial failed: .*files/);
    expect(sqliteTables(file).filter((name) => !name.startsWith("kysely_"))).toEqual(["files"]);

    const fix = new SQLite(file);
    fix.exec("drop table files");
    fix.close();
    const store = await openApiStore({ dataDir });
    await store.close();
    expect(sqliteTables(file)).toEqual(expect.arrayContaining(["workspaces", "chatbots", "listings", "files"]));
  });

  it("refuses a database URL that is not PostgreSQL instead of quietly using SQLite", async () => {
    await expect(openApiStore({ databaseUrl: "mysql://db/chatbridge", dataDir: newDataDir() })).rejects.toThrow(
      /postgres:\/\//,
    );
  });

  it("opens an in-memory database for ':memory:'", async () => {
    const store = await openApiStore({ dataDir: ":memory:" });
    try {
      const chatbot = await newChatbot(store);
      expect(await store.chatbots.byId(chatbot.id)).toEqual(chatbot);
    } finally {
      await store.close();
    }
    expect(existsSync(":memory:")).toBe(false);
  });
});

describe.skipIf(!postgres.available)("opening the PostgreSQL store", () => {
  const schemas: string[] = [];
  afterEach(async () => {
    for (const schema of schemas.splice(0)) await dropSchema(schema);
  });

  it("creates the schema, migrates once, and keeps the data when opened again", async () => {
    const schema = freshSchemaName();
    schemas.push(schema);
    const first = await openApiStore({ databaseUrl: TEST_POSTGRES_URL, dataDir: ":memory:", schema });
    const chatbot = await newChatbot(first);
    await first.close();

    const second = await openApiStore({ databaseUrl: TEST_POSTGRES_URL, dataDir: ":memory:", schema });
    try {
      expect(await second.chatbots.byId(chatbot.id)).toEqual(chatbot);
      await second.ping();
    } finally {
      await second.close();
    }
  });

  it("rejects a schema name that is not a plain identifier", async () => {
    await expect(
      openApiStore({ databaseUrl: TEST_POSTGRES_URL, dataDir: ":memory:", schema: "bad; drop table x" }),
    ).rejects.toThrow(/plain identifier/);
  });
});
