import { AMOUNT, type Amount, COUNT, parseAmount, parseCount } from "../../../real-estate/amounts.js";
import { familyOf, kindNamedIn, PROPERTY_KIND_WORDS } from "../../../real-estate/property-types.js";
import {
  anyOf,
  BATHROOM_WORDS,
  BEDROOM_WORDS,
  CHEAPER,
  CHEAPEST,
  COUNT_QUALIFIERS,
  FILLERS,
  FOLLOW_UP_START,
  GREETINGS,
  HOME_WORDS,
  NEWEST,
  NOT_PLACES,
  normalize,
  OR_MORE,
  PARKING_WORDS,
  PRICE_AT_LEAST,
  PRICE_AT_MOST,
  PRICIEST,
  RENT_WORDS,
  SALE_WORDS,
  THANKS,
} from "../../../real-estate/vocabulary.js";
import type { ListingCriteria } from "../../domain.js";

/** What one question asks to filter by: the search fields of {@link ListingCriteria}, and the kind of property. */
export type SearchFilters = Omit<ListingCriteria, "limit" | "statuses" | "mlsNumber" | "propertyType"> & {
  /**
   * The kind asked for: a `PropertyKind` ("house", "condo"…) or a chatbot's own PropertyType outside every family.
   * The engine matches it itself (see `isOfKind`): the store's substring of PropertyType would find "House" in
   * "Townhouse" and could not offer two families at once.
   */
  propertyType?: string | undefined;
};

/** What the chatbot's listings contain, so that only real cities, types and MLS numbers are recognised. */
export interface QuestionVocabulary {
  cities: readonly string[];
  propertyTypes: readonly string[];
  mlsNumbers: readonly string[];
}

/** One message understood on its own, before the session's context is applied. */
export interface ParsedQuestion {
  filters: SearchFilters;
  /** Names what is searched: a home word, a property type or sale/rent. */
  subject: boolean;
  /** Starts like a follow-up ("and…", "what about…", "y en…"). */
  continues: boolean;
  /** Asks for cheaper listings than before ("cheaper ones?", "¿más baratas?"). */
  cheaper: boolean;
  mlsNumber: string | undefined;
  /** Only a greeting ("hi", "hola, buenos días"). */
  greeting: boolean;
  /** Only thanks ("thanks!", "ok gracias"). */
  thanks: boolean;
}

const QUALIFIERS = COUNT_QUALIFIERS.flatMap((qualifier) => qualifier.words).join("|");
const rooms = (words: string[]) =>
  new RegExp(
    String.raw`(?:\b(${QUALIFIERS})\s+)?\b(${COUNT})(?:\s*(?:-|to|a|or|o)\s*(${COUNT}))?(${OR_MORE})?\s*-?\s*${anyOf(words)}(${OR_MORE})?`,
  );
const BEDROOMS = rooms(BEDROOM_WORDS);
const BATHROOMS = rooms(BATHROOM_WORDS);
const COUNTED_PARKING = new RegExp(String.raw`\b(${COUNT})\s*(?:-?\s*cars?)?\s*-?\s*${anyOf(PARKING_WORDS)}`);
const PARKING = new RegExp(anyOf(PARKING_WORDS));
const MLS = /\bmls\s*(?:#|no\.?|num(?:ber|ero)?\.?)?\s*#?\s*([a-z0-9-]*\d[a-z0-9-]*)/;
const CODE_LIKE = /\b[a-z]*\d[a-z0-9-]{3,}\b/g;
const PRICE_RANGE = new RegExp(
  String.raw`\b(?:between|from|entre|de)\s+(${AMOUNT})\s*(?:and|to|-|y|a|hasta)\s*(${AMOUNT})`,
);
const BARE_RANGE = new RegExp(String.raw`(${AMOUNT})\s*(?:-|to)\s*(${AMOUNT})`);
const AT_MOST = new RegExp(String.raw`(?<![\w])(?:${PRICE_AT_MOST.join("|")})\s*(?:of\s+)?(${AMOUNT})`);
const AT_LEAST = new RegExp(String.raw`(?<![\w])(?:${PRICE_AT_LEAST.join("|")})\s*(${AMOUNT})`);
const ANY_AMOUNT = new RegExp(AMOUNT, "g");
const SORTS: [RegExp, NonNullable<SearchFilters["sort"]>][] = [
  [new RegExp(CHEAPEST), "price_asc"],
  [new RegExp(PRICIEST), "price_desc"],
  [new RegExp(NEWEST), "newest"],
];
const CHEAPER_THAN_BEFORE = new RegExp(CHEAPER);
const CONTINUES = new RegExp(FOLLOW_UP_START);
const RENT = new RegExp(anyOf(RENT_WORDS));
const SALE = new RegExp(anyOf(SALE_WORDS));
const HOME = new RegExp(anyOf(HOME_WORDS));
const GREETING = new RegExp(anyOf(GREETINGS));
const ONLY_GREETING = new RegExp(String.raw`^(?:(?:${[...GREETINGS, ...FILLERS].join("|")})\b[\s,.]*)+$`);
const THANK = new RegExp(anyOf(THANKS));
const ONLY_THANKS = new RegExp(String.raw`^(?:(?:${[...THANKS, ...FILLERS].join("|")})\b[\s,.]*)+$`);
/**
 * "in Boston", "En Sevilla": a capitalized place after a preposition, read from the text as typed. No `i` flag:
 * it would make `\p{Lu}` match lower case too.
 */
const PLACE = /(?:^|\s)(?:[Ii]n|[Ee]n|[Nn]ear|[Aa]round|[Cc]erca de)\s+(\p{Lu}[\p{L}'.-]*(?:\s+\p{Lu}[\p{L}'.-]*)*)/gu;
const VOCABULARY_WORD = new RegExp(
  `^(?:${[...RENT_WORDS, ...SALE_WORDS, ...HOME_WORDS, ...NOT_PLACES, ...PROPERTY_KIND_WORDS].join("|")})\\b`,
);

