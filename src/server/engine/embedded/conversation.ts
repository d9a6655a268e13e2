import type { MessageRole } from "../../domain.js";
import { type ParsedQuestion, parseQuestion, type QuestionVocabulary, type SearchFilters } from "./question.js";

/** What the current question asks, in the light of the session's earlier questions. */
export type Understanding =
  | { kind: "greeting" }
  | { kind: "thanks" }
  /** Neither about listings nor a greeting. */
  | { kind: "other" }
  | { kind: "listing"; mlsNumber: string }
  | { kind: "search"; filters: SearchFilters };

/** "Cheaper ones?" lowers an existing price cap by this factor (and sorts by price). */
const CHEAPER_STEP = 0.8;
/**
 * With neither "for sale" nor "for rent" said, a price of at least this much means buying: no monthly rent is that
 * high, while a lower amount filters rentals by rent and sales by price alike.
 */
const SALE_PRICE_FLOOR = 20_000;

function withoutUndefined(filters: SearchFilters): SearchFilters {
  return Object.fromEntries(Object.entries(filters).filter(([, value]) => value !== undefined)) as SearchFilters;
}

function asksForListings(parsed: ParsedQuestion): boolean {
  return parsed.subject || parsed.cheaper || Object.values(parsed.filters).some((value) => value !== undefined);
}

/**
 * Applies one message to the search so far. A message that names what and where anew ("rentals in Denver",
 * "condos for sale in Miami") without a follow-up start begins a new search; anything else refines the current
 * one, replacing the fields it mentions ("what about Denver?" replaces the city, "and with 4 bedrooms?" the
 * bedroom count).
 */
function refine(context: SearchFilters, parsed: ParsedQuestion): SearchFilters {
  const said = withoutUndefined(parsed.filters);
  const restarts = parsed.subject && !parsed.continues && (said.city !== undefined || said.saleType !== undefined);
  const next: SearchFilters = restarts ? {} : { ...context };
  if (said.saleType !== undefined && next.saleType !== undefined && said.saleType !== next.saleType) {
    // A sale price cap means nothing for a monthly rent, and the reverse.
    next.minPrice = undefined;
    next.maxPrice = undefined;
  }
  if (said.minBedrooms !== undefined || said.maxBedrooms !== undefined) {
    next.minBedrooms = undefined;
    next.maxBedrooms = undefined;
  }
  if (said.minPrice !== undefined && next.maxPrice !== undefined && said.minPrice >= next.maxPrice) {
    next.maxPrice = undefined;
  }
  if (said.maxPrice !== undefined && next.minPrice !== undefined && said.maxPrice <= next.minPrice) {
    next.minPrice = undefined;
  }
  Object.assign(next, said);
  if (parsed.cheaper && said.maxPrice === undefined) {
    next.sort = "price_asc";
    if (next.maxPrice !== undefined) next.maxPrice = Math.round(next.maxPrice * CHEAPER_STEP);
  }
  return withoutUndefined(next);
}

function withSaleTypeFromPrice(filters: SearchFilters): SearchFilters {
  const price = filters.maxPrice ?? filters.minPrice;
  if (filters.saleType !== undefined || price === undefined || price < SALE_PRICE_FLOOR) return filters;
  return { ...filters, saleType: "for_sale" };
}

/**
 * Understands the question with the session's context: the search built from the earlier User messages (oldest
 * first) is refined by the question, so "homes in Austin" then "and with 4 bedrooms?" searches Austin with 4+
 * bedrooms. Greetings, thanks, MLS questions and off-topic messages leave the search context as it was.
 */
export function understandConversation(
  question: string,
  history: readonly { role: MessageRole; content: string }[],
  vocabulary: QuestionVocabulary,
): Understanding {
  let context: SearchFilters = {};
  for (const message of history) {
    if (message.role !== "User") continue;
    const earlier = parseQuestion(message.content, vocabulary);
    if (earlier.mlsNumber === undefined && asksForListings(earlier)) context = refine(context, earlier);
  }
  const parsed = parseQuestion(question, vocabulary);
  if (parsed.greeting) return { kind: "greeting" };
  if (parsed.thanks) return { kind: "thanks" };
  if (parsed.mlsNumber !== undefined) return { kind: "listing", mlsNumber: parsed.mlsNumber };
  if (!asksForListings(parsed)) return { kind: "other" };
  return { kind: "search", filters: withSaleTypeFromPrice(refine(context, parsed)) };
}
