import { randomBytes } from "node:crypto";
import type {
  Chatbot,
  ChatSession,
  ListingFields,
  MessageRole,
  NewChatMessage,
  StoredSettings,
  Workspace,
} from "../../../src/server/domain.js";
import type { ApiStore } from "../../../src/server/store/api-store.js";

/** Gives the suites the store under test, opened by the suite's beforeAll. */
export type StoreGetter = () => ApiStore;

/** The store's clock in the contract tests: the system time, unless a test pins it. */
export class PinnableClock {
  #pinned: Date | undefined;
  readonly now = (): Date => this.#pinned ?? new Date();
  /** Stamps everything the store writes from now on with this instant, until {@link release}. */
  set(iso: string): void {
    this.#pinned = new Date(iso);
  }
  release(): void {
    this.#pinned = undefined;
  }
}

/** Text no other test (or parallel run) uses, for unique keys and serial numbers. */
export function unique(prefix: string): string {
  return `${prefix}-${randomBytes(6).toString("hex")}`;
}

/** Every setting, with values that differ from the defaults and exercise the JSON round trip. */
export const SETTINGS: StoredSettings = {
  Name: "Maison Realty — assistant «Ana»",
  Model: "listings",
  SystemMessage: 'Answer in one paragraph.\nQuote "prices" exactly.',
  Temperature: 1,
  TimeZone: "America/Sao_Paulo",
  AnswerSuffix: " 🏠",
  ChatProfilePicture: "12",
  ChatIcon: "13",
  ChatBubbleAlign: 2,
  ChatBubbleColor: "rgb(1,2,3)",
  ChatbotPopupOnce: true,
  ChatbotPrivacyPolicyDescription: "We keep chats 30 days.",
  ChatbotPrivacyPolicyName: "Privacy",
  ChatbotPrivacyPolicyUrl: "https://example.com/privacy",
  EnablePushToTalk: true,
  EnableUploadImage: false,
  FacebookUrl: "https://facebook.com/maison",
  InstagramUrl: "https://instagram.com/maison",
  WhatsappUrl: "https://wa.me/5511999999999",
  RemoveChatLogOnBrowserClose: true,
  SuggestedMessage: "Homes under $500k?",
  TalkToHumanEmail: "agents@example.com",
  TalkToHumanResponseMessage: "An agent will write to you.",
  UserInputPlaceholder: "Ask me…",
  UserMessageColor: "rgb(255,255,255)",
  WelcomeMessage: "Olá! Hello!",
  VerifyDomain: true,
  Domains: "example.com,example.org",
  CustomDomain: "chat.example.com",
  RateLimitCount: 20,
  RateLimitTime: 240,
  RateLimitMessage: "Slow down.",
  EmailForDailyChatLogs: "logs@example.com",
  EmailForDailyLeads: "leads@example.com",
  AIResponseLanguage: "Portuguese",
  MessageLimit: -1,
};

export function newWorkspace(store: ApiStore): Promise<Workspace> {
  return store.workspaces.create({
    name: unique("workspace"),
    secretKey: unique("secret"),
    sessionKey: unique("session"),
  });
}

/** A chatbot in a new workspace (or the given one). */
export async function newChatbot(store: ApiStore, workspaceId?: number): Promise<Chatbot> {
  return store.chatbots.create({
    workspaceId: workspaceId ?? (await newWorkspace(store)).id,
    serialNumber: unique("chatbot"),
    type: 0,
    settings: SETTINGS,
  });
}

/** A plain text message of a session. */
export function newMessage(session: ChatSession, role: MessageRole, content: string): NewChatMessage {
  return {
    sessionId: session.id,
    chatbotId: session.chatbotId,
    role,
    content,
    askType: "Text",
    fileIds: [],
    totalToken: role === "AI" ? 42 : 0,
    noAnswer: false,
    partial: false,
  };
}

/** A listing with only the required fields. */
export function minimalListing(overrides: Partial<ListingFields> = {}): ListingFields {
  return {
    SaleType: "for_sale",
    Status: "Active",
    CurrencySymbol: "$",
    PropertyType: "Single Family",
    Bedrooms: 3,
    Bathrooms: 2,
    Url: `https://homes.example.com/${unique("listing")}`,
    MLSNumber: unique("MLS"),
    YearBuilt: 1998,
    DaysOnMarket: 12,
    LotArea: 5000,
    BuildingArea: 1800,
    AreaUnit: "Square Feet",
    ParkingSpots: 2,
    ...overrides,
  };
}

/** A listing with every field set, fractional numbers and non-ASCII text included. */
export function fullListing(overrides: Partial<ListingFields> = {}): ListingFields {
  return minimalListing({
    SaleType: "for_rent",
    Status: "PreOnMarket",
    CurrencySymbol: "R$",
    PropertyType: "Luxury Condo",
    Bedrooms: 2,
    Bathrooms: 1.5,
    YearBuilt: 2015,
    DaysOnMarket: 0,
    LotArea: 0,
    BuildingArea: 92.75,
    AreaUnit: "Square Meters",
    ParkingSpots: 1,
    Images: ["https://img.example.com/1.jpg", "https://img.example.com/2.jpg"],
    Tours: "3D",
    Description: 'Bright flat, "sea view"\nnear the metro; 10% off first month.',
    ExtensionColumn: [
      { Key: "Pets", value: "allowed" },
      { Key: "Andar", value: "12º" },
    ],
    Location: "Jardins",
    Address: "Rua Oscar Freire, 1000 — apto 12",
    City: "São Paulo",
    State: "SP",
    ZIP: "01426-001",
    Latitude: -23.561414123456,
    Longitude: -46.668987654321,
    SalePrice: 1_234_567.89,
    UnitAreaPrice: 13_310.97,
    HOAMonth: 850.5,
    ZestimatePrice: 1_250_000,
    RentPrice: 7_500.25,
    SpaceType: "Entire place",
    DepositFee: 15_000.5,
    ...overrides,
  });
}
