/**
 * Property types as people ask for them and as listings name them. A listing's PropertyType is free text ("Single
 * Family Residential", "Condo", "Townhome"…), so each text is read as one of a few canonical families; a question's
 * words ("houses", "pisos", "casa adosada") name a kind, which accepts one or more families.
 */
import { anyOf, normalize } from "./vocabulary.js";

/** The canonical families of PropertyType texts. */
export type TypeFamily =
  | "single-family"
  | "townhouse"
  | "condo"
  | "apartment"
  | "multi-family"
  | "mobile-home"
  | "land";

/**
 * Which family a PropertyType text belongs to, tried in this order over normalized text: mobile homes and
 * townhouses before single-family, since "Mobile Home" and "Townhouse" contain the words of a house.
 */
const FAMILY_TEXTS: [TypeFamily, RegExp][] = [
  ["mobile-home", /\b(?:mobile|manufactured)\b|\bcasas? movil/],
  ["townhouse", /\btown ?(?:house|home)s?\b|\brow ?houses?\b|\badosad[oa]s?\b/],
  ["multi-family", /\bmulti[- ]?family\b|\b(?:duplex|triplex|fourplex|quadruplex)\b|\bmultifamiliar/],
  ["condo", /\bcondo/],
  ["apartment", /\bapartments?\b|\bapts?\b|\bflats?\b|\bapartamentos?\b|\bdepartamentos?\b|\bpisos?\b/],
  [
    "single-family",
    /\bsingle[- ]?family\b|\bhouses?\b|\bdetached\b|\bbungalows?\b|\bcottages?\b|\bchalets?\b|\bunifamiliar|\bcasas?\b/,
  ],
  ["land", /\bland\b|\blots?\b|\bterrenos?\b|\bsolar(?:es)?\b/],
];

/** The kinds a question can ask for: each with the words that name it and the families it accepts. */
export type PropertyKind = "house" | TypeFamily;

/**
 * The words of each kind, as regex sources over normalized text. "House" and "casa" accept townhouses as well as
 * single-family homes, as an agent would offer them (both have their own door and no neighbour above); "single
 * family" and "detached" narrow to the latter. "Apartment" accepts condos, which are apartments one owns, while
 * "condo" asks for condos only. "Home", "property" and the like name no kind at all (see HOME_WORDS).
 */
const KINDS: Record<PropertyKind, { words: string[]; families: TypeFamily[] }> = {
  "mobile-home": { words: ["mobile homes?", "manufactured homes?", "casas? moviles?"], families: ["mobile-home"] },
  townhouse: {
    words: [
      "townhouses?",
      "townhomes?",
      "town ?houses?",
      "town ?homes?",
      "row ?houses?",
      "casas? adosadas?",
      "adosados?",
    ],
    families: ["townhouse"],
  },
  "multi-family": {
    words: [
      "multi[- ]?family(?: homes?| houses?| properties)?",
      "duplex(?:es)?",
      "triplex(?:es)?",
      "multifamiliar(?:es)?",
    ],
    families: ["multi-family"],
  },
  "single-family": {
    words: [
      "single[- ]?family(?: homes?| houses?| residences?)?",
      "detached(?: homes?| houses?)?",
      "casas? unifamiliar(?:es)?",
      "unifamiliar(?:es)?",
      "chalets?",
    ],
    families: ["single-family"],
  },
  house: { words: ["houses?", "casas?"], families: ["single-family", "townhouse"] },
  condo: { words: ["condos?", "condominiums?", "condominios?"], families: ["condo"] },
  apartment: {
    words: ["apartments?", "apts?", "flats?", "apartamentos?", "departamentos?", "deptos?", "pisos?"],
    families: ["apartment", "condo"],
  },
  // "Lots of light" is no plot of land.
  land: { words: ["land", "lots?(?! of)", "plots?", "terrenos?", "solar(?:es)?"], families: ["land"] },
};

/** Every word that names a kind, so that "in Condos" is not read as a place. */
export const PROPERTY_KIND_WORDS: string[] = Object.values(KINDS).flatMap((kind) => kind.words);

const KIND_PATTERNS = Object.entries(KINDS).map(
  ([kind, { words }]) => [kind as PropertyKind, new RegExp(anyOf(words))] as const,
);

/** The family of a PropertyType text; undefined when the text is none the engine knows ("Villa", "Castle"). */
export function familyOf(propertyType: string): TypeFamily | undefined {
  const text = normalize(propertyType).replace(/-/g, " ");
  return FAMILY_TEXTS.find(([, pattern]) => pattern.test(text))?.[0];
}

/** Whether a kind asked for is one of the engine's kinds rather than a chatbot's own PropertyType. */
export function isPropertyKind(asked: string): asked is PropertyKind {
  return Object.hasOwn(KINDS, asked);
}

/** The first kind named in a normalized text, with where it was named; longer words win at the same position. */
export function kindNamedIn(text: string): { kind: PropertyKind; at: number; length: number } | undefined {
  let found: { kind: PropertyKind; at: number; length: number } | undefined;
  for (const [kind, pattern] of KIND_PATTERNS) {
    const match = pattern.exec(text);
    if (match === null) continue;
    const earlier = found === undefined || match.index < found.at;
    const longer = found !== undefined && match.index === found.at && match[0].length > found.length;
    if (earlier || longer) found = { kind, at: match.index, length: match[0].length };
  }
  return found;
}

/**
 * Whether a listing's PropertyType is of the kind asked for: one of the kind's families, or, for a chatbot's own
 * type outside every family, that same type. A PropertyType of no known family thus only ever matches its own name,
 * and is otherwise shown only when no type was asked.
 */
export function isOfKind(propertyType: string, asked: string): boolean {
  const family = familyOf(propertyType);
  if (isPropertyKind(asked)) return family !== undefined && KINDS[asked].families.includes(family);
  return family === undefined && normalize(propertyType) === normalize(asked);
}
