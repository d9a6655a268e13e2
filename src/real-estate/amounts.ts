/**
 * Numbers as people type them in a chat: "500k", "$1.2M", "450,000", "1.200.000", "2,5", "500 mil",
 * "1,5 millones", and small counts written as words ("three", "tres").
 */

const THOUSAND_WORDS = ["k", "thousand", "grand", "mil"];
const MILLION_WORDS = ["m", "mm", "million", "millions", "millon", "millones"];

/**
 * Regex source of one amount in normalized (lower-case, accent-free) text. The multiplier word may follow after a
 * space ("500 mil") but must end a word, so "2 months" or "100 m2" do not read as millions.
 */
export const AMOUNT = String.raw`(?<![\w.,])(?:[$€£]\s*)?\d+(?:[.,]\d+)*(?:\s*(?:${[...MILLION_WORDS, ...THOUSAND_WORDS].join("|")}))?(?![\w])(?:\s*(?:usd|dollars?|dolares|euros?|pesos))?`;

const COUNT_WORDS: Record<string, number> = {
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  un: 1,
  uno: 1,
  una: 1,
  dos: 2,
  tres: 3,
  cuatro: 4,
  cinco: 5,
  seis: 6,
  siete: 7,
  ocho: 8,
  nueve: 9,
  diez: 10,
};

/** Regex source of a count: digits (with an optional decimal part, as in "2.5 baths") or a number word. */
export const COUNT = String.raw`(?:\d+(?:[.,]\d+)?|${Object.keys(COUNT_WORDS).join("|")})`;

/** The value of a {@link COUNT} match. */
export function parseCount(text: string): number | undefined {
  const word = COUNT_WORDS[text];
  if (word !== undefined) return word;
  const value = Number(text.replace(",", "."));
  return Number.isFinite(value) ? value : undefined;
}

/** A parsed {@link AMOUNT}: its value, and whether it was written like a price rather than a bare count. */
export interface Amount {
  value: number;
  /** Had a currency, a multiplier word or thousands separators. */
  priceLike: boolean;
  /** The multiplier word's factor (1 when there was none), so "between 300 and 450k" can lend it to 300. */
  multiplier: number;
}

/** Parses an {@link AMOUNT} match; undefined when it holds no number. */
export function parseAmount(text: string): Amount | undefined {
  const digits = /\d+(?:[.,]\d+)*/.exec(text)?.[0];
  if (digits === undefined) return undefined;
  const word = /([a-z]+)\s*(?:usd|dollars?|dolares|euros?|pesos)?$/.exec(
    text.slice(text.indexOf(digits) + digits.length),
  )?.[1];
  const multiplier =
    word === undefined ? 1 : MILLION_WORDS.includes(word) ? 1e6 : THOUSAND_WORDS.includes(word) ? 1e3 : 1;
  const grouped = /^\d{1,3}(?:[.,]\d{3})+$/.test(digits);
  const value = readDigits(digits, grouped) * multiplier;
  const currency = /[$€£]|usd|dollar|dolares|euro|peso/.test(text);
  return { value, priceLike: currency || grouped || multiplier > 1, multiplier };
}

/**
 * Digits with separators. Groups of exactly three after every separator are thousands ("450,000", "1.200.000"),
 * both conventions being common in English and Spanish; otherwise the last separator is the decimal point.
 */
function readDigits(digits: string, grouped: boolean): number {
  if (grouped) return Number(digits.replace(/[.,]/g, ""));
  const last = Math.max(digits.lastIndexOf("."), digits.lastIndexOf(","));
  if (last < 0) return Number(digits);
  const whole = digits.slice(0, last).replace(/[.,]/g, "");
  return Number(`${whole}.${digits.slice(last + 1)}`);
}
