import type { Kysely, Selectable } from "kysely";
import type { ChatMessage, ChatSession } from "../domain.js";
import type { ApiStore, SessionTranscript } from "./api-store.js";
import { type Clock, fromFlag, toCount, toDate, toFlag } from "./codecs.js";
import type { Database, MessageTable, SessionTable } from "./tables.js";

/** Chat sessions. */
export function sessionsRepo(db: Kysely<Database>, now: Clock): ApiStore["sessions"] {
  return {
    async create(input) {
      const row = await db
        .insertInto("sessions")
        .values({ chatbot_id: input.chatbotId, uri: input.uri, created_at: now().getTime() })
        .returningAll()
        .executeTakeFirstOrThrow();
      return toSession(row);
    },
    async byId(id) {
      const row = await db.selectFrom("sessions").selectAll().where("id", "=", id).executeTakeFirst();
      return row && toSession(row);
    },
  };
}

/** Questions and answers, in id order (ids grow with time). */
export function messagesRepo(db: Kysely<Database>, now: Clock): ApiStore["messages"] {
  return {
    async add(message) {
      const row = await db
        .insertInto("messages")
        .values({
          session_id: message.sessionId,
          chatbot_id: message.chatbotId,
          role: message.role,
          content: message.content,
          ask_type: message.askType,
          file_ids: JSON.stringify(message.fileIds),
          total_token: message.totalToken,
          no_answer: toFlag(message.noAnswer),
          partial: toFlag(message.partial),
          created_at: now().getTime(),
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      return toMessage(row);
    },
    async setContent(id, content) {
      await db.updateTable("messages").set({ content }).where("id", "=", id).execute();
    },
    async recent(sessionId, limit) {
      const rows = await db
        .selectFrom("messages")
        .selectAll()
        .where("session_id", "=", sessionId)
        .orderBy("id", "desc")
        .limit(limit)
        .execute();
      return rows.reverse().map(toMessage);
    },
    async countSince(chatbotId, role, since) {
      const row = await db
        .selectFrom("messages")
        .select((eb) => eb.fn.countAll().as("count"))
        .where("chatbot_id", "=", chatbotId)
        .where("role", "=", role)
        .where("created_at", ">=", since.getTime())
        .executeTakeFirstOrThrow();
      return toCount(row.count);
    },
    async transcripts(chatbotId, range) {
      let query = db
        .selectFrom("messages")
        .innerJoin("sessions", "sessions.id", "messages.session_id")
        .select([
          "sessions.id as session_id",
          "sessions.uri as session_uri",
          "sessions.created_at as session_created_at",
          "messages.id",
          "messages.role",
          "messages.content",
          "messages.created_at",
        ])
        .where("messages.chatbot_id", "=", chatbotId)
        // Naming both roles lets the (chatbot_id, role, created_at) index serve the time range too.
        .where("messages.role", "in", ["User", "AI"]);
      if (range.from !== undefined) query = query.where("messages.created_at", ">=", range.from.getTime());
      if (range.to !== undefined) query = query.where("messages.created_at", "<", range.to.getTime());
      const rows = await query.orderBy("sessions.created_at").orderBy("sessions.id").orderBy("messages.id").execute();

      const transcripts: SessionTranscript[] = [];
      for (const row of rows) {
        let current = transcripts.at(-1);
        if (current?.session.id !== row.session_id) {
          current = {
            session: {
              id: row.session_id,
              chatbotId,
              uri: row.session_uri,
              createdAt: toDate(row.session_created_at),
            },
            messages: [],
          };
          transcripts.push(current);
        }
        current.messages.push({ id: row.id, role: row.role, content: row.content, createdAt: toDate(row.created_at) });
      }
      return transcripts;
    },
  };
}

function toSession(row: Selectable<SessionTable>): ChatSession {
  return { id: row.id, chatbotId: row.chatbot_id, uri: row.uri, createdAt: toDate(row.created_at) };
}

function toMessage(row: Selectable<MessageTable>): ChatMessage {
  return {
    id: row.id,
    sessionId: row.session_id,
    chatbotId: row.chatbot_id,
    role: row.role,
    content: row.content,
    askType: row.ask_type,
    // The store wrote this JSON from a number[].
    fileIds: JSON.parse(row.file_ids) as number[],
    totalToken: row.total_token,
    noAnswer: fromFlag(row.no_answer),
    partial: fromFlag(row.partial),
    createdAt: toDate(row.created_at),
  };
}
