import type { ListingStatus, SaleType } from "../../../src/api/types.js";
import { demoListings } from "../../../src/server/demo-listings.js";
import type { Chatbot, Listing, ListingCriteria, StoredSettings } from "../../../src/server/domain.js";
import type { EngineRequest } from "../../../src/server/engine/types.js";
import { defaultSettings } from "../../../src/server/services/default-settings.js";

/** City, sale type, property type, bedrooms, bathrooms, parking spots, MLS number, price or rent, status. */
type Row = [string, SaleType, string, number, number, number, string, number, ListingStatus?];

/** 15 listings in four cities; ids (and creation order) follow the array, so "newest" is the highest id. */
const ROWS: Row[] = [
  ["Austin", "for_sale", "Single Family", 3, 2, 2, "MLS100001", 450_000],
  ["Austin", "for_sale", "Single Family", 4, 3, 2, "MLS100002", 620_000],
  ["Austin", "for_sale", "Condo", 2, 2, 1, "MLS100003", 310_000],
  ["Austin", "for_sale", "Townhouse", 3, 2.5, 1, "MLS100004", 480_000, "PreOnMarket"],
  ["Austin", "for_rent", "Apartment", 2, 1, 0, "MLS100005", 1_950],
  ["Austin", "for_sale", "Single Family", 3, 2, 0, "MLS100006", 395_000, "Sold"],
  ["Denver", "for_sale", "Condo", 1, 1, 1, "MLS200001", 285_000],
  ["Denver", "for_sale", "Single Family", 4, 3, 2, "MLS200002", 710_000],
  ["Denver", "for_rent", "Apartment", 1, 1, 1, "MLS200003", 1_700],
  ["Denver", "for_rent", "Townhouse", 3, 2.5, 2, "MLS200004", 2_800],
  ["Miami", "for_rent", "Apartment", 2, 2, 1, "MLS300001", 2_400],
  ["Miami", "for_rent", "Condo", 1, 1, 0, "MLS300002", 2_100],
  ["Miami", "for_rent", "Apartment", 3, 2, 1, "MLS300003", 3_200],
  ["Miami", "for_sale", "Condo", 2, 2, 1, "MLS300004", 540_000],
  ["San Antonio", "for_sale", "Single Family", 3, 2, 2, "MLS400001", 275_000],
];

/** The fixture's listings, complete with every field a listing has. */
export const LISTINGS: Listing[] = ROWS.map(
  ([city, saleType, type, bedrooms, bathrooms, parking, mls, price, status], index) => {
    const id = index + 1;
    const forRent = saleType === "for_rent";
    return {
      ID: id,
      chatbotId: 7,
      createdAt: new Date(Date.UTC(2025, 0, id)),
      updatedAt: new Date(Date.UTC(2025, 0, id)),
      SaleType: saleType,
      Status: status ?? "Active",
      CurrencySymbol: "$",
      PropertyType: type,
      Bedrooms: bedrooms,
      Bathrooms: bathrooms,
      Url: `https://homes.example.com/listing/${mls.toLowerCase()}`,
      MLSNumber: mls,
      YearBuilt: 1990 + id,
      DaysOnMarket: id * 3,
      LotArea: type === "Single Family" ? 6_000 + id * 100 : 0,
      BuildingArea: 900 + bedrooms * 400,
      AreaUnit: "Square Feet",
      ParkingSpots: parking,
      Description: `Bright ${type.toLowerCase()} with ${bedrooms} bedrooms in ${city}.`,
      Address: `${100 + id} Oak St`,
      City: city,
      State: city === "Denver" ? "CO" : city === "Miami" ? "FL" : "TX",
      ZIP: `7${String(id).padStart(4, "0")}`,
      SalePrice: forRent ? undefined : price,
      RentPrice: forRent ? price : undefined,
      DepositFee: forRent ? price : undefined,
      HOAMonth: type === "Condo" ? 250 : undefined,
      Tours: id % 2 === 0 ? "3D" : undefined,
      SpaceType: forRent ? "Entire place" : undefined,
    };
  },
);

/** The demo chatbot's listings as the store holds them (ids in creation order), for questions tried on the demo. */
export const DEMO_LISTINGS: Listing[] = demoListings().map((fields, index) => ({
  ...fields,
  ID: index + 1,
  chatbotId: 7,
  createdAt: new Date(Date.UTC(2025, 0, index + 1)),
  updatedAt: new Date(Date.UTC(2025, 0, index + 1)),
}));

