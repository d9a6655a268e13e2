import type { Chatbot, Listing } from "../../domain.js";
import type { ListingCatalog } from "./catalog.js";
import { listingFacts, searchWords } from "./listing-facts.js";
import type { Findings } from "./listing-search.js";
import type { Phrasebook, Relaxation } from "./phrasebook.js";
import type { SearchFilters } from "./question.js";

/** At most this many listings are written out; the answer counts the rest. */
const SHOWN_LISTINGS = 5;

/** The embedded engine's answer: its text, and whether it is a fallback rather than an answer. */
export interface Reply {
  text: string;
  noAnswer: boolean;
}

/** What to widen when nothing matched; nothing when the city itself is unknown (the answer lists the cities). */
function relaxations(filters: SearchFilters, catalog: ListingCatalog): Relaxation[] {
  const found: Relaxation[] = [];
  const city = filters.city?.toLowerCase();
  if (city !== undefined && !catalog.cities.some((known) => known.toLowerCase() === city)) return found;
  if (filters.minPrice !== undefined || filters.maxPrice !== undefined) found.push("price");
  if (filters.minBedrooms !== undefined) found.push("bedrooms");
  if (filters.minBathrooms !== undefined) found.push("bathrooms");
  if (filters.minParkingSpots !== undefined) found.push("parking");
  if (filters.propertyType !== undefined) found.push("type");
  return found;
}

/** One numbered entry: the summary line, then address and link indented under it. */
function entry(listing: Listing, index: number, book: Phrasebook): string[] {
  const facts = listingFacts(listing, book);
  return [`${index + 1}. ${book.summary(facts)}`, facts.address, facts.url]
    .filter((line) => line !== undefined)
    .map((line, at) => (at === 0 ? line : `   ${line}`));
}

function listMatches(
  findings: Extract<Findings, { kind: "matches" }>,
  catalog: ListingCatalog,
  book: Phrasebook,
): Reply {
  const search = book.describe(searchWords(findings.filters, catalog.currencySymbol, book));
  const { listings } = findings;
  if (listings.length === 0) {
    const text =
      catalog.size === 0
        ? book.noListings()
        : book.noMatch(search, relaxations(findings.filters, catalog), catalog.cities);
    return { text, noAnswer: true };
  }
  const shown = listings.slice(0, SHOWN_LISTINGS);
  const intro = book.intro({ count: listings.length, shown: shown.length, search, sort: findings.filters.sort });
  const blocks = [intro, ...shown.map((listing, index) => entry(listing, index, book).join("\n"))];
  if (listings.length > shown.length) blocks.push(book.more(listings.length - shown.length, findings.capped));
  return { text: blocks.join("\n\n"), noAnswer: false };
}

/**
 * Writes the answer to what the listings say. Fallbacks (nothing matched, unknown MLS number, off-topic
 * questions) are polite, suggest what is available, and carry `noAnswer: true`.
 */
export function composeReply(findings: Findings, catalog: ListingCatalog, chatbot: Chatbot, book: Phrasebook): Reply {
  const name = chatbot.settings.Name.trim();
  switch (findings.kind) {
    case "greeting":
      return { text: chatbot.settings.WelcomeMessage.trim() || book.welcome(name), noAnswer: false };
    case "thanks":
      return { text: book.thanks(), noAnswer: false };
    case "other":
      return { text: book.offTopic(name, catalog.cities[0]), noAnswer: true };
    case "listing":
      return findings.listing
        ? { text: book.details(listingFacts(findings.listing, book)).join("\n"), noAnswer: false }
        : { text: book.mlsNotFound(findings.mlsNumber, catalog.cities), noAnswer: true };
    case "matches":
      return listMatches(findings, catalog, book);
  }
}
