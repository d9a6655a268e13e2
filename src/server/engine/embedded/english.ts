import { isPropertyKind, type PropertyKind } from "../../../real-estate/property-types.js";
import type { ListingFacts, Phrasebook, ReceivedMedia, Relaxation, RelaxedWords, SearchWords } from "./phrasebook.js";
import { joinWords, mlsLabel } from "./phrasebook.js";

const plural = (count: number, one: string, many: string) => `${count} ${count === 1 ? one : many}`;

/** Nouns a PropertyType may end with, which take a plural; other endings get "properties". */
const TYPE_NOUNS =
  /(?:condo|apartment|townhouse|townhome|house|home|loft|studio|duplex|villa|cabin|lot|unit|flat|bungalow|cottage|penthouse|mansion|farm|ranch)$/;

/**
 * The plural of a free-text PropertyType: "Condo" → "condos", "Townhouse" → "townhouses", "Land" → "land",
 * "Single Family" → "single family homes", "Single Family Residential" → "single family residential properties".
 */
function pluralType(type: string): string {
  const lower = type.toLowerCase();
  if (/land$/.test(lower)) return lower;
  if (/family$/.test(lower)) return `${lower} homes`;
  if (!TYPE_NOUNS.test(lower)) return `${lower} properties`;
  if (/(?:s|x|ch|sh)$/.test(lower)) return `${lower}es`;
  return `${lower}s`;
}

/** The kinds of property a question can ask for, in the plural. */
const KINDS: Record<PropertyKind, string> = {
  house: "houses",
  "single-family": "single family homes",
  townhouse: "townhouses",
  condo: "condos",
  apartment: "apartments",
  "multi-family": "multi-family homes",
  "mobile-home": "mobile homes",
  land: "land",
};

const SALE = { for_sale: "for sale", for_rent: "for rent" } as const;
const STATUS = { Active: "active", PreOnMarket: "coming soon", Sold: "sold" } as const;
const TOURS = { OpenHouse: "open house", "3D": "3D virtual tour" } as const;
const RELAXATIONS: Record<Relaxation, string> = {
  price: "a different price range",
  bedrooms: "fewer bedrooms",
  bathrooms: "fewer bathrooms",
  parking: "no parking requirement",
  type: "another property type",
};
const SORTS = { price_asc: "cheapest first", price_desc: "most expensive first", newest: "newest first" } as const;

function bedrooms({ minBedrooms: min, maxBedrooms: max }: SearchWords): string | undefined {
  if (min !== undefined && max !== undefined) {
    return min === max ? plural(min, "bedroom", "bedrooms") : `${min}–${max} bedrooms`;
  }
  if (min !== undefined) return `${min}+ bedrooms`;
  if (max !== undefined) return `up to ${plural(max, "bedroom", "bedrooms")}`;
  return undefined;
}

/** The asked price range a near miss is outside of: "under $500,000", "from $800,000 up", "between … and …". */
function missedRange({ minPrice: min, maxPrice: max }: SearchWords): string {
  if (min !== undefined && max !== undefined) return `between ${min} and ${max}`;
  return max !== undefined ? `under ${max}` : `from ${min} up`;
}

/** One mile is 1.609344 km; a distance is said in whole miles, at least one. */
const miles = (kilometres: number) => plural(Math.max(1, Math.round(kilometres / 1.609344)), "mile", "miles");

function nearMiss(search: SearchWords, relaxed: RelaxedWords): string {
  switch (relaxed.constraint) {
    case "price": {
      const past = relaxed.over ? "over your budget" : "under your minimum";
      return `Nothing ${missedRange(search)}; the closest is ${relaxed.price} — ${relaxed.percent}% ${past}:`;
    }
    case "bedrooms": {
      const fewer = search.minBedrooms !== undefined && relaxed.bedrooms < search.minBedrooms;
      const count = plural(relaxed.bedrooms, "bedroom", "bedrooms");
      return `Nothing with ${bedrooms(search)}; with one bedroom ${fewer ? "fewer" : "more"} (${count}):`;
    }
    case "city":
      return `Nothing in ${search.city}; the nearest is in ${relaxed.city}, ${miles(relaxed.kilometres)} away:`;
  }
}

function price({ minPrice: min, maxPrice: max }: SearchWords): string | undefined {
  if (min !== undefined && max !== undefined) return `between ${min} and ${max}`;
  if (max !== undefined) return `up to ${max}`;
  if (min !== undefined) return `from ${min}`;
  return undefined;
}

/** "an" before the numbers said with a vowel sound first (8, 11, 18, 80–89, 800–899), "a" before the others. */
const article = (count: number) => (count === 11 || count === 18 || String(count).startsWith("8") ? "an" : "a");

/** A length as a compound adjective with its article: "a 12-second", "an 8-minute", "a 2-minute 5-second". */
function lasting(seconds: number): string {
  const minutes = Math.floor(seconds / 60);
  const rest = seconds % 60;
  if (minutes === 0) return `${article(rest)} ${rest}-second`;
  return `${article(minutes)} ${minutes}-minute${rest === 0 ? "" : ` ${rest}-second`}`;
}

const sized = (noun: string) => (seconds: number | undefined) =>
  seconds === undefined ? `a ${noun}` : `${lasting(seconds)} ${noun}`;

function received(media: ReceivedMedia): string[] {
  const photos = media.photos === 0 ? [] : [media.photos === 1 ? "a photo" : `${media.photos} photos`];
  return [...photos, ...media.recordings.map(sized("voice message")), ...media.videos.map(sized("video"))];
}

function senses(media: ReceivedMedia): string[] {
  const senses: string[] = [];
  if (media.photos > 0) senses.push("look at photos");
  if (media.recordings.length > 0) senses.push("listen to recordings");
  if (media.videos.length > 0) senses.push("watch videos");
  return senses;
}

