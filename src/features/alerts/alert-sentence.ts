import { type AlertRequest, alertRequestIn } from "../../real-estate/alert-request.js";
import { AMOUNT, COUNT, parseAmount, parseCount } from "../../real-estate/amounts.js";
import { kindNamedIn, PROPERTY_KIND_WORDS } from "../../real-estate/property-types.js";
import {
  anyOf,
  BEDROOM_WORDS,
  HOME_WORDS,
  NOT_PLACES,
  normalize,
  OR_MORE,
  PRICE_AT_LEAST,
  PRICE_AT_MOST,
  RENT_WORDS,
  SALE_WORDS,
} from "../../real-estate/vocabulary.js";
import type { SearchCriteria } from "./search-criteria.js";

/** A message asking for alerts, with the search it names (empty when it names none: the guided flow asks). */
export interface AlertSentence extends AlertRequest {
  criteria: SearchCriteria;
}

/** "At least 3", "more than 2", "3+ bedrooms", "3-bedroom", "3 recámaras o más": the least number of bedrooms. */
const BEDROOMS = new RegExp(
  String.raw`(?:\b(at least|min(?:imum)?|no less than|al menos|como minimo|minimo|por lo menos|more than|mas de)\s+)?\b(${COUNT})(?:\s*(?:-|to|or|a|o)\s*${COUNT})?(?:${OR_MORE})?\s*-?\s*${anyOf(BEDROOM_WORDS)}`,
);
const MORE_THAN = new Set(["more than", "mas de"]);
const AT_MOST = new RegExp(String.raw`(?<![\w])(?:${PRICE_AT_MOST.join("|")})\s*(?:of\s+)?(${AMOUNT})`);
const AT_LEAST = new RegExp(String.raw`(?<![\w])(?:${PRICE_AT_LEAST.join("|")})\s*(${AMOUNT})`);
const RANGE = new RegExp(
  String.raw`\b(?:between|from|entre|de)\s+(?:${AMOUNT})\s*(?:and|to|-|y|a|hasta)\s*(${AMOUNT})`,
);
const ANY_AMOUNT = new RegExp(AMOUNT, "g");
const RENT = new RegExp(anyOf(RENT_WORDS));
const SALE = new RegExp(anyOf(SALE_WORDS));
/**
 * "Homes", "hogares": in an alert, houses. A request for "new homes" means houses to most people, and an alert, unlike
 * an answer, comes unasked, so it had better not bring condos; the confirmation names "houses", and "listings" or
 * "properties" ask for every type.
 */
const HOMES = /\b(?:homes?|hogar(?:es)?)\b/;
/**
 * A number alone is a budget ("3 bedrooms for $400k") when it is written like a price, or is at least this high: a
 * ZIP code ("homes in 78701") is not.
 */
const BUDGET_FLOOR = 100_000;
const SALE_PRICE_FLOOR = 20_000;
/** "in Austin", "En San Antonio": a capitalized place after a preposition, read from the text as typed. */
const PLACE = /(?:^|\s)(?:[Ii]n|[Ee]n|[Nn]ear|[Aa]round|[Cc]erca de)\s+(\p{Lu}[\p{L}'.-]*(?:\s+\p{Lu}[\p{L}'.-]*)*)/gu;
const NOT_A_PLACE = new RegExp(
  `^(?:${[...RENT_WORDS, ...SALE_WORDS, ...HOME_WORDS, ...NOT_PLACES, ...PROPERTY_KIND_WORDS].join("|")})\\b`,
);

/**
 * The alert a message asks for, with the search it names: the least bedrooms, the highest price, for sale or for
 * rent, the city (one of `cities`, the chatbot's, when named; else a capitalized place after "in"/"en") and the
 * property type. Undefined when the message asks for no alert (see {@link alertRequestIn}).
 */
export function alertSentenceIn(text: string, cities: readonly string[]): AlertSentence | undefined {
  const request = alertRequestIn(text);
  if (!request) return undefined;
  let said = normalize(text);
  const criteria: SearchCriteria = {};
  const beds = BEDROOMS.exec(said);
  if (beds) {
    const count = parseCount(beds[2] ?? "");
    if (count !== undefined) criteria.minBeds = Math.floor(count) + (MORE_THAN.has(beds[1] ?? "") ? 1 : 0);
    // Cut out, so that its number is not read again as a price.
    said = `${said.slice(0, beds.index)} ${said.slice(beds.index + beds[0].length)}`;
  }
  criteria.maxPrice = maxPriceIn(said);
  criteria.saleType = RENT.test(said) ? "for_rent" : SALE.test(said) ? "for_sale" : undefined;
  if (criteria.saleType === undefined && criteria.maxPrice !== undefined && criteria.maxPrice >= SALE_PRICE_FLOOR) {
    // No monthly rent is that high.
    criteria.saleType = "for_sale";
  }
  criteria.propertyType = kindNamedIn(said)?.kind ?? (HOMES.test(said) ? "house" : undefined);
  criteria.city = cityIn(text, said, cities);
  const named = Object.fromEntries(Object.entries(criteria).filter(([, value]) => value !== undefined));
  return { ...request, criteria: named };
}

/** "Under 600k", "below $600,000", "menos de 600 mil", "between 300k and 500k", or a budget alone ("for $400k"). */
function maxPriceIn(said: string): number | undefined {
  const atMost = parseAmount(AT_MOST.exec(said)?.[1] ?? "");
  if (atMost && (atMost.priceLike || atMost.value >= 100)) return atMost.value;
  const range = parseAmount(RANGE.exec(said)?.[1] ?? "");
  if (range && (range.priceLike || range.value >= 100)) return range.value;
  // A minimum ("over 300k") is no maximum.
  const rest = said.replace(AT_LEAST, " ");
  for (const [written] of rest.matchAll(ANY_AMOUNT)) {
    const amount = parseAmount(written);
    if (amount && (amount.priceLike || amount.value >= BUDGET_FLOOR)) return amount.value;
  }
  return undefined;
}

/** One of the chatbot's cities named in the text (the longest first), else a capitalized place after "in"/"en". */
function cityIn(text: string, said: string, cities: readonly string[]): string | undefined {
  const known = [...cities]
    .sort((a, b) => b.length - a.length)
    .find((city) => {
      const name = normalize(city).replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
      return name !== "" && new RegExp(String.raw`\b${name}\b`).test(said);
    });
  if (known) return known;
  for (const [, place] of text.matchAll(PLACE)) {
    if (place !== undefined && !NOT_A_PLACE.test(normalize(place))) return place;
  }
  return undefined;
}
