/** An e-mail address or phone number found in a message. */
export interface ContactDetail {
  kind: "email" | "phone";
  /** As the user wrote it (runs of spaces collapsed). */
  value: string;
  /** Equal for two spellings of the same detail: the address lower-cased, the number's digits (and "+"). */
  key: string;
}

const EMAIL =
  /(?<![\p{L}\p{N}._%+-])[\p{L}\p{N}_%+-]+(?:\.[\p{L}\p{N}_%+-]+)*@(?:[\p{L}\p{N}](?:[\p{L}\p{N}-]*[\p{L}\p{N}])?\.)+\p{L}{2,24}(?![\p{L}\p{N}_@-]|\.[\p{L}\p{N}])/gu;

/** Image and document names look like addresses (`logo@2x.png`) but are not. */
const FILE_NAME = /\.(?:png|jpe?g|gif|webp|svg|pdf|docx?)$/i;

const LINK = /\b(?:https?:\/\/|www\.)\S+/gi;

const SPACE = "[ \\u00a0]";
/**
 * Digit groups as phone numbers are written: an optional "+", an optional area code in parentheses (after an
 * optional country code), then groups joined by a space, dash or dot. It cannot start inside a word or a
 * number, or after a currency sign, a minus, "#", "/", "@", "." or ","; nor end before a letter, "%", or a
 * decimal or thousands part — so it never matches a piece of a longer token. Every separator is required, which keeps
 * the pattern linear on long digit runs.
 */
const PHONE_CANDIDATE = new RegExp(
  `(?<![\\p{L}\\p{N}_+$€£¥#@/.,-])(?:\\+${SPACE}?)?(?:\\d{1,4}${SPACE}?(?=\\())?(?:\\(\\d{1,5}\\)${SPACE}?)?\\d+(?:(?:${SPACE}?[.-]${SPACE}?|${SPACE})\\d+)*(?![\\p{L}\\p{N}_@%/]|[.,:-]\\d)`,
  "gu",
);

