/**
 * The words the embedded engine understands, in English and Spanish — and the bridge, in a request for alerts — as
 * regex sources over normalized text (see {@link normalize}): accents removed, lower case, so "días", "dias" and
 * "DÍAS" read alike.
 */

/** Lower case without accents or inverted punctuation; single spaces. */
export function normalize(text: string): string {
  return text
    .normalize("NFD")
    .replace(/\p{M}/gu, "")
    .toLowerCase()
    .replace(/[¿¡?!;:"“”()]/g, " ")
    .replace(/\s+/g, " ")
    .trim();
}

/** A whole-word alternation. */
export function anyOf(words: readonly string[]): string {
  return String.raw`\b(?:${words.join("|")})\b`;
}

/** Bedrooms, after a count ("3 bd", "2 habitaciones", "3 recámaras"). */
export const BEDROOM_WORDS = [
  "bed(?:room)?s?",
  "bdrms?",
  "bds?",
  "brs?",
  "habitacion(?:es)?",
  "dormitorios?",
  "recamaras?",
  "cuartos?",
  "alcobas?",
];
/** Bathrooms, after a count ("2.5 baths", "2 baños"). */
export const BATHROOM_WORDS = ["bath(?:room)?s?", "ba", "banos?"];
/** Parking, with or without a count ("with parking", "2-car garage", "con cochera"). */
export const PARKING_WORDS = [
  "parking(?: spots?| spaces?)?",
  "garages?",
  "car ports?",
  "carports?",
  "estacionamientos?",
  "cocheras?",
  "garajes?",
  "parqueaderos?",
  "aparcamientos?",
  "plazas? de (?:garaje|aparcamiento|estacionamiento)",
];

/** Words that mean renting, including monthly amounts ("2,500 a month", "al mes"). */
export const RENT_WORDS = [
  "for rent",
  "rent",
  "rents",
  "rental",
  "rentals",
  "renting",
  "lease",
  "leasing",
  "to let",
  "per month",
  "a month",
  "monthly",
  "/ ?mo(?:nth)?",
  "alquiler(?:es)?",
  "alquilar",
  "alquila",
  "renta",
  "rentas",
  "rentar",
  "arriendo",
  "arrendar",
  "al mes",
  "por mes",
  "mensual(?:es)?",
];
/** Words that mean buying. */
export const SALE_WORDS = ["for sale", "sale", "buy", "buying", "purchase", "venta", "ventas", "comprar", "compra"];

/**
 * Words that say "a place to live" without naming a property type: they do not filter by type. "Homes" is among
 * them, as on listing sites, where "homes for sale" covers condos too; "houses" and "casas" name a kind (see
 * property-types.ts).
 */
export const HOME_WORDS = [
  "homes?",
  "propert(?:y|ies)",
  "listings?",
  "places?",
  "units?",
  "real estate",
  "available",
  "options",
  "viviendas?",
  "propiedad(?:es)?",
  "inmuebles?",
  "hogar(?:es)?",
  "disponibles?",
  "opciones",
];

/** Starts of a message that continue the previous search ("and with 4 bedrooms?", "what about Denver?", "y en Miami"). */
export const FOLLOW_UP_START = String.raw`^(?:(?:ok|okay|vale|bueno|so|great|perfect|perfecto)\W+)?(?:and|also|what about|how about|only|just|but|now|same|y|e|tambien|que tal|pero|solo|solamente|ahora)\b`;

/** Sorting by price, lowest first ("the cheapest condo", "la casa más barata"). */
export const CHEAPEST = String.raw`\b(?:cheapest|least expensive|lowest[- ]pric(?:e|ed)|most affordable|lo mas (?:barato|economico)|(?:el|la|los|las)(?: \w+)? mas (?:barat|economic)[oa]s?)\b`;
/** Cheaper than what was shown before ("cheaper ones?", "¿más baratas?"). */
export const CHEAPER = String.raw`\b(?:cheaper|less expensive|more affordable|lower[- ]priced|mas (?:barat|economic)[oa]s?)\b`;
/** Sorting by price, highest first. */
export const PRICIEST = String.raw`\b(?:most expensive|priciest|highest[- ]pric(?:e|ed)|more expensive|pricier|lo mas caro|(?:el|la|los|las)(?: \w+)? mas car[oa]s?|mas car[oa]s?)\b`;
/** Sorting by listing date, newest first. */
export const NEWEST = String.raw`\b(?:newest|latest|most recent|new listings|recently listed|mas recientes?|mas nuev[oa]s?|ultim[oa]s?)\b`;

/** Upper bound of a price. */
export const PRICE_AT_MOST = [
  "under",
  "below",
  "less than",
  "lower than",
  "cheaper than",
  "max(?:imum)?",
  "up to",
  "at most",
  "no more than",
  "within",
  "budget(?: of| is)?",
  "<=?",
  "menos de",
  "por debajo de",
  "debajo de",
  "bajo",
  "hasta",
  "maximo",
  "como maximo",
  "no mas de",
  "mas barat[oa]s? que",
  "presupuesto(?: de)?",
];
/** Lower bound of a price. */
export const PRICE_AT_LEAST = [
  "over",
  "above",
  "more than",
  "at least",
  "min(?:imum)?",
  "from",
  "starting at",
  ">=?",
  "mas de",
  "por encima de",
  "encima de",
  "desde",
  "minimo",
  "al menos",
  "a partir de",
  "mas car[oa]s? que",
];

/** Qualifiers of a room count: the bound they give, and how far "more than 3" is from 3. */
export const COUNT_QUALIFIERS: { words: string[]; bound: "min" | "max" | "exact"; offset: number }[] = [
  { words: ["more than", "mas de"], bound: "min", offset: 1 },
  { words: ["less than", "fewer than", "menos de"], bound: "max", offset: -1 },
  {
    words: ["at least", "minimum", "min", "no less than", "al menos", "como minimo", "minimo", "por lo menos"],
    bound: "min",
    offset: 0,
  },
  {
    words: ["at most", "up to", "maximum", "max", "no more than", "hasta", "como maximo", "maximo", "no mas de"],
    bound: "max",
    offset: 0,
  },
  { words: ["exactly", "exactamente", "solo", "only"], bound: "exact", offset: 0 },
];
/** Written after a count: "3+ beds", "3 or more bedrooms", "3 habitaciones o mas". */
export const OR_MORE = String.raw`(?:\s*\+|\s+or more|\s+o mas|\s+plus)`;

/** Greetings; a message of only these (and {@link FILLERS}) gets the WelcomeMessage. */
export const GREETINGS = [
  "hi",
  "hello",
  "hey",
  "hiya",
  "howdy",
  "greetings",
  "good (?:morning|afternoon|evening|day)",
  "hola",
  "buen(?:os|as)? (?:dias|tardes|noches)",
  "buenas",
  "saludos",
  "que tal",
  "how are you(?: doing)?",
  "como (?:estas|esta|estan)",
];
/** Words that may accompany a greeting or thanks without asking anything ("hi there", "ok thanks"). */
export const FILLERS = [
  "there",
  "everyone",
  "all",
  "friend",
  "amigo",
  "ok",
  "okay",
  "great",
  "perfect",
  "perfecto",
  "genial",
  "vale",
  "so much",
  "very much",
  "a lot",
];
/** Thanks; a message of only these (and {@link FILLERS}) is answered with "you're welcome". */
export const THANKS = ["thanks?(?: you)?", "thx", "ty", "cheers", "gracias", "muchas gracias", "mil gracias"];

/** Capitalized words after "in" that are not places ("in English", "en Venta"). */
export const NOT_PLACES = ["english", "spanish", "espanol", "ingles", "mls", "the", "a", "my", "your"];
