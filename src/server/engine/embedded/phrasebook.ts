import type { AreaUnit, ListingStatus, SaleType, SpaceType, Tours } from "../../../api/types.js";
import type { SearchFilters } from "./question.js";

/** A listing's facts, numbers already formatted for the answer's language. */
export interface ListingFacts {
  mlsNumber: string;
  propertyType: string;
  saleType: SaleType;
  status: ListingStatus;
  /**
   * Sale price, or rent per month with the language's "/month"; undefined when the listing gives none (or 0),
   * which the phrasebook says as "price on request": a listing is never shown with an empty price.
   */
  price: string | undefined;
  bedrooms: number;
  bathrooms: number;
  /** `bathrooms` formatted ("2.5"). */
  bathroomsText: string;
  /** Building area with its unit ("1,850 sq ft"). */
  area: string | undefined;
  lot: string | undefined;
  /** Street, city, state and ZIP that are known, comma separated. */
  address: string | undefined;
  city: string | undefined;
  url: string | undefined;
  yearBuilt: number | undefined;
  parkingSpots: number;
  hoa: string | undefined;
  deposit: string | undefined;
  daysOnMarket: number;
  tours: Tours | undefined;
  spaceType: SpaceType | undefined;
  description: string | undefined;
}

/** A search in words: the filters with prices formatted. */
export interface SearchWords {
  /** A `PropertyKind` ("house", "condo"…), or a chatbot's own PropertyType outside every family. */
  propertyType?: string | undefined;
  saleType?: SaleType | undefined;
  city?: string | undefined;
  minBedrooms?: number | undefined;
  maxBedrooms?: number | undefined;
  minBathrooms?: string | undefined;
  minParkingSpots?: number | undefined;
  minPrice?: string | undefined;
  maxPrice?: string | undefined;
}

/** Filters a user could drop or widen when nothing matched. */
export type Relaxation = "price" | "bedrooms" | "bathrooms" | "parking" | "type";

/** The constraint a near miss relaxes, in words' raw material. */
export type RelaxedWords =
  /** `price`: the closest listing's, formatted; `percent` above the maximum (`over`) or below the minimum. */
  | { constraint: "price"; price: string; percent: number; over: boolean }
  | { constraint: "bedrooms"; bedrooms: number }
  | { constraint: "city"; city: string; kilometres: number };

/** Introduction of a list of matches. */
export interface Intro {
  count: number;
  shown: number;
  search: string;
  sort: SearchFilters["sort"];
}

/** Media that came with a question: photos counted, each voice message and video with its length when known. */
export interface ReceivedMedia {
  photos: number;
  /** Whole seconds of each voice message; undefined when its header could not be read. */
  recordings: (number | undefined)[];
  /** Whole seconds of each video; undefined when its length is not known. */
  videos: (number | undefined)[];
}

/** Every sentence the embedded engine says, in one language. */
export interface Phrasebook {
  /** BCP 47 locale for numbers. */
  locale: string;
  perMonth: string;
  areaUnits: Record<AreaUnit, string>;
  /** Said to a greeting when the chatbot has no WelcomeMessage. `chatbotName` is empty when the chatbot has none. */
  welcome(chatbotName: string): string;
  thanks(): string;
  /** A question that is neither about listings nor a greeting. */
  offTopic(chatbotName: string, exampleCity: string | undefined): string;
  /**
   * Said to a request for alerts ("notify me about new homes in Austin"), which this engine cannot send: how to set
   * one up where the bridge is in front of it. The answer about what there is now follows.
   */
  alertsHowTo(): string;
  /**
   * What arrived and that it cannot be seen or heard offline; then, with a written message (`captioned`), that
   * the answer follows from it, without one an invitation to type what they are looking for.
   */
  mediaReceived(media: ReceivedMedia, captioned: boolean): string;
  /** The chatbot has no listings on offer at all. */
  noListings(): string;
  intro(intro: Intro): string;
  /** After the shown listings: how many more matched (`capped`: at least that many). */
  more(count: number, capped: boolean): string;
  /** Nothing matched; `relaxations` and `cities` hint at what to ask instead (both empty before near misses). */
  noMatch(search: string, relaxations: Relaxation[], cities: string[]): string;
  /** Introduces the near misses that relax one constraint of the search, naming it and by how much. */
  nearMiss(search: SearchWords, relaxed: RelaxedWords): string;
  /** An asked-about listing is sold: no longer available. */
  sold(facts: ListingFacts): string;
  /** Introduces `count` similar listings on offer instead of a sold one in `city`, or says there are none. */
  similar(count: number, city: string | undefined): string;
  mlsNotFound(mlsNumber: string, cities: string[]): string;
  describe(search: SearchWords): string;
  /** One line naming a listing in a list: type, sale type, "coming soon" when PreOnMarket, price, rooms, area. */
  summary(facts: ListingFacts): string;
  /** The full description of one listing, line by line. */
  details(facts: ListingFacts): string[];
}

/** "A", "A and B", "A, B and C" with the language's conjunction. */
export function joinWords(words: string[], and: string): string {
  if (words.length <= 1) return words.join("");
  return `${words.slice(0, -1).join(", ")} ${and} ${words.at(-1)}`;
}

/** "MLS 123456", or the number alone when it already says MLS ("MLS123456"). */
export function mlsLabel(mlsNumber: string): string {
  return /^mls/i.test(mlsNumber) ? mlsNumber : `MLS ${mlsNumber}`;
}