/** Just before a number: what makes it a listing, an order or a postal code rather than a phone. */
const REFERENCE_BEFORE =
  /(?:(?<!\p{L})(?:mls|listing|id|ref|reference|order|zip|postal|lot|apn|parcel|permit|licen[cs]e|dre|nmls|account|invoice|unit|suite|apt)|#)\s*(?:#|no\.?|nr\.?|num\.?|number|:)?\s*[:#]?\s*$/iu;
/** Just before a number: a currency makes it an amount. */
const CURRENCY_BEFORE = /(?:[$€£¥]|(?<!\p{L})(?:usd|eur|gbp|cad|aud|mxn|brl))\s*:?\s*$/iu;
/** Just after a number: a currency or a unit makes it an amount or a size. */
const UNIT_AFTER =
  /^\s*(?:[$€£¥%]|(?:usd|eur|gbp|dollars?|euros?|k|m|mil|million|billion|sq|sqft|ft|feet|m2|m²|acres?|square|meters?|metres?|km|miles?)(?!\p{L}))/iu;
/** Just before a number: words that announce a phone number, which settle an ambiguous shape. */
const PHONE_CUE =
  /(?<!\p{L})(?:phone|tel|telephone|call|text|sms|whatsapp|mobile|cell|fax|number|contact|reach|ring|dial|tel[eé]fono|m[oó]vil|celular|n[uú]mero)(?!\p{L})[^\p{N}]{0,20}$/iu;

const CONTEXT_CHARS = 30;

/**
 * The e-mail addresses and phone numbers in a message, each once, in the order they appear.
 *
 * Phone numbers are international (`+44 20 7946 0958`, `0044 …`) and national forms (`(512) 555-0100`,
 * `512.555.0100`, `030 12345678`, `06 12 34 56 78`) with 7 to 15 digits. Numbers that only look like phone
 * numbers are left out: amounts (`$450,000`, `1 250 000 €`, `450000-500000`), years and year ranges, dates
 * (`2024-05-01`, `01.05.2024`), decimals, ZIP+4 codes, US social security numbers, and references
 * (`MLS# 12345678`, `listing ID 5125550100`). Shapes that are as often an amount as a phone number — digits
 * grouped by thousands (`612 345 678`), a bare run of fewer than 10 digits — count only after a word such as
 * "call", "phone" or "number".
 */
export function findContactDetails(text: string): ContactDetail[] {
  const found: { index: number; detail: ContactDetail }[] = [];
  for (const match of text.matchAll(EMAIL)) {
    if (FILE_NAME.test(match[0])) continue;
    found.push({ index: match.index, detail: { kind: "email", value: match[0], key: match[0].toLowerCase() } });
  }
  // Digits inside addresses and links are not phone numbers; blanking them keeps the other positions.
  const blank = (value: string) => " ".repeat(value.length);
  const rest = text.replace(EMAIL, blank).replace(LINK, blank);
  for (const match of rest.matchAll(PHONE_CANDIDATE)) {
    const before = rest.slice(Math.max(0, match.index - CONTEXT_CHARS), match.index);
    const after = (candidate: string) => rest.slice(match.index + candidate.length).slice(0, CONTEXT_CHARS);
    // A small number right after a phone number ("… 0100 2 bedrooms", "… 0100 5 pm") is not part of it.
    const trimmed = match[0].replace(/[ \u00a0]\d{1,2}$/, "");
    const detail =
      asPhone(match[0], before, after(match[0])) ??
      (trimmed === match[0] ? undefined : asPhone(trimmed, before, after(trimmed)));
    if (detail) found.push({ index: match.index, detail });
  }
  const seen = new Set<string>();
  return found
    .sort((a, b) => a.index - b.index)
    .map(({ detail }) => detail)
    .filter((detail) => {
      const id = `${detail.kind}:${detail.key}`;
      if (seen.has(id)) return false;
      seen.add(id);
      return true;
    });
}

function asPhone(candidate: string, before: string, after: string): ContactDetail | undefined {
  const digits = candidate.replace(/\D/g, "");
  if (digits.length < 7 || digits.length > 15) return undefined;
  if (REFERENCE_BEFORE.test(before) || CURRENCY_BEFORE.test(before) || UNIT_AFTER.test(after)) return undefined;
  const international = candidate.startsWith("+");
  if (!international) {
    const verdict = judgeNational(candidate);
    if (verdict === "no" || (verdict === "if announced" && !PHONE_CUE.test(before))) return undefined;
  }
  const key = international ? `+${digits}` : digits.startsWith("00") ? `+${digits.slice(2)}` : digits;
  return { kind: "phone", value: candidate.replace(/\s+/g, " "), key };
}

const isYear = (group: string) => group.length === 4 && Number(group) >= 1800 && Number(group) < 2200;
const isMonth = (group: string) => group.length <= 2 && Number(group) >= 1 && Number(group) <= 12;
const isDayOfMonth = (group: string) => group.length <= 2 && Number(group) >= 1 && Number(group) <= 31;

/** Whether a number written without "+" is a phone number by its shape alone. */
function judgeNational(candidate: string): "yes" | "no" | "if announced" {
  const groups = candidate.split(/\D+/).filter((group) => group !== "");
  const [first = "", second = "", third = ""] = groups;
  if (groups.length === 1) return first.length >= 10 ? "yes" : "if announced";
  if (groups.length === 2) {
    // Two numbers side by side (a range, a pair of years), or a decimal.
    if (first.length >= 4 && !first.startsWith("0")) return "no";
    if (/^\d+\.\d+$/.test(candidate)) return "no";
  }
  if (groups.length === 3) {
    const date =
      (isYear(first) && isMonth(second) && isDayOfMonth(third)) ||
      ((third.length === 4 || third.length === 2) &&
        ((isDayOfMonth(first) && isMonth(second)) || (isMonth(first) && isDayOfMonth(second))));
    if (date) return "no";
  }
  if (groups.every(isYear)) return "no";
  if (/^\d{5}-\d{4}$/.test(candidate) || /^\d{3}-\d{2}-\d{4}$/.test(candidate)) return "no";
  if (/^\d{1,2}[.:]\d{2} ?- ?\d{1,2}[.:]\d{2}$/.test(candidate)) return "no";
  // A single digit is a group only at the start (a trunk or country code, as in 1 800 555 0199).
  if (groups.slice(1).some((group) => group.length === 1)) return "no";
  if (first.length <= 3 && !first.startsWith("0") && groups.slice(1).every((group) => group.length === 3)) {
    return "if announced";
  }
  return "yes";
}
