import { createHash } from "node:crypto";
import { type Kysely, sql } from "kysely";
import pg from "pg";
import { type ListingChange, listingChangeSchema } from "../../api/listing-changes.js";
import { ChangeSubscribers, type ListingChangeFeed } from "./listing-change-feed.js";
import type { Database } from "./tables.js";

/** Where the feed listens: the store's database, and the schema its tables live in. */
export interface PostgresChangeFeedOptions {
  /** The store's pool, through which changes are announced (NOTIFY). */
  db: Kysely<Database>;
  /** The database URL, for the one connection that listens (LISTEN holds a connection of its own). */
  connectionString: string;
  /** The store's schema: servers on one database but different schemas do not hear each other. */
  schema: string;
  connectionTimeoutMillis: number;
}

/** PostgreSQL's longest identifier, in bytes: a longer channel name would be cut by LISTEN but not by pg_notify. */
const MAX_IDENTIFIER = 63;

/** The NOTIFY channel of a schema's listing changes. */
export function changeChannel(schema: string): string {
  const readable = `chatbridge_listings_${schema}`;
  if (Buffer.byteLength(readable) <= MAX_IDENTIFIER) return readable;
  return `chatbridge_listings_${createHash("sha256").update(schema).digest("hex").slice(0, 32)}`;
}

/**
 * The feed of a PostgreSQL store, shared by every server instance on the database: a change is announced with
 * `pg_notify` (so it reaches the instance that made it the same way as the others), and each instance holds one
 * connection that LISTENs, opened at the first subscription and handing what it hears to this process's subscribers.
 * When that connection breaks, every subscriber is told it may have missed changes and the next subscription opens
 * a new one.
 */
export function postgresChangeFeed(options: PostgresChangeFeedOptions): ListingChangeFeed {
  const channel = changeChannel(options.schema);
  const subscribers = new ChangeSubscribers();
  let listening: Promise<pg.Client> | undefined;
  /** The connection that listens, once it does. */
  let current: pg.Client | undefined;
  let closed = false;

  const lose = (client: pg.Client) => {
    if (client !== current) return;
    current = undefined;
    listening = undefined;
    client.removeAllListeners("notification");
    client.end().catch(() => {});
    subscribers.loseAll();
  };

  const listen = async (): Promise<pg.Client> => {
    const client = new pg.Client({
      connectionString: options.connectionString,
      connectionTimeoutMillis: options.connectionTimeoutMillis,
      // A connection that only listens sends nothing: keep-alive probes find one that died silently.
      keepAlive: true,
    });
    client.on("notification", (message) => {
      if (message.channel !== channel || !message.payload) return;
      const change = readChange(message.payload);
      if (change) subscribers.deliver(change);
    });
    client.on("error", () => lose(client));
    client.on("end", () => lose(client));
    try {
      await client.connect();
      await client.query(`LISTEN ${client.escapeIdentifier(channel)}`);
      current = client;
      return client;
    } catch (error) {
      client.removeAllListeners("end");
      await client.end().catch(() => {});
      throw error;
    }
  };

  return {
    async publish(change) {
      await sql`select pg_notify(${channel}, ${JSON.stringify(change)})`.execute(options.db);
    },
    async subscribe(serialNumber, listener) {
      if (closed) throw new Error("the listing change feed is closed");
      listening ??= listen();
      const opening = listening;
      try {
        await opening;
      } catch (error) {
        if (listening === opening) listening = undefined;
        throw error;
      }
      return subscribers.add(serialNumber, listener);
    },
    async close() {
      closed = true;
      const opening = listening;
      listening = undefined;
      current = undefined;
      subscribers.loseAll();
      const client = await opening?.catch(() => undefined);
      client?.removeAllListeners("end");
      await client?.end().catch(() => {});
    },
  };
}

/** A notification's payload as a change; undefined for anything else on the channel. */
function readChange(payload: string): ListingChange | undefined {
  try {
    const parsed = listingChangeSchema.safeParse(JSON.parse(payload));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