/** Text from which understood phrases are cut, so that a number is read once (as bedrooms, not also as a price). */
class Sentence {
  constructor(public text: string) {}

  take(pattern: RegExp): RegExpExecArray | undefined {
    const match = pattern.exec(this.text) ?? undefined;
    if (match) this.text = `${this.text.slice(0, match.index)} ${this.text.slice(match.index + match[0].length)}`;
    return match;
  }
}

/** Reads one message: filters, MLS number, greeting or thanks, and whether it continues the previous search. */
export function parseQuestion(question: string, vocabulary: QuestionVocabulary): ParsedQuestion {
  const normalized = normalize(question);
  const sentence = new Sentence(normalized);
  const mlsNumber = takeMlsNumber(sentence, vocabulary.mlsNumbers);
  const filters: SearchFilters = {};
  const beds = roomBounds(sentence.take(BEDROOMS));
  filters.minBedrooms = beds.min;
  filters.maxBedrooms = beds.max;
  filters.minBathrooms = roomBounds(sentence.take(BATHROOMS)).min;
  const parking = sentence.take(COUNTED_PARKING);
  filters.minParkingSpots = parking ? parseCount(parking[1] ?? "") : sentence.take(PARKING) ? 1 : undefined;
  Object.assign(filters, takePrices(sentence));
  filters.saleType = RENT.test(normalized) ? "for_rent" : SALE.test(normalized) ? "for_sale" : undefined;
  filters.propertyType = findPropertyType(sentence.text, vocabulary.propertyTypes);
  filters.city = findCity(sentence.text, vocabulary.cities) ?? findUnknownPlace(question);
  filters.sort = SORTS.find(([pattern]) => pattern.test(sentence.text))?.[1];
  return {
    filters,
    subject: filters.propertyType !== undefined || filters.saleType !== undefined || HOME.test(normalized),
    continues: CONTINUES.test(normalized),
    cheaper: filters.sort !== "price_asc" && CHEAPER_THAN_BEFORE.test(sentence.text),
    mlsNumber,
    greeting: GREETING.test(normalized) && ONLY_GREETING.test(normalized),
    thanks: THANK.test(normalized) && ONLY_THANKS.test(normalized),
  };
}

/**
 * A bare count is a minimum ("3 bedroom homes" = 3+), as listing sites' bedroom filters work; qualifiers and
 * ranges give maxima or exact counts.
 */
function roomBounds(match: RegExpExecArray | undefined): { min?: number; max?: number } {
  const count = match?.[2] === undefined ? undefined : parseCount(match[2]);
  if (match === undefined || count === undefined) return {};
  const upper = match[3] === undefined ? undefined : parseCount(match[3]);
  if (upper !== undefined) return { min: Math.min(count, upper), max: Math.max(count, upper) };
  if (match[4] !== undefined || match[5] !== undefined) return { min: count };
  const qualifier = COUNT_QUALIFIERS.find((candidate) => candidate.words.includes(match[1] ?? ""));
  if (qualifier === undefined) return { min: count };
  const bounded = Math.max(0, count + qualifier.offset);
  if (qualifier.bound === "min") return { min: bounded };
  if (qualifier.bound === "max") return { max: bounded };
  return { min: count, max: count };
}