const whereTo = (cities: string[]) => (cities.length > 0 ? ` I have listings in ${joinWords(cities, "and")}.` : "");

/** English answers. */
export const english: Phrasebook = {
  locale: "en-US",
  perMonth: "/month",
  areaUnits: { "Square Feet": "sq ft", "Square Meters": "m²" },
  welcome: (name) => `Hello! I'm the assistant${name ? ` of ${name}` : ""}. How can I help you find your next home?`,
  thanks: () => "You're welcome! Let me know if you'd like to see more listings.",
  offTopic: (name, city) =>
    `I'm ${name ? `the real-estate assistant of ${name}` : "a real-estate assistant"}, so I can only help with our ` +
    `listings. Try asking, for example, "3 bedroom homes${city ? ` in ${city}` : ""}" or about a listing by its MLS number.`,
  alertsHowTo: () =>
    "I can't send alerts from here. In a chat with me on Telegram, WhatsApp, Slack or this website's chat, send " +
    "this same sentence (or /alert) to save the search: new listings that match then come to you there, /alerts " +
    "lists your alerts and /stop ends them.",
  mediaReceived: (media, captioned) => {
    const next = captioned
      ? "so I'll answer your written message."
      : `so please type what you're looking for, for example "2 bedroom apartments for rent".`;
    return `I received ${joinWords(received(media), "and")}. I can't ${joinWords(senses(media), "or")} offline, ${next}`;
  },
  noListings: () => "I don't have any listings to show right now. Please check back soon.",
  intro: ({ count, shown, search, sort }) => {
    const order = sort ? `, ${SORTS[sort]}` : "";
    if (count === 1) return `I found 1 match for ${search}:`;
    if (shown < count) return `I found ${count} matches for ${search}. Here are the first ${shown}${order}:`;
    return `I found ${count} matches for ${search}${order}:`;
  },
  more: (count, capped) =>
    `…and ${capped ? "at least " : ""}${count} more. Tell me a budget, a number of bedrooms or a city to narrow it down.`,
  noMatch: (search, relaxations, cities) => {
    const hint =
      relaxations.length > 0
        ? ` Try ${joinWords(
            relaxations.map((r) => RELAXATIONS[r]),
            "or",
          )}.`
        : "";
    return `Sorry, I couldn't find any ${search}.${hint}${whereTo(cities)}`;
  },
  nearMiss,
  sold: (facts) => `${mlsLabel(facts.mlsNumber)} has been sold, so it's no longer available.`,
  similar: (count, city) => {
    const where = city ? ` in ${city}` : "";
    return count === 0
      ? `I have no similar homes available${where} right now.`
      : `Similar homes still available${where}:`;
  },
  mlsNotFound: (mls, cities) => `Sorry, I couldn't find a listing with MLS number ${mls}.${whereTo(cities)}`,
  describe: (search) => {
    const type = search.propertyType;
    const what = [type === undefined ? "homes" : isPropertyKind(type) ? KINDS[type] : pluralType(type)];
    if (search.saleType) what.push(SALE[search.saleType]);
    if (search.city) what.push(`in ${search.city}`);
    const features = [bedrooms(search)];
    if (search.minBathrooms !== undefined) features.push(`${search.minBathrooms}+ bathrooms`);
    if (search.minParkingSpots === 1) features.push("parking");
    else if (search.minParkingSpots !== undefined) features.push(`${search.minParkingSpots}+ parking spots`);
    const present = features.filter((feature) => feature !== undefined);
    if (present.length > 0) what.push(`with ${joinWords(present, "and")}`);
    const range = price(search);
    if (range) what.push(range);
    return what.join(" ");
  },
  summary: (facts) =>
    [
      `${facts.propertyType} ${SALE[facts.saleType]}`,
      facts.status === "Active" ? undefined : STATUS[facts.status],
      facts.price ?? "price on request",
      plural(facts.bedrooms, "bed", "beds"),
      `${facts.bathroomsText} ${facts.bathrooms === 1 ? "bath" : "baths"}`,
      facts.area,
    ]
      .filter((part) => part !== undefined)
      .join(" · "),
  details: (facts: ListingFacts) => {
    const lines = [
      `${facts.propertyType} ${SALE[facts.saleType]}${facts.city ? ` in ${facts.city}` : ""} (${mlsLabel(facts.mlsNumber)})`,
    ];
    lines.push(`${facts.saleType === "for_rent" ? "Rent" : "Price"}: ${facts.price ?? "on request"}`);
    if (facts.deposit) lines.push(`Deposit: ${facts.deposit}`);
    lines.push(`Status: ${STATUS[facts.status]}`);
    lines.push(`Bedrooms: ${facts.bedrooms} · Bathrooms: ${facts.bathroomsText}`);
    if (facts.spaceType) lines.push(`Space: ${facts.spaceType === "Room" ? "a room" : "the entire place"}`);
    if (facts.area) lines.push(`Living area: ${facts.area}${facts.lot ? ` · Lot: ${facts.lot}` : ""}`);
    if (facts.yearBuilt) lines.push(`Year built: ${facts.yearBuilt}`);
    lines.push(`Parking: ${facts.parkingSpots > 0 ? plural(facts.parkingSpots, "spot", "spots") : "none"}`);
    if (facts.hoa) lines.push(`HOA: ${facts.hoa}`);
    lines.push(`Days on market: ${facts.daysOnMarket}`);
    if (facts.address) lines.push(`Address: ${facts.address}`);
    if (facts.tours) lines.push(`Tours: ${TOURS[facts.tours]}`);
    if (facts.description) lines.push("", facts.description);
    if (facts.url) lines.push("", facts.url);
    return lines;
  },
};
