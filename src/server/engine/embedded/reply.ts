import type { Chatbot, Listing } from "../../domain.js";
import { knowsCity, type ListingCatalog } from "./catalog.js";
import { listingFacts, searchWords } from "./listing-facts.js";
import type { Findings } from "./listing-search.js";
import type { NearMiss } from "./near-misses.js";
import type { Phrasebook, Relaxation, RelaxedWords, SearchWords } from "./phrasebook.js";
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
  if (!knowsCity(catalog, filters.city)) return found;
  if (filters.minPrice !== undefined || filters.maxPrice !== undefined) found.push("price");
  if (filters.minBedrooms !== undefined) found.push("bedrooms");
  if (filters.minBathrooms !== undefined) found.push("bathrooms");
  if (filters.minParkingSpots !== undefined) found.push("parking");
  if (filters.propertyType !== undefined) found.push("type");
  return found;
}

/** One numbered entry: the summary line, then address and link indented under it. */
function entry(listing: Listing, index: number, book: Phrasebook): string {
  const facts = listingFacts(listing, book);
  return [`${index + 1}. ${book.summary(facts)}`, facts.address, facts.url]
    .filter((line) => line !== undefined)
    .map((line, at) => (at === 0 ? line : `   ${line}`))
    .join("\n");
}

/** What a near miss relaxed, with the closest listing's price as the answer shows it. */
function relaxedWords({ relaxed, listings }: NearMiss, book: Phrasebook): RelaxedWords {
  if (relaxed.constraint !== "price") return relaxed;
  const [closest] = listings;
  // A price near miss holds priced listings only, so the closest one's price is never "on request".
  const price = (closest && listingFacts(closest, book).price) ?? "";
  return { ...relaxed, price };
}

/** Nothing matched, then each relaxed constraint with its listings, numbered on across them. */
function listNearMisses(search: string, words: SearchWords, nearMisses: NearMiss[], book: Phrasebook): Reply {
  const blocks = [book.noMatch(search, [], [])];
  let index = 0;
  for (const nearMiss of nearMisses) {
    blocks.push(book.nearMiss(words, relaxedWords(nearMiss, book)));
    for (const listing of nearMiss.listings) blocks.push(entry(listing, index++, book));
  }
  // Listings are offered, if not the ones asked for: an answer, not a fallback.
  return { text: blocks.join("\n\n"), noAnswer: false };
}

/** A listing's details; a sold one is said to be sold first, and followed by similar ones on offer. */
function describeListing(listing: Listing, similar: Listing[], book: Phrasebook): Reply {
  const facts = listingFacts(listing, book);
  const details = book.details(facts).join("\n");
  if (facts.status !== "Sold") return { text: details, noAnswer: false };
  const blocks = [book.sold(facts), details, book.similar(similar.length, facts.city)];
  blocks.push(...similar.map((other, index) => entry(other, index, book)));
  return { text: blocks.join("\n\n"), noAnswer: false };
}

function listMatches(
  findings: Extract<Findings, { kind: "matches" }>,
  catalog: ListingCatalog,
  book: Phrasebook,
): Reply {
  const words = searchWords(findings.filters, catalog.currencySymbol, book);
  const search = book.describe(words);
  const { listings, nearMisses } = findings;
  if (listings.length === 0 && nearMisses.length > 0) return listNearMisses(search, words, nearMisses, book);
  if (listings.length === 0) {
    const text =
      catalog.size === 0
        ? book.noListings()
        : book.noMatch(search, relaxations(findings.filters, catalog), catalog.cities);
    return { text, noAnswer: true };
  }
  const shown = listings.slice(0, SHOWN_LISTINGS);
  const intro = book.intro({ count: listings.length, shown: shown.length, search, sort: findings.filters.sort });
  const blocks = [intro, ...shown.map((listing, index) => entry(listing, index, book))];
  if (listings.length > shown.length) blocks.push(book.more(listings.length - shown.length, findings.capped));
  return { text: blocks.join("\n\n"), noAnswer: false };
}

/**
 * Writes the answer to what the listings say. A search that found nothing offers its near misses; a sold listing
 * is said to be sold and followed by similar ones on offer. Fallbacks (nothing matched and nothing near, unknown
 * MLS number, off-topic questions) are polite, suggest what is available, and carry `noAnswer: true`.
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
        ? describeListing(findings.listing, findings.similar, book)
        : { text: book.mlsNotFound(findings.mlsNumber, catalog.cities), noAnswer: true };
    case "matches":
      return listMatches(findings, catalog, book);
  }
}
