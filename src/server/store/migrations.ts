import { type ColumnDefinitionBuilder, type Kysely, type Migration, Migrator } from "kysely";
import type { Database } from "./tables.js";

/** The two databases the store runs on; the schema differs only in how ids are generated. */
export type StoreDialect = "sqlite" | "postgres";

/**
 * Brings the schema up to date (on PostgreSQL, `schema` is where the tables and the migration log live). Already applied migrations are skipped, so running it at every open is a no-op
 * once the database is current. A failure throws naming the migration, and nothing of it is applied.
 */
export async function migrateToLatest(db: Kysely<Database>, dialect: StoreDialect, schema?: string): Promise<void> {
  // Named, because Kysely otherwise takes a migration log in any schema of the database for its own: with another
  // schema holding one (another deployment, a test run), it would skip creating ours and then fail to lock it.
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => migrations(dialect) },
    ...(schema === undefined ? {} : { migrationTableSchema: schema }),
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error === undefined) return;
  const failed = results?.find((result) => result.status === "Error")?.migrationName;
  const reason = error instanceof Error ? error.message : String(error);
  throw new Error(
    failed === undefined
      ? `database migrations could not run: ${reason}`
      : `database migration ${failed} failed: ${reason}`,
    { cause: error },
  );
}

/** Every migration by name; names sort in the order they apply. */
function migrations(dialect: StoreDialect): Record<string, Migration> {
  return { "0001_initial": initial(dialect), "0002_leads_and_digests": leadsAndDigests(dialect) };
}

/** How an integer primary key is generated: SQLite's rowid alias, PostgreSQL's identity column. */
interface IdColumn {
  type: "integer" | "bigint";
  define(column: ColumnDefinitionBuilder): ColumnDefinitionBuilder;
}

function idColumn(dialect: StoreDialect): IdColumn {
  // AUTOINCREMENT keeps SQLite from reusing the id of a deleted row: listing ids are API keys (NewOaks), so a
  // reused id would let a stale key hit another listing.
  return dialect === "sqlite"
    ? { type: "integer", define: (column) => column.primaryKey().autoIncrement() }
    : { type: "bigint", define: (column) => column.primaryKey().generatedByDefaultAsIdentity() };
}

/** Foreign key to a parent row that takes this row with it when it is deleted. */
const ownedBy = (parent: string) => (column: ColumnDefinitionBuilder) =>
  column.notNull().references(parent).onDelete("cascade");

const required = (column: ColumnDefinitionBuilder) => column.notNull();

/**
 * A migration whose statements apply all or not at all. Kysely wraps migrations in a transaction on PostgreSQL
 * but not on SQLite, which supports transactional DDL all the same; without one, a failure halfway would leave
 * tables that make every later attempt fail too.
 */
function atomic(dialect: StoreDialect, up: (db: Kysely<unknown>) => Promise<void>): Migration {
  return { up: (db: Kysely<unknown>) => (dialect === "sqlite" ? db.transaction().execute(up) : up(db)) };
}

