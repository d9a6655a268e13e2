/**
 * The code a listing's link carries (`chatbridge links`): Telegram's `/start <code>`, the text of a wa.me link, the
 * web chat's `?listing=<code>`. It names the listing itself, so any process resolves it without a lookup table:
 * `l-<MLS>` when the MLS number is made of Telegram's start-payload characters (A-Z a-z 0-9 _ -), else
 * `lx-<the MLS number's UTF-8 as base64url>`; either fits Telegram's 64 characters or there is no code.
 */

/** Telegram's start payload: 1-64 of these. */
const PAYLOAD_CHARS = /^[A-Za-z0-9_-]+$/;
const MAX_CODE = 64;

/** The code of the listing `mlsNumber`; undefined when even its encoded form is longer than 64 characters. */
export function listingCode(mlsNumber: string): string | undefined {
  const plain = `l-${mlsNumber}`;
  if (PAYLOAD_CHARS.test(mlsNumber) && plain.length <= MAX_CODE) return plain;
  const encoded = `lx-${Buffer.from(mlsNumber, "utf8").toString("base64url")}`;
  return mlsNumber.trim() !== "" && encoded.length <= MAX_CODE ? encoded : undefined;
}

/** The MLS number a code names; undefined for anything that is not a code. */
export function mlsOfCode(code: string): string | undefined {
  if (code.length > MAX_CODE || !PAYLOAD_CHARS.test(code)) return undefined;
  if (code.startsWith("l-") && code.length > 2) return code.slice(2);
  if (!code.startsWith("lx-")) return undefined;
  const decoded = Buffer.from(code.slice(3), "base64url").toString("utf8");
  // Only what listingCode writes: the round trip gives the code back.
  return decoded.trim() !== "" && listingCode(decoded) === code ? decoded : undefined;
}

/**
 * A code at the end of a message, in the shapes the links send: `/start <code>` (Telegram), the code alone (the web
 * chat), or a sentence ending with it (a wa.me text such as "Hi! I'm interested in listing l-TX1001"), a final
 * ".", "!" or "?" allowed.
 */
const CODE_AT_END = /(?:^|\s)(lx?-[A-Za-z0-9_-]+)[.!?]?$/;

/** The MLS number of the listing whose link opened this message, or undefined when it carries no code. */
export function listingLinkIn(text: string): string | undefined {
  const code = CODE_AT_END.exec(text.trim())?.[1];
  return code === undefined ? undefined : mlsOfCode(code);
}

/**
 * A message that opened listing `mlsNumber`'s link, as a person reads it: the code named as the listing ("Opened the
 * link of MLS TX-1001" for a bare code or Telegram's `/start <code>`, else the sentence with the code replaced).
 */
export function linkAsMessage(text: string, mlsNumber: string): string {
  const named = `MLS ${mlsNumber}`;
  const rest = text
    .trim()
    .replace(/^\/start(?:@\w+)?\s*/i, "")
    .replace(CODE_AT_END, (match) => match.replace(/lx?-[A-Za-z0-9_-]+/, named));
  return rest === named || rest === `${named}.` ? `Opened the link of ${named}` : rest;
}
