import type {
  Chatbot,
  ChatMessage,
  ChatSession,
  Listing,
  ListingCriteria,
  ListingFields,
  ListingFilter,
  ListingKeyType,
  MessageRole,
  NewChatMessage,
  StoredFile,
  StoredSettings,
  Workspace,
} from "../domain.js";

/** A conversation with its messages, for ChatContentHistory. */
export interface SessionTranscript {
  session: ChatSession;
  messages: Pick<ChatMessage, "id" | "role" | "content" | "createdAt">[];
}

/**
 * Persistence of the self-hosted chatbot API. One implementation over Kysely serves SQLite and PostgreSQL;
 * services depend on this interface only. Ids are integers assigned by the database.
 */
export interface ApiStore {
  workspaces: {
    create(input: { name: string; secretKey: string; sessionKey: string }): Promise<Workspace>;
    bySecretKey(secretKey: string): Promise<Workspace | undefined>;
    bySessionKey(sessionKey: string): Promise<Workspace | undefined>;
    byName(name: string): Promise<Workspace | undefined>;
  };
  chatbots: {
    create(input: {
      workspaceId: number;
      serialNumber: string;
      type: number;
      settings: StoredSettings;
    }): Promise<Chatbot>;
    bySerialNumber(serialNumber: string): Promise<Chatbot | undefined>;
    byId(id: number): Promise<Chatbot | undefined>;
    updateSettings(id: number, settings: StoredSettings): Promise<void>;
    /** Deletes the chatbot with its sessions, messages and listings. */
    remove(id: number): Promise<void>;
    listByWorkspace(workspaceId: number): Promise<Chatbot[]>;
  };
  sessions: {
    create(input: { chatbotId: number; uri: string }): Promise<ChatSession>;
    byId(id: number): Promise<ChatSession | undefined>;
  };
  messages: {
    add(message: NewChatMessage): Promise<ChatMessage>;
    /** Replaces a message's text, e.g. a voice question's with what it said once transcribed. */
    setContent(id: number, content: string): Promise<void>;
    /** The last `limit` messages of a session, oldest first. */
    recent(sessionId: number, limit: number): Promise<ChatMessage[]>;
    /** How many messages of `role` a chatbot received since `since` (rate and monthly limits). */
    countSince(chatbotId: number, role: MessageRole, since: Date): Promise<number>;
    /** A chatbot's sessions that have messages, with those messages, created within [from, to). */
    transcripts(
      chatbotId: number,
      range: { from?: Date | undefined; to?: Date | undefined },
    ): Promise<SessionTranscript[]>;
  };
  listings: {
    create(chatbotId: number, fields: ListingFields): Promise<Listing>;
    /** Listings of a chatbot that a key finds (NewOaks = ID, MLSNumber, URL = Url). */
    findByKeys(chatbotId: number, keyType: ListingKeyType, keys: string[]): Promise<Listing[]>;
    update(id: number, fields: ListingFields): Promise<Listing>;
    /** Deletes by id; returns how many rows went. */
    remove(ids: number[]): Promise<number>;
    /** RealEstateList: a page and the number of all matches. */
    list(chatbotId: number, filter: ListingFilter): Promise<{ items: Listing[]; total: number }>;
    /** The engines' search. */
    search(chatbotId: number, criteria: ListingCriteria): Promise<Listing[]>;
    count(chatbotId: number): Promise<number>;
  };
  files: {
    create(input: { workspaceId: number; fileName: string; uploadToken: string; expiresAt: Date }): Promise<StoredFile>;
    byId(id: number): Promise<StoredFile | undefined>;
    /** Records the bytes of a pending upload; the token is single use, so only a pending file changes. */
    markUploaded(id: number, content: { sha256: string; size: number; mime: string | null }): Promise<boolean>;
    confirm(id: number): Promise<boolean>;
  };
  /** Cheap round trip, for readiness checks. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
