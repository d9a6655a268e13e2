import type {
  ChatAskType,
  ChatbotSettings,
  ListingInput,
  ListingKeyType,
  ListingStatus,
  SaleType,
} from "../api/types.js";

/**
 * The self-hosted server's domain records. The API's own field names (PascalCase) are kept for settings and
 * listings so values pass from request to storage to response without renaming.
 */

/** Every chatbot setting, with a value (the defaults fill what Edit never set). */
export type StoredSettings = Required<ChatbotSettings>;

/** A tenant: owns chatbots; authenticates with its secret key or its session key. */
export interface Workspace {
  id: number;
  name: string;
  secretKey: string;
  sessionKey: string;
  createdAt: Date;
}

export interface Chatbot {
  id: number;
  /** The public identifier (`serialNumber` / `SerialNumber`). */
  serialNumber: string;
  workspaceId: number;
  /** `Add`'s `type` (0 = generic chatbot). */
  type: number;
  settings: StoredSettings;
  createdAt: Date;
}

/** A chat session (`SessionID`). */
export interface ChatSession {
  id: number;
  chatbotId: number;
  /** Where the conversation happens (page URL, channel), shown by ChatContentHistory as `URI`. */
  uri: string;
  createdAt: Date;
}

export type MessageRole = "User" | "AI";

/** A stored question or answer; its id is the API's `QuestionID` / `AnswerID` / `messageid`. */
export interface ChatMessage {
  id: number;
  sessionId: number;
  chatbotId: number;
  role: MessageRole;
  content: string;
  askType: ChatAskType;
  fileIds: number[];
  totalToken: number;
  noAnswer: boolean;
  /** An answer cut short because the client went away mid-stream. */
  partial: boolean;
  createdAt: Date;
}

/** What a new message needs; the store assigns `id` and `createdAt`. */
export type NewChatMessage = Omit<ChatMessage, "id" | "createdAt">;

/** A listing's fields as RealEstateCreate takes them, without the chatbot reference. */
export type ListingFields = Omit<ListingInput, "SerialNumber">;

/** A stored listing. `ID` is also its `NewOaks` key (as a string). */
export interface Listing extends ListingFields {
  ID: number;
  chatbotId: number;
  createdAt: Date;
  updatedAt: Date;
}

/** RealEstateList's filters: city case-insensitive and exact, newest first. */
export interface ListingFilter {
  cityName?: string | undefined;
  saleType?: SaleType | undefined;
  mlsNumber?: string | undefined;
  pageNumber: number;
  pageSize: number;
}

/** What the answer engines search by; every field narrows the result. */
export interface ListingCriteria {
  /** Case-insensitive exact city match. */
  city?: string | undefined;
  saleType?: SaleType | undefined;
  mlsNumber?: string | undefined;
  /** Case-insensitive substring of PropertyType (e.g. "condo"). */
  propertyType?: string | undefined;
  minBedrooms?: number | undefined;
  maxBedrooms?: number | undefined;
  minBathrooms?: number | undefined;
  /** Compared with SalePrice for sale and RentPrice for rent. */
  minPrice?: number | undefined;
  maxPrice?: number | undefined;
  minParkingSpots?: number | undefined;
  /** Default: Active and PreOnMarket (sold homes are not offered). */
  statuses?: ListingStatus[] | undefined;
  sort?: "newest" | "price_asc" | "price_desc" | undefined;
  limit: number;
}

export type { ListingKeyType };

/** An uploaded file: created by GetPreUploadUrl, filled by the PUT, confirmed by UploadSuccess. */
export interface StoredFile {
  id: number;
  workspaceId: number;
  fileName: string;
  state: "pending" | "uploaded" | "confirmed";
  /** Secret part of the single-use upload URL. */
  uploadToken: string;
  expiresAt: Date;
  /** Content address of the bytes under DATA_DIR/files, once uploaded. */
  sha256: string | null;
  size: number | null;
  /** MIME type identified from the bytes, not from the name. */
  mime: string | null;
  createdAt: Date;
}

/**
 * A request to talk to a person or to visit a listing, or a listing link's visit (all recorded by the bridge), or
 * contact details a user left in a conversation.
 */
export type LeadType = "Handoff" | "Viewing" | "Contact" | "ListingVisit";

/** A lead of a chatbot; `email` and `phone` are "" when not given. */
export interface Lead {
  id: number;
  chatbotId: number;
  /** The conversation it came from; null for a handoff recorded without one. */
  sessionId: number | null;
  type: LeadType;
  name: string;
  email: string;
  phone: string;
  /** What the user wrote: the question with the contact details, or the handoff request. */
  content: string;
  createdAt: Date;
}

/** What a new lead needs; the store assigns `id` and `createdAt`. */
export type NewLead = Omit<Lead, "id" | "createdAt">;

/** The two daily mails, named after the setting that holds their recipient. */
export type DigestKind = "ChatLogs" | "Leads";

/**
 * Where one daily mail stands: `pending` until sent (and while retried), `sent`, `skipped` when there was
 * nothing to mail or no one to mail it to, `failed` when the mail server refused it for good or kept failing.
 */
export type DigestState = "pending" | "sent" | "skipped" | "failed";

/** One chatbot's daily mail of one kind for one day of its time zone: there is at most one of each. */
export interface Digest {
  id: number;
  chatbotId: number;
  /** The chatbot's calendar day it reports, YYYY-MM-DD. */
  day: string;
  kind: DigestKind;
  state: DigestState;
  /** Sending attempts begun so far. */
  attempts: number;
  /** When a pending digest may be attempted (again); while an attempt runs, when it is considered abandoned. */
  nextAttemptAt: Date;
  /** Why it was skipped, or the last failure. */
  note: string;
  createdAt: Date;
}
