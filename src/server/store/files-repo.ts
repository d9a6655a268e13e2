import type { Kysely, Selectable } from "kysely";
import type { StoredFile } from "../domain.js";
import type { ApiStore } from "./api-store.js";
import { type Clock, toCount, toDate } from "./codecs.js";
import type { Database, FileTable } from "./tables.js";

/**
 * Uploaded files. Each step moves the state forward only from the state before it, checked in the UPDATE itself,
 * so two racing requests cannot both use the same upload token or confirmation.
 */
export function filesRepo(db: Kysely<Database>, now: Clock): ApiStore["files"] {
  return {
    async create(input) {
      const row = await db
        .insertInto("files")
        .values({
          workspace_id: input.workspaceId,
          file_name: input.fileName,
          state: "pending",
          upload_token: input.uploadToken,
          expires_at: input.expiresAt.getTime(),
          created_at: now().getTime(),
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      return toStoredFile(row);
    },
    async byId(id) {
      const row = await db.selectFrom("files").selectAll().where("id", "=", id).executeTakeFirst();
      return row && toStoredFile(row);
    },
    async markUploaded(id, content) {
      const result = await db
        .updateTable("files")
        .set({ state: "uploaded", sha256: content.sha256, size: content.size, mime: content.mime })
        .where("id", "=", id)
        .where("state", "=", "pending")
        .executeTakeFirst();
      return toCount(result.numUpdatedRows) > 0;
    },
    async confirm(id) {
      const result = await db
        .updateTable("files")
        .set({ state: "confirmed" })
        .where("id", "=", id)
        .where("state", "=", "uploaded")
        .executeTakeFirst();
      return toCount(result.numUpdatedRows) > 0;
    },
  };
}

function toStoredFile(row: Selectable<FileTable>): StoredFile {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    fileName: row.file_name,
    state: row.state,
    uploadToken: row.upload_token,
    expiresAt: toDate(row.expires_at),
    sha256: row.sha256,
    size: row.size,
    mime: row.mime,
    createdAt: toDate(row.created_at),
  };
}
