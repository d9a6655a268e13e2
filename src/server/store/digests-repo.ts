import type { Kysely, Selectable } from "kysely";
import type { Digest } from "../domain.js";
import type { ApiStore } from "./api-store.js";
import { toDate } from "./codecs.js";
import type { Database, DigestTable } from "./tables.js";

/**
 * The daily mails' claims. Every change is a single conditional statement (insert unless present, update
 * only from the expected state), so processes sharing the database never both take the same digest.
 */
export function digestsRepo(db: Kysely<Database>): ApiStore["digests"] {
  return {
    async open(key, now) {
      await db
        .insertInto("digests")
        .values({
          chatbot_id: key.chatbotId,
          day: key.day,
          kind: key.kind,
          state: "pending",
          attempts: 0,
          next_attempt_at: now.getTime(),
          note: "",
          created_at: now.getTime(),
          updated_at: now.getTime(),
        })
        .onConflict((conflict) => conflict.columns(["chatbot_id", "day", "kind"]).doNothing())
        .execute();
    },
    async due(now, limit) {
      const rows = await db
        .selectFrom("digests")
        .selectAll()
        .where("state", "=", "pending")
        .where("next_attempt_at", "<=", now.getTime())
        .orderBy("next_attempt_at")
        .orderBy("id")
        .limit(limit)
        .execute();
      return rows.map(toDigest);
    },
    async claim(id, now, holdUntil) {
      // On PostgreSQL a second UPDATE racing this one waits for it, then re-checks the condition and finds the
      // digest held; SQLite runs one write at a time.
      const row = await db
        .updateTable("digests")
        .set((eb) => ({
          attempts: eb("attempts", "+", 1),
          next_attempt_at: holdUntil.getTime(),
          updated_at: now.getTime(),
        }))
        .where("id", "=", id)
        .where("state", "=", "pending")
        .where("next_attempt_at", "<=", now.getTime())
        .returningAll()
        .executeTakeFirst();
      return row && toDigest(row);
    },
    async settle(id, attempt, outcome, now) {
      await db
        .updateTable("digests")
        .set({
          state: outcome.state,
          note: outcome.note,
          updated_at: now.getTime(),
          ...(outcome.state === "pending" ? { next_attempt_at: outcome.retryAt.getTime() } : {}),
        })
        .where("id", "=", id)
        .where("state", "=", "pending")
        .where("attempts", "=", attempt)
        .execute();
    },
  };
}

function toDigest(row: Selectable<DigestTable>): Digest {
  return {
    id: row.id,
    chatbotId: row.chatbot_id,
    day: row.day,
    kind: row.kind,
    state: row.state,
    attempts: row.attempts,
    nextAttemptAt: toDate(row.next_attempt_at),
    note: row.note,
    createdAt: toDate(row.created_at),
  };
}