const OFFERED: ListingStatus[] = ["Active", "PreOnMarket"];

/** The price criteria compare: the rent of a rental, the sale price otherwise. */
const priceOf = (listing: Listing) => (listing.SaleType === "for_rent" ? listing.RentPrice : listing.SalePrice);

/**
 * The store's search over an array, with the semantics of `ListingCriteria` (and of the SQL store): city
 * case-insensitive and exact, property type a case-insensitive substring, price bounds inclusive on the listing's
 * own kind of price, Active and PreOnMarket unless statuses are given, newest first unless sorted by price
 * (listings without a price last).
 */
export function searchArray(listings: Listing[], criteria: ListingCriteria): Listing[] {
  const statuses = criteria.statuses?.length ? criteria.statuses : OFFERED;
  const matches = listings.filter((listing) => {
    const price = priceOf(listing);
    return (
      statuses.includes(listing.Status) &&
      (criteria.city === undefined || listing.City?.toLowerCase() === criteria.city.toLowerCase()) &&
      (criteria.saleType === undefined || listing.SaleType === criteria.saleType) &&
      (criteria.mlsNumber === undefined || listing.MLSNumber === criteria.mlsNumber) &&
      (criteria.propertyType === undefined ||
        listing.PropertyType.toLowerCase().includes(criteria.propertyType.toLowerCase())) &&
      (criteria.minBedrooms === undefined || listing.Bedrooms >= criteria.minBedrooms) &&
      (criteria.maxBedrooms === undefined || listing.Bedrooms <= criteria.maxBedrooms) &&
      (criteria.minBathrooms === undefined || listing.Bathrooms >= criteria.minBathrooms) &&
      (criteria.minParkingSpots === undefined || listing.ParkingSpots >= criteria.minParkingSpots) &&
      (criteria.minPrice === undefined || (price !== undefined && price >= criteria.minPrice)) &&
      (criteria.maxPrice === undefined || (price !== undefined && price <= criteria.maxPrice))
    );
  });
  const direction = criteria.sort === "price_asc" ? 1 : criteria.sort === "price_desc" ? -1 : 0;
  matches.sort((a, b) => {
    if (direction !== 0) {
      const pa = priceOf(a);
      const pb = priceOf(b);
      if (pa !== pb) return pa === undefined ? 1 : pb === undefined ? -1 : (pa - pb) * direction;
    }
    return b.ID - a.ID;
  });
  return matches.slice(0, criteria.limit);
}

/** A chatbot with every setting, for the engines. */
export function chatbotWith(settings: Partial<StoredSettings> = {}): Chatbot {
  return {
    id: 7,
    serialNumber: "c0ffee",
    workspaceId: 1,
    type: 0,
    createdAt: new Date(Date.UTC(2025, 0, 1)),
    settings: {
      ...defaultSettings({ timeZone: "America/Chicago", model: "1" }),
      Name: "Sunrise Realty",
      SystemMessage: "You are Sunrise Realty's friendly assistant.",
      Temperature: 5,
      WelcomeMessage: "Welcome to Sunrise Realty! Ask me about homes for sale or rent.",
      ...settings,
    },
  };
}

/** An engine request over the fixture's listings that records every search the engine makes. */
export function requestFor(
  question: string,
  options: {
    history?: EngineRequest["history"];
    settings?: Partial<StoredSettings>;
    attachments?: EngineRequest["attachments"];
    signal?: AbortSignal;
    listings?: Listing[];
  } = {},
): EngineRequest & { searches: ListingCriteria[] } {
  const searches: ListingCriteria[] = [];
  const listings = options.listings ?? LISTINGS;
  return {
    chatbot: chatbotWith(options.settings),
    model: "1",
    question,
    askType: options.attachments?.length ? "Image" : "Text",
    attachments: options.attachments ?? [],
    history: options.history ?? [],
    signal: options.signal ?? new AbortController().signal,
    searches,
    async searchListings(criteria) {
      searches.push(criteria);
      return searchArray(listings, criteria);
    },
  };
}

/** Earlier User questions (each followed by a stand-in AI answer) as a session history. */
export function historyOf(...questions: string[]): EngineRequest["history"] {
  return questions.flatMap((content) => [
    { role: "User" as const, content },
    { role: "AI" as const, content: "(an earlier answer)" },
  ]);
}
