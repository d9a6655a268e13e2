import type {
  Chatbot,
  ChatMessage,
  ChatSession,
  Digest,
  DigestKind,
  DigestState,
  Lead,
  Listing,
  ListingCriteria,
  ListingFields,
  ListingFilter,
  ListingKeyType,
  MessageRole,
  NewChatMessage,
  NewLead,
  StoredFile,
  StoredSettings,
  Workspace,
} from "../domain.js";
import type { ListingChangeFeed } from "./listing-change-feed.js";

/** A conversation with its messages, for ChatContentHistory. */
export interface SessionTranscript {
  session: ChatSession;
  messages: Pick<ChatMessage, "id" | "role" | "content" | "createdAt">[];
}

/** LeadList's filters: a time range, a session. */
export interface LeadFilter {
  from?: Date | undefined;
  to?: Date | undefined;
  sessionId?: number | undefined;
}

/** How an attempt at a digest ended. */
export type DigestOutcome =
  | { state: Exclude<DigestState, "pending">; note: string }
  | { state: "pending"; retryAt: Date; note: string };

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
    /** Deletes the chatbot with its sessions, messages, listings, leads and digests. */
    remove(id: number): Promise<void>;
    listByWorkspace(workspaceId: number): Promise<Chatbot[]>;
    /** Every chatbot of every workspace, in id order (the daily digests look at each). */
    listAll(): Promise<Chatbot[]>;
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
  leads: {
    add(lead: NewLead): Promise<Lead>;
    /**
     * Adds a lead unless its session already has one with `contactKey` (the same address or number given
     * again); undefined then. The database decides, so concurrent questions cannot both record it.
     */
    addContact(lead: NewLead & { sessionId: number }, contactKey: string): Promise<Lead | undefined>;
    /** A chatbot's leads created within [from, to), of one session when given, oldest first. */
    list(chatbotId: number, filter: LeadFilter): Promise<Lead[]>;
  };
  /**
   * The daily mails' claims. Times come from the caller (the digest scheduler's clock), not the store's clock,
   * so that "due" and "held" compare instants from one source.
   */
  digests: {
    /** Creates the digest, pending and due at `now`, unless it exists: the first process to open it wins. */
    open(key: { chatbotId: number; day: string; kind: DigestKind }, now: Date): Promise<void>;
    /** Pending digests due at `now`, the longest waiting first, at most `limit`. */
    due(now: Date, limit: number): Promise<Digest[]>;
    /**
     * Begins an attempt on a pending digest that is due at `now`: counts it and holds the digest until
     * `holdUntil`, so no other process takes it meanwhile. The claimed digest, or undefined when it is not due
     * any more (another process claimed it first, or it is settled).
     */
    claim(id: number, now: Date, holdUntil: Date): Promise<Digest | undefined>;
    /**
     * Ends attempt number `attempt` of a claimed digest: settled for good, or pending again at `retryAt`.
     * Does nothing when the digest was claimed again since (the attempt was presumed abandoned).
     */
    settle(id: number, attempt: number, outcome: DigestOutcome, now: Date): Promise<void>;
  };
  /** The committed changes of listings, announced to the subscribers of the change feed (RealEstateChanges). */
  listingChanges: ListingChangeFeed;
  /** Cheap round trip, for readiness checks. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
