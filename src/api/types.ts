/**
 * Request and response shapes of the chatbot API, with the field names used on the wire
 * (`docs/chatbot-api.md` and the hosted platform's docs). Settings and listings keep the API's
 * PascalCase names so that a value passes through unchanged. Shared by the client and the server.
 */

/** Kinds of `ClientAsk` input. */
export type ChatAskType = "Text" | "Audio" | "Image" | "Video";

/** Editable chatbot settings (all optional; omitted fields stay unchanged). */
export interface ChatbotSettings {
  Name?: string;
  Model?: string;
  SystemMessage?: string;
  Temperature?: number;
  TimeZone?: string;
  AnswerSuffix?: string;
  ChatProfilePicture?: string;
  ChatIcon?: string;
  ChatBubbleAlign?: number;
  ChatBubbleColor?: string;
  ChatbotPopupOnce?: boolean;
  ChatbotPrivacyPolicyDescription?: string;
  ChatbotPrivacyPolicyName?: string;
  ChatbotPrivacyPolicyUrl?: string;
  EnablePushToTalk?: boolean;
  EnableUploadImage?: boolean;
  FacebookUrl?: string;
  InstagramUrl?: string;
  WhatsappUrl?: string;
  RemoveChatLogOnBrowserClose?: boolean;
  SuggestedMessage?: string;
  TalkToHumanEmail?: string;
  TalkToHumanResponseMessage?: string;
  UserInputPlaceholder?: string;
  UserMessageColor?: string;
  WelcomeMessage?: string;
  VerifyDomain?: boolean;
  Domains?: string;
  CustomDomain?: string;
  RateLimitCount?: number;
  RateLimitTime?: number;
  RateLimitMessage?: string;
  EmailForDailyChatLogs?: string;
  EmailForDailyLeads?: string;
  AIResponseLanguage?: string;
  MessageLimit?: number;
}

export type SaleType = "for_sale" | "for_rent";
export type ListingStatus = "Active" | "PreOnMarket" | "Sold";
export type AreaUnit = "Square Feet" | "Square Meters";
export type Tours = "OpenHouse" | "3D";
export type SpaceType = "Entire place" | "Room";
/** How `Key` identifies a listing: the id returned by create, the MLS number, or the listing URL. */
export type ListingKeyType = "NewOaks" | "MLSNumber" | "URL";

/** Fields of a listing as sent to RealEstateCreate. */
export interface ListingInput {
  SerialNumber: string;
  SaleType: SaleType;
  Status: ListingStatus;
  CurrencySymbol: string;
  PropertyType: string;
  Bedrooms: number;
  Bathrooms: number;
  Url: string;
  MLSNumber: string;
  YearBuilt: number;
  DaysOnMarket: number;
  LotArea: number;
  BuildingArea: number;
  AreaUnit: AreaUnit;
  ParkingSpots: number;
  Images?: string[];
  Tours?: Tours;
  Description?: string;
  ExtensionColumn?: { Key: string; value: string }[];
  Location?: string;
  Address?: string;
  City?: string;
  State?: string;
  ZIP?: string;
  Latitude?: number;
  Longitude?: number;
  SalePrice?: number;
  UnitAreaPrice?: number;
  HOAMonth?: number;
  ZestimatePrice?: number;
  RentPrice?: number;
  SpaceType?: SpaceType;
  DepositFee?: number;
}

/** RealEstateUpdate: the listing fields plus the key that finds the listing. */
export interface ListingUpdate extends ListingInput {
  Key: string;
  KeyType: ListingKeyType;
}

/** RealEstateList filters and paging. */
export interface ListingQuery {
  SerialNumber: string;
  CityName?: string;
  SaleType?: SaleType;
  MLSNumber?: string;
  PageNumber?: number;
  PageSize?: number;
}

/** A listing as RealEstateList returns it: numbers as text, unset numbers as "". */
export interface ListingListItem {
  ID: number;
  PropertyType: string;
  SaleType: string;
  Status: string;
  Images: string;
  CurrencySymbol: string;
  State: string;
  City: string;
  Address: string;
  ZIP: string;
  Area: string;
  Url: string;
  Tours: string;
  MLSNumber: string;
  Description: string;
  SpaceType: string;
  Price: string;
  LATITUDE: number | null;
  LONGITUDE: number | null;
  Bathrooms: string;
  Bedrooms: string;
  YearBuilt: string;
  DaysOnMarket: string;
  LotArea: string;
  BuildingArea: string;
  ParkingSpots: string;
  ExtensionColumn: string;
  RentPrice: string;
  DepositFee: string;
  SalePrice: string;
  UnitAreaPrice: string;
  ZestimatePrice: string;
  HOAMonth: string;
}

/** One page of RealEstateList; `VirtualCount` is the number of all matches. */
export interface ListingPage {
  List: ListingListItem[];
  VirtualCount: number;
}

/** RealEstateDelete arguments. */
export interface ListingDeletion {
  SerialNumber: string;
  Keys: string[];
  KeyType: ListingKeyType;
}

/** An entry of ModelList; `Key` is what Edit's `Model` takes. */
export interface ModelInfo {
  Key: string;
  Value: string;
  Status: boolean;
}

/** ChatContentHistory filters (dates as YYYY-MM-DD, UTC; both optional). */
export interface HistoryQuery {
  SerialNumber: string;
  StartTime?: string;
  EndTime?: string;
}

/** One session of ChatContentHistory. */
export interface HistorySession {
  SessionID: number;
  CreateTime: string;
  URI: string;
  Messages: { Type: "AI" | "User"; Content: string }[];
}

/** LeadList filters: dates as YYYY-MM-DD (UTC, endTime included), one session; all optional. */
export interface LeadQuery {
  serialNumber: string;
  startTime?: string;
  endTime?: string;
  sessionID?: number;
}

/**
 * A lead as LeadList returns it. The hosted platform's docs show `Type: "Lead"` (their leads and appointments);
 * the self-hosted server answers `Handoff` (a request to talk to a person), `Viewing` (a request to visit a
 * listing) or `Contact` (an e-mail address or phone number a user wrote). `Email` and `Phone` are present only when
 * known; `SessionID` is null for a handoff recorded without a session.
 */
export interface LeadItem {
  Type: "Handoff" | "Viewing" | "Contact" | "ListingVisit" | (string & {});
  Name: string;
  Email?: string;
  Phone?: string;
  Content: string;
  SessionID: number | null;
  CreateTime: string;
}

/** A request to talk to a person or to visit a listing, or a listing link's visit, for LeadAdd (an extension of the self-hosted server). */
export interface LeadInput {
  serialNumber: string;
  /** The conversation the request came from. */
  sessionID?: number;
  /** Handoff (the default), Viewing, or ListingVisit (Content from `listingVisitContent`). */
  Type?: "Handoff" | "Viewing" | "ListingVisit";
  Name?: string;
  Email?: string;
  /** 7 to 15 digits; "+", spaces, dashes, dots and parentheses allowed. */
  Phone?: string;
  /** What the user asked for. */
  Content?: string;
}
