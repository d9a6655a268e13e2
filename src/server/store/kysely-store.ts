import { type Kysely, sql } from "kysely";
import { chatbotsRepo, workspacesRepo } from "./accounts-repo.js";
import type { ApiStore } from "./api-store.js";
import type { Clock } from "./codecs.js";
import { messagesRepo, sessionsRepo } from "./conversations-repo.js";
import { digestsRepo } from "./digests-repo.js";
import { filesRepo } from "./files-repo.js";
import { leadsRepo } from "./leads-repo.js";
import type { ListingChangeFeed } from "./listing-change-feed.js";
import { listingsRepo } from "./listings-repo.js";
import type { Database } from "./tables.js";

/**
 * The ApiStore over a migrated Kysely database, SQLite or PostgreSQL alike, stamping rows with `now` and announcing
 * listing changes through `listingChanges`. Closing it closes the feed, then destroys `db` (the pool, or the SQLite
 * connection).
 */
export function createKyselyStore(db: Kysely<Database>, now: Clock, listingChanges: ListingChangeFeed): ApiStore {
  return {
    workspaces: workspacesRepo(db, now),
    chatbots: chatbotsRepo(db, now),
    sessions: sessionsRepo(db, now),
    messages: messagesRepo(db, now),
    listings: listingsRepo(db, now),
    files: filesRepo(db, now),
    leads: leadsRepo(db, now),
    digests: digestsRepo(db),
    listingChanges,
    async ping() {
      await sql`select 1`.execute(db);
    },
    async close() {
      await listingChanges.close();
      await db.destroy();
    },
  };
}
