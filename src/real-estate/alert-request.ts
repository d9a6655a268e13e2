/**
 * Whether a message asks to be told about new listings ("notify me about new 3-bedroom homes in Austin under 600k",
 * "avísame cuando haya casas nuevas en Austin"), rather than asking about the listings there are now ("do you have
 * 3 bedroom homes in Austin?"). The bridge saves such a message as an alert; the embedded engine, asked directly,
 * says how to set one up.
 */
import { PROPERTY_KIND_WORDS } from "./property-types.js";
import { anyOf, HOME_WORDS, normalize, RENT_WORDS, SALE_WORDS } from "./vocabulary.js";

/** The language a request was written in, for the reply. */
export type RequestLanguage = "en" | "es";

/** A message that asks for alerts. */
export interface AlertRequest {
  language: RequestLanguage;
}

/**
 * Words that ask for alerts on their own ("notify me", "set up an alert", "avísame"): what follows them only has to
 * be about listings, or nothing at all.
 */
const ASKS = [
  {
    language: "en",
    words: [
      "notify me",
      "alert me",
      "send me (?:an? |new )?(?:alerts?|notifications?)",
      "(?:set ?up|create|save|add|make|start|turn on|get) (?:me )?(?:an? |new |some )?(?:alerts?|notifications?)",
      "(?:i want|i'd like|i would like|give me|can i get|could i get|i need) (?:an? |some )?(?:alerts?|notifications?)",
      "(?:i want|i'd like|i would like) to be (?:notified|alerted)",
      "keep me (?:posted|updated|informed)",
    ],
  },
  {
    language: "es",
    words: [
      "avisame",
      "avisenme",
      "me (?:puedes |puede |podrias |podria |pueden )?avisar",
      "me avisas?",
      "me avisan",
      "notificame",
      "notifiquenme",
      "me (?:puedes |puede |pueden )?notificar",
      "me notificas?",
      "(?:crea|crear|creame|configura|configurar|pon|ponme|poner|activa|activar|guarda|guardar|quiero|quisiera) (?:me )?(?:una |un |unas )?(?:alertas?|avisos?|notificacion(?:es)?)",
      "mantenme (?:informad[oa]|al tanto|al dia)",
    ],
  },
] as const;

/**
 * Words that ask for alerts only when a "when" follows and the rest says something new comes: "let me know when new
 * homes come up" is a request, "let me know if you have homes in Austin" and "tell me when the open house is" are
 * questions.
 */
const TELLS = [
  { language: "en", words: ["let me know", "tell me", "inform me", "email me", "text me", "message me", "ping me"] },
  {
    language: "es",
    words: ["informame", "dime", "me dices", "me informas", "me (?:puedes |puede )?(?:decir|informar)"],
  },
] as const;
/** "When": whatever follows may simply name what is new ("tell me when new condos are in"). */
const WHEN = anyOf(["when", "whenever", "as soon as", "once", "cuando", "en cuanto", "apenas", "tan pronto"]);
/** "If": only a listing coming counts ("let me know if you have new listings" is a question). */
const IF = anyOf(["if", "si"]);
const IF_FIRST = new RegExp(`^${IF}`);

/** A listing coming: up, on the market, listed, available. */
const COMING = [
  "comes? (?:up|in|out|on(?:to)? the market)",
  "hits? the market",
  "pops? up",
  "shows? up",
  "(?:is|are|gets?|get) (?:listed|posted|added)",
  "becomes? available",
  "appears?",
  "haya",
  "hayan",
  "salga",
  "salgan",
  "aparezca",
  "aparezcan",
  "aparecen?",
  "salen",
  "publiquen?",
  "publican",
  "se publica",
];
const COMES = new RegExp(anyOf(COMING));
/**
 * Something new, or a listing coming, or "when there is one"; "the new listing", "la casa nueva" is one that exists
 * ("tell me when the new listing is open for viewing").
 */
const NEWNESS = new RegExp(
  anyOf([
    ...COMING,
    String.raw`(?<!\b(?:the|this|that) )(?:new|newly)`,
    String.raw`(?<!\b(?:el|la|los|las|este|esta|estos|estas|ese|esa) (?:\w+ )?)nuev[oa]s?`,
    "there (?:is|are|will be)",
    "there's",
  ]),
);

/** What a request is about: homes of some kind, sale or rent, new listings, price drops. */
const SUBJECT = new RegExp(
  anyOf([
    ...HOME_WORDS,
    ...PROPERTY_KIND_WORDS,
    ...RENT_WORDS,
    ...SALE_WORDS,
    "price drops?",
    "price reductions?",
    "anything",
    "something",
    "bajadas? de precio",
    "algo",
  ]),
);

/** A "don't" before the request: "don't notify me", "no me avises", "stop alerting me". */
const NEGATION = new RegExp(
  anyOf(["don't", "dont", "do not", "never", "stop", "no more", "no", "nunca", "deja de", "dejen de", "ya no"]),
);

const ASK_PATTERNS = ASKS.map(({ language, words }) => ({ language, pattern: new RegExp(anyOf(words)) }));
/** "Tell me" then "when" (then something new) or "if" (then a listing coming), a word apart at most. */
const TELL_PATTERNS = TELLS.flatMap(({ language, words }) =>
  [
    { after: WHEN, coming: NEWNESS },
    { after: IF, coming: COMES },
  ].map(({ after, coming }) => ({
    language,
    pattern: new RegExp(String.raw`${anyOf(words)}\s+(?:\w+\s+)?${after}`),
    coming,
  })),
);

/**
 * The request in `text`, undefined when it asks no such thing. A request ends up as an alert, so this errs on the
 * side of a question: a "tell me / let me know" counts only with a "when" and something new coming, and a request
 * word followed by something other than listings ("notify me when my viewing is confirmed") does not count.
 */
export function alertRequestIn(text: string): AlertRequest | undefined {
  const said = normalize(text);
  for (const { language, pattern } of ASK_PATTERNS) {
    const match = pattern.exec(said);
    if (!match || negated(said, match.index)) continue;
    const rest = said.slice(match.index + match[0].length).replace(/^[\s.,]+/, "");
    // "Avísame si tienes casas en Austin" asks what there is now, unless a listing is coming.
    if (IF_FIRST.test(rest) ? COMES.test(rest) : rest === "" || SUBJECT.test(rest) || NEWNESS.test(rest)) {
      return { language };
    }
  }
  for (const { language, pattern, coming } of TELL_PATTERNS) {
    const match = pattern.exec(said);
    if (match && !negated(said, match.index) && coming.test(said.slice(match.index + match[0].length))) {
      return { language };
    }
  }
  return undefined;
}

/** Whether the words before the request, in the same sentence, say not to. */
function negated(said: string, at: number): boolean {
  const sentence = said.slice(0, at).split(/[.,]/).at(-1) ?? "";
  return NEGATION.test(sentence);
}
