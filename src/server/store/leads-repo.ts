import type { Kysely, Selectable } from "kysely";
import type { Lead, NewLead } from "../domain.js";
import type { ApiStore } from "./api-store.js";
import { type Clock, toDate } from "./codecs.js";
import type { Database, LeadTable } from "./tables.js";

/** Leads of chatbots: handoff requests and contact details left in conversations. */
export function leadsRepo(db: Kysely<Database>, now: Clock): ApiStore["leads"] {
  const columns = (lead: NewLead, contactKey: string | null) => ({
    chatbot_id: lead.chatbotId,
    session_id: lead.sessionId,
    type: lead.type,
    name: lead.name,
    email: lead.email,
    phone: lead.phone,
    content: lead.content,
    contact_key: contactKey,
    created_at: now().getTime(),
  });
  return {
    async add(lead) {
      const row = await db.insertInto("leads").values(columns(lead, null)).returningAll().executeTakeFirstOrThrow();
      return toLead(row);
    },
    async addContact(lead, contactKey) {
      const row = await db
        .insertInto("leads")
        .values(columns(lead, contactKey))
        .onConflict((conflict) => conflict.columns(["session_id", "contact_key"]).doNothing())
        .returningAll()
        .executeTakeFirst();
      return row && toLead(row);
    },
    async list(chatbotId, filter) {
      let query = db.selectFrom("leads").selectAll().where("chatbot_id", "=", chatbotId);
      if (filter.from !== undefined) query = query.where("created_at", ">=", filter.from.getTime());
      if (filter.to !== undefined) query = query.where("created_at", "<", filter.to.getTime());
      if (filter.sessionId !== undefined) query = query.where("session_id", "=", filter.sessionId);
      const rows = await query.orderBy("created_at").orderBy("id").execute();
      return rows.map(toLead);
    },
  };
}

function toLead(row: Selectable<LeadTable>): Lead {
  return {
    id: row.id,
    chatbotId: row.chatbot_id,
    sessionId: row.session_id,
    type: row.type,
    name: row.name,
    email: row.email,
    phone: row.phone,
    content: row.content,
    createdAt: toDate(row.created_at),
  };
}
