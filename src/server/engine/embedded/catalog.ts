import type { EngineRequest } from "../types.js";
import { type CityCentre, cityCentres } from "./nearby-cities.js";
import type { QuestionVocabulary } from "./question.js";

/** How many listings the engines ask for at most, to learn the catalog and to count the matches of a search. */
export const SEARCH_LIMIT = 500;

/**
 * What a chatbot offers, learned from its listings: there is no separate list of cities or types, and knowing
 * the real ones keeps ordinary words from being mistaken for cities.
 */
export interface ListingCatalog extends QuestionVocabulary {
  /** Cities with offered listings, most listings first (for suggestions). */
  cities: string[];
  propertyTypes: string[];
  mlsNumbers: string[];
  /** The most common CurrencySymbol, for prices the user typed. */
  currencySymbol: string;
  /** Number of offered listings (capped at {@link SEARCH_LIMIT}). */
  size: number;
  /** Where each city's listings are, for near misses in a nearby city. */
  centres: CityCentre[];
}

/** Whether the chatbot has listings in a city (case-insensitively); a search without a city is in known places. */
export function knowsCity(catalog: ListingCatalog, city: string | undefined): boolean {
  return city === undefined || catalog.cities.some((known) => known.toLowerCase() === city.toLowerCase());
}

/** Distinct values, case-insensitively, in the spelling seen first, most frequent first. */
function byFrequency(values: (string | undefined)[]): string[] {
  const counts = new Map<string, { value: string; count: number }>();
  for (const raw of values) {
    const value = raw?.trim();
    if (!value) continue;
    const entry = counts.get(value.toLowerCase()) ?? { value, count: 0 };
    entry.count++;
    counts.set(value.toLowerCase(), entry);
  }
  return [...counts.values()]
    .sort((a, b) => b.count - a.count || a.value.localeCompare(b.value))
    .map((entry) => entry.value);
}

/** Learns the catalog with one search of the offered listings (Active and PreOnMarket, the store's default). */
export async function loadListingCatalog(searchListings: EngineRequest["searchListings"]): Promise<ListingCatalog> {
  const listings = await searchListings({ limit: SEARCH_LIMIT });
  return {
    cities: byFrequency(listings.map((listing) => listing.City)),
    propertyTypes: byFrequency(listings.map((listing) => listing.PropertyType)),
    mlsNumbers: byFrequency(listings.map((listing) => listing.MLSNumber)),
    currencySymbol: byFrequency(listings.map((listing) => listing.CurrencySymbol))[0] ?? "$",
    size: listings.length,
    centres: cityCentres(listings),
  };
}
