import type { Kysely, Selectable } from "kysely";
import type { Chatbot, StoredSettings, Workspace } from "../domain.js";
import type { ApiStore } from "./api-store.js";
import { type Clock, toDate } from "./codecs.js";
import type { ChatbotTable, Database, WorkspaceTable } from "./tables.js";

/** Workspaces: created once, then found by either credential or by name. */
export function workspacesRepo(db: Kysely<Database>, now: Clock): ApiStore["workspaces"] {
  const byColumn = async (column: "secret_key" | "session_key", value: string) => {
    const row = await db.selectFrom("workspaces").selectAll().where(column, "=", value).executeTakeFirst();
    return row && toWorkspace(row);
  };
  return {
    async create(input) {
      const row = await db
        .insertInto("workspaces")
        .values({
          name: input.name,
          secret_key: input.secretKey,
          session_key: input.sessionKey,
          created_at: now().getTime(),
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      return toWorkspace(row);
    },
    bySecretKey: (secretKey) => byColumn("secret_key", secretKey),
    bySessionKey: (sessionKey) => byColumn("session_key", sessionKey),
    // Names are not unique; the oldest workspace of a name is the one that counts.
    byName: async (name) => {
      const row = await db
        .selectFrom("workspaces")
        .selectAll()
        .where("name", "=", name)
        .orderBy("id")
        .limit(1)
        .executeTakeFirst();
      return row && toWorkspace(row);
    },
  };
}

/** Chatbots with their settings stored as one JSON document. */
export function chatbotsRepo(db: Kysely<Database>, now: Clock): ApiStore["chatbots"] {
  return {
    async create(input) {
      const row = await db
        .insertInto("chatbots")
        .values({
          workspace_id: input.workspaceId,
          serial_number: input.serialNumber,
          type: input.type,
          settings: JSON.stringify(input.settings),
          created_at: now().getTime(),
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      return toChatbot(row);
    },
    async bySerialNumber(serialNumber) {
      const row = await db
        .selectFrom("chatbots")
        .selectAll()
        .where("serial_number", "=", serialNumber)
        .executeTakeFirst();
      return row && toChatbot(row);
    },
    async byId(id) {
      const row = await db.selectFrom("chatbots").selectAll().where("id", "=", id).executeTakeFirst();
      return row && toChatbot(row);
    },
    async updateSettings(id, settings) {
      await db
        .updateTable("chatbots")
        .set({ settings: JSON.stringify(settings) })
        .where("id", "=", id)
        .execute();
    },
    // Sessions, messages, listings, leads and digests go with it through ON DELETE CASCADE.
    async remove(id) {
      await db.deleteFrom("chatbots").where("id", "=", id).execute();
    },
    async listByWorkspace(workspaceId) {
      const rows = await db
        .selectFrom("chatbots")
        .selectAll()
        .where("workspace_id", "=", workspaceId)
        .orderBy("id")
        .execute();
      return rows.map(toChatbot);
    },
    async listAll() {
      const rows = await db.selectFrom("chatbots").selectAll().orderBy("id").execute();
      return rows.map(toChatbot);
    },
  };
}

function toWorkspace(row: Selectable<WorkspaceTable>): Workspace {
  return {
    id: row.id,
    name: row.name,
    secretKey: row.secret_key,
    sessionKey: row.session_key,
    createdAt: toDate(row.created_at),
  };
}

function toChatbot(row: Selectable<ChatbotTable>): Chatbot {
  return {
    id: row.id,
    serialNumber: row.serial_number,
    workspaceId: row.workspace_id,
    type: row.type,
    // The store wrote this JSON from a StoredSettings.
    settings: JSON.parse(row.settings) as StoredSettings,
    createdAt: toDate(row.created_at),
  };
}
