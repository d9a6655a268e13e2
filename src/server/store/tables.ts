import type { Generated } from "kysely";
import type { AreaUnit, ChatAskType, ListingStatus, SaleType, SpaceType, Tours } from "../../api/types.js";
import type { DigestKind, DigestState, LeadType, MessageRole, StoredFile } from "../domain.js";

/**
 * The tables as Kysely sees them. Column types are chosen to behave the same on SQLite and PostgreSQL:
 * timestamps are epoch milliseconds (bigint), flags are 0/1 integers (better-sqlite3 cannot bind booleans),
 * and arrays and objects are JSON text.
 */
export interface Database {
  workspaces: WorkspaceTable;
  chatbots: ChatbotTable;
  sessions: SessionTable;
  messages: MessageTable;
  listings: ListingTable;
  files: FileTable;
  leads: LeadTable;
  digests: DigestTable;
}

/** Epoch milliseconds; PostgreSQL's int8 is parsed to a number at the pool, so both databases give numbers. */
export type EpochMs = number;

/** 0 or 1. */
export type Flag = number;

/** A tenant with its two credentials. */
export interface WorkspaceTable {
  id: Generated<number>;
  name: string;
  secret_key: string;
  session_key: string;
  created_at: EpochMs;
}

/** A chatbot; `settings` is the JSON of every setting. */
export interface ChatbotTable {
  id: Generated<number>;
  workspace_id: number;
  serial_number: string;
  type: number;
  settings: string;
  created_at: EpochMs;
}

/** A chat session. */
export interface SessionTable {
  id: Generated<number>;
  chatbot_id: number;
  uri: string;
  created_at: EpochMs;
}

/** A question or an answer; `chatbot_id` is copied from the session so limits count without a join. */
export interface MessageTable {
  id: Generated<number>;
  session_id: number;
  chatbot_id: number;
  role: MessageRole;
  content: string;
  ask_type: ChatAskType;
  /** JSON array of file ids. */
  file_ids: string;
  total_token: number;
  no_answer: Flag;
  partial: Flag;
  created_at: EpochMs;
}

/** A real-estate listing: one column per API field; unset optional fields are NULL. */
export interface ListingTable {
  id: Generated<number>;
  chatbot_id: number;
  sale_type: SaleType;
  status: ListingStatus;
  currency_symbol: string;
  property_type: string;
  bedrooms: number;
  bathrooms: number;
  url: string;
  mls_number: string;
  year_built: number;
  days_on_market: number;
  lot_area: number;
  building_area: number;
  area_unit: AreaUnit;
  parking_spots: number;
  /** JSON array of image URLs. */
  images: string | null;
  tours: Tours | null;
  description: string | null;
  /** JSON array of `{ Key, value }`. */
  extension_column: string | null;
  location: string | null;
  address: string | null;
  city: string | null;
  /** `city` lower-cased in JavaScript (Unicode-aware on both databases), for the case-insensitive city filter. */
  city_key: string | null;
  state: string | null;
  zip: string | null;
  latitude: number | null;
  longitude: number | null;
  sale_price: number | null;
  unit_area_price: number | null;
  hoa_month: number | null;
  zestimate_price: number | null;
  rent_price: number | null;
  space_type: SpaceType | null;
  deposit_fee: number | null;
  created_at: EpochMs;
  updated_at: EpochMs;
}

/** An uploaded file and the state of its upload. */
export interface FileTable {
  id: Generated<number>;
  workspace_id: number;
  file_name: string;
  state: StoredFile["state"];
  upload_token: string;
  expires_at: EpochMs;
  sha256: string | null;
  size: number | null;
  mime: string | null;
  created_at: EpochMs;
}

/** A lead; `email` and `phone` are "" when not given. */
export interface LeadTable {
  id: Generated<number>;
  chatbot_id: number;
  session_id: number | null;
  type: LeadType;
  name: string;
  email: string;
  phone: string;
  content: string;
  /**
   * A Contact lead's address or number in a comparable form, unique within its session so that a detail
   * given twice is recorded once; NULL for handoffs, which never collide (NULLs are distinct in a unique index).
   */
  contact_key: string | null;
  created_at: EpochMs;
}

/** A daily mail's claim and state; (chatbot_id, day, kind) is unique. */
export interface DigestTable {
  id: Generated<number>;
  chatbot_id: number;
  day: string;
  kind: DigestKind;
  state: DigestState;
  attempts: number;
  next_attempt_at: EpochMs;
  note: string;
  created_at: EpochMs;
  updated_at: EpochMs;
}