function initial(dialect: StoreDialect): Migration {
  const id = idColumn(dialect);
  // A migration sees the schema as it was when written, not today's Database type.
  return atomic(dialect, async (db) => {
    await db.schema
      .createTable("workspaces")
      .addColumn("id", id.type, id.define)
      .addColumn("name", "text", required)
      .addColumn("secret_key", "text", required)
      .addColumn("session_key", "text", required)
      .addColumn("created_at", "bigint", required)
      .execute();
    await db.schema.createIndex("workspaces_secret_key").unique().on("workspaces").column("secret_key").execute();
    await db.schema.createIndex("workspaces_session_key").unique().on("workspaces").column("session_key").execute();
    await db.schema.createIndex("workspaces_name").on("workspaces").column("name").execute();

    await db.schema
      .createTable("chatbots")
      .addColumn("id", id.type, id.define)
      .addColumn("workspace_id", "bigint", (column) => column.notNull().references("workspaces.id"))
      .addColumn("serial_number", "text", required)
      .addColumn("type", "integer", required)
      .addColumn("settings", "text", required)
      .addColumn("created_at", "bigint", required)
      .execute();
    await db.schema.createIndex("chatbots_serial_number").unique().on("chatbots").column("serial_number").execute();
    await db.schema.createIndex("chatbots_workspace").on("chatbots").columns(["workspace_id", "id"]).execute();

    await db.schema
      .createTable("sessions")
      .addColumn("id", id.type, id.define)
      .addColumn("chatbot_id", "bigint", ownedBy("chatbots.id"))
      .addColumn("uri", "text", required)
      .addColumn("created_at", "bigint", required)
      .execute();
    // Also serves the cascade from chatbots, which would otherwise scan the table.
    await db.schema.createIndex("sessions_chatbot").on("sessions").columns(["chatbot_id", "id"]).execute();

    await db.schema
      .createTable("messages")
      .addColumn("id", id.type, id.define)
      .addColumn("session_id", "bigint", ownedBy("sessions.id"))
      .addColumn("chatbot_id", "bigint", ownedBy("chatbots.id"))
      .addColumn("role", "text", required)
      .addColumn("content", "text", required)
      .addColumn("ask_type", "text", required)
      .addColumn("file_ids", "text", required)
      .addColumn("total_token", "integer", required)
      .addColumn("no_answer", "integer", required)
      .addColumn("partial", "integer", required)
      .addColumn("created_at", "bigint", required)
      .execute();
    // Rate and monthly limits count one role since a time; transcripts use it with both roles.
    await db.schema
      .createIndex("messages_chatbot_role_time")
      .on("messages")
      .columns(["chatbot_id", "role", "created_at"])
      .execute();
    await db.schema.createIndex("messages_session").on("messages").columns(["session_id", "id"]).execute();

    await db.schema
      .createTable("listings")
      .addColumn("id", id.type, id.define)
      .addColumn("chatbot_id", "bigint", ownedBy("chatbots.id"))
      .addColumn("sale_type", "text", required)
      .addColumn("status", "text", required)
      .addColumn("currency_symbol", "text", required)
      .addColumn("property_type", "text", required)
      // Double precision for every number: the API types them all as `number`, and a double keeps any such
      // value (integer or fractional) exactly on both databases.
      .addColumn("bedrooms", "double precision", required)
      .addColumn("bathrooms", "double precision", required)
      .addColumn("url", "text", required)
      .addColumn("mls_number", "text", required)
      .addColumn("year_built", "double precision", required)
      .addColumn("days_on_market", "double precision", required)
      .addColumn("lot_area", "double precision", required)
      .addColumn("building_area", "double precision", required)
      .addColumn("area_unit", "text", required)
      .addColumn("parking_spots", "double precision", required)
      .addColumn("images", "text")
      .addColumn("tours", "text")
      .addColumn("description", "text")
      .addColumn("extension_column", "text")
      .addColumn("location", "text")
      .addColumn("address", "text")
      .addColumn("city", "text")
      .addColumn("city_key", "text")
      .addColumn("state", "text")
      .addColumn("zip", "text")
      .addColumn("latitude", "double precision")
      .addColumn("longitude", "double precision")
      .addColumn("sale_price", "double precision")
      .addColumn("unit_area_price", "double precision")
      .addColumn("hoa_month", "double precision")
      .addColumn("zestimate_price", "double precision")
      .addColumn("rent_price", "double precision")
      .addColumn("space_type", "text")
      .addColumn("deposit_fee", "double precision")
      .addColumn("created_at", "bigint", required)
      .addColumn("updated_at", "bigint", required)
      .execute();
    // RealEstateList and the engines' search filter by city, or city and sale type, newest first: one index for
    // each, so that both read a page straight off the index in id order instead of sorting every match.
    await db.schema.createIndex("listings_city").on("listings").columns(["chatbot_id", "city_key", "id"]).execute();
    await db.schema
      .createIndex("listings_city_sale_type")
      .on("listings")
      .columns(["chatbot_id", "city_key", "sale_type", "id"])
      .execute();
    await db.schema.createIndex("listings_mls_number").on("listings").columns(["chatbot_id", "mls_number"]).execute();
    await db.schema.createIndex("listings_url").on("listings").columns(["chatbot_id", "url"]).execute();
    // Unfiltered lists, counts, and the cascade from chatbots.
    await db.schema.createIndex("listings_chatbot").on("listings").columns(["chatbot_id", "id"]).execute();

    await db.schema
      .createTable("files")
      .addColumn("id", id.type, id.define)
      .addColumn("workspace_id", "bigint", (column) => column.notNull().references("workspaces.id"))
      .addColumn("file_name", "text", required)
      .addColumn("state", "text", required)
      .addColumn("upload_token", "text", required)
      .addColumn("expires_at", "bigint", required)
      .addColumn("sha256", "text")
      .addColumn("size", "bigint")
      .addColumn("mime", "text")
      .addColumn("created_at", "bigint", required)
      .execute();
  });
}

function leadsAndDigests(dialect: StoreDialect): Migration {
  const id = idColumn(dialect);
  return atomic(dialect, async (db) => {
    await db.schema
      .createTable("leads")
      .addColumn("id", id.type, id.define)
      .addColumn("chatbot_id", "bigint", ownedBy("chatbots.id"))
      .addColumn("session_id", "bigint", (column) => column.references("sessions.id").onDelete("cascade"))
      .addColumn("type", "text", required)
      .addColumn("name", "text", required)
      .addColumn("email", "text", required)
      .addColumn("phone", "text", required)
      .addColumn("content", "text", required)
      .addColumn("contact_key", "text")
      .addColumn("created_at", "bigint", required)
      .execute();
    // LeadList and the leads digest read a chatbot's leads of a time range; also serves the cascade.
    await db.schema.createIndex("leads_chatbot_time").on("leads").columns(["chatbot_id", "created_at"]).execute();
    // A contact detail is recorded once per session, even when two questions race to record it.
    await db.schema
      .createIndex("leads_session_contact")
      .unique()
      .on("leads")
      .columns(["session_id", "contact_key"])
      .execute();

    await db.schema
      .createTable("digests")
      .addColumn("id", id.type, id.define)
      .addColumn("chatbot_id", "bigint", ownedBy("chatbots.id"))
      .addColumn("day", "text", required)
      .addColumn("kind", "text", required)
      .addColumn("state", "text", required)
      .addColumn("attempts", "integer", required)
      .addColumn("next_attempt_at", "bigint", required)
      .addColumn("note", "text", required)
      .addColumn("created_at", "bigint", required)
      .addColumn("updated_at", "bigint", required)
      .execute();
    // The claim: one row per chatbot, day and kind, whichever process opens it first.
    await db.schema
      .createIndex("digests_chatbot_day_kind")
      .unique()
      .on("digests")
      .columns(["chatbot_id", "day", "kind"])
      .execute();
    await db.schema.createIndex("digests_due").on("digests").columns(["state", "next_attempt_at"]).execute();
  });
}