/** An amount after "under" or in a range may be a plain number ("below 2,500"); alone it must look like a price. */
function plausiblePrice(amount: Amount | undefined): amount is Amount {
  return amount !== undefined && (amount.priceLike || amount.value >= 100);
}

function takePrices(sentence: Sentence): Pick<SearchFilters, "minPrice" | "maxPrice"> {
  const range = sentence.take(PRICE_RANGE) ?? sentence.take(BARE_RANGE);
  if (range) {
    const high = parseAmount(range[2] ?? "");
    const low = parseAmount(range[1] ?? "");
    if (plausiblePrice(low) && plausiblePrice(high)) {
      // "between 300 and 450k": the lower bound borrows the multiplier written only once.
      const lowValue =
        low.multiplier === 1 && low.value * high.multiplier <= high.value ? low.value * high.multiplier : low.value;
      return { minPrice: Math.min(lowValue, high.value), maxPrice: Math.max(lowValue, high.value) };
    }
  }
  const prices: Pick<SearchFilters, "minPrice" | "maxPrice"> = {};
  const atLeast = parseAmount(sentence.take(AT_LEAST)?.[1] ?? "");
  if (plausiblePrice(atLeast)) prices.minPrice = atLeast.value;
  const atMost = parseAmount(sentence.take(AT_MOST)?.[1] ?? "");
  if (plausiblePrice(atMost)) prices.maxPrice = atMost.value;
  if (prices.minPrice === undefined && prices.maxPrice === undefined) {
    // A price on its own ("3 bedrooms for $400k") is a budget.
    const budget = [...sentence.text.matchAll(ANY_AMOUNT)]
      .map((match) => parseAmount(match[0]))
      .find((amount) => amount !== undefined && (amount.priceLike || amount.value >= 10_000));
    if (budget) prices.maxPrice = budget.value;
  }
  return prices;
}

function literal(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * The kind of property named first: one of the engine's kinds ("houses", "pisos", "casa adosada"), or one of the
 * chatbot's own PropertyTypes that belongs to no family, by its name (singular or plural). Generic words ("homes",
 * "properties", "viviendas") name no kind.
 */
function findPropertyType(text: string, propertyTypes: readonly string[]): string | undefined {
  const named = kindNamedIn(text);
  let found: { type: string; at: number } | undefined = named && { type: named.kind, at: named.at };
  for (const type of propertyTypes) {
    const name = normalize(type).replace(/-/g, " ");
    // A type literally named "Homes" must not turn every "homes" into a filter.
    if (familyOf(type) !== undefined || (HOME.test(name) && !name.includes(" "))) continue;
    const match = new RegExp(anyOf([`${literal(name)}(?:e?s)?`])).exec(text);
    if (match && (found === undefined || match.index < found.at)) found = { type, at: match.index };
  }
  return found?.type;
}

/** The longest of the chatbot's cities named in the text ("San Antonio" before "Antonio"). */
function findCity(text: string, cities: readonly string[]): string | undefined {
  return [...cities]
    .sort((a, b) => b.length - a.length)
    .find((city) => new RegExp(String.raw`\b${literal(normalize(city))}\b`).test(text));
}

/**
 * A capitalized place the listings do not have ("homes in Boston"): searched as a city so the answer can say
 * there is nothing there, instead of silently showing every city.
 */
function findUnknownPlace(question: string): string | undefined {
  for (const [, place] of question.matchAll(PLACE)) {
    if (place !== undefined && !VOCABULARY_WORD.test(normalize(place))) return place;
  }
  return undefined;
}

/** "MLS123456", "MLS #123456", or a bare code that is one of the chatbot's MLS numbers. */
function takeMlsNumber(sentence: Sentence, mlsNumbers: readonly string[]): string | undefined {
  const key = (code: string) =>
    code
      .toUpperCase()
      .replace(/[^A-Z0-9]/g, "")
      .replace(/^MLS/, "");
  const known = (code: string) => mlsNumbers.find((mls) => key(mls) === key(code));
  const written = sentence.take(MLS);
  if (written?.[1] !== undefined) {
    const glued = /^mls\w/.test(written[0]);
    return known(written[1]) ?? (glued ? `MLS${written[1]}` : written[1]).toUpperCase();
  }
  for (const match of sentence.text.matchAll(CODE_LIKE)) {
    const mls = known(match[0]);
    if (mls !== undefined) {
      sentence.take(new RegExp(String.raw`\b${literal(match[0])}\b`));
      return mls;
    }
  }
  return undefined;
}
