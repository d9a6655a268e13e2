/**
 * What in an answer's text may name a listing: its page's address, or its MLS number. Read from the text alone, so
 * cards work with every chatbot (the embedded engine, an LLM, the hosted platform) whatever it writes around them.
 */

/** A listing named in an answer: by the address of its page, or by its MLS number as written. */
export type ListingReference = { kind: "url"; url: string } | { kind: "mls"; mlsNumber: string };

/**
 * http(s) addresses up to the first space, angle bracket or quote (typographic ones too, which an address holds only
 * percent-encoded); trailing punctuation is trimmed after.
 */
const URL_PATTERN = /\bhttps?:\/\/[^\s<>"'`“”‘’«»]+/gi;

/**
 * "MLS# 12345", "MLS #: 12345", "MLS no. 42A", "MLS number TX-1234" (the number after a marker), "MLS 12345" (after
 * a space, then it must hold a digit) and "MLS240137" (the prefix is part of the number, as the embedded engine
 * writes it). Whatever the form, the number must hold a digit, so "MLS number is" names nothing.
 */
const MLS_PATTERN =
  /\bMLS(?:\s*(?:#|no\.|num(?:ber)?\.?|:)\s*[#:]?\s*([A-Z0-9][A-Z0-9-]*)|\s+([A-Z0-9-]*\d[A-Z0-9-]*)|-?\d[A-Z0-9-]*)/gi;

/** Characters that end a sentence or a markdown emphasis rather than an address. */
const TRAILING = new Set([".", ",", ";", ":", "!", "?", "*", "_", "~", "'", '"']);
const CLOSERS: Record<string, string> = { ")": "(", "]": "[", "}": "{" };

/** The address without what only surrounds it in prose or markdown: "(see https://x/a)." → "https://x/a". */
function trimUrl(candidate: string): string {
  const counts = new Map<string, number>();
  for (const char of candidate) counts.set(char, (counts.get(char) ?? 0) + 1);
  let end = candidate.length;
  for (; end > 0; end--) {
    const last = candidate[end - 1] ?? "";
    const opener = CLOSERS[last];
    if (opener !== undefined) {
      // A closing bracket is the address's own only when the address opened it, as in Wikipedia's "Foo_(bar)".
      const closers = counts.get(last) ?? 0;
      if (closers <= (counts.get(opener) ?? 0)) break;
      counts.set(last, closers - 1);
    } else if (!TRAILING.has(last)) break;
  }
  return candidate.slice(0, end);
}

/** The form two references to one listing share: the URL without its fragment or trailing slash, the host lower-case. */
export function referenceKey(reference: ListingReference): string {
  if (reference.kind === "mls") return `mls:${reference.mlsNumber.toUpperCase()}`;
  return `url:${normalizeListingUrl(reference.url)}`;
}

/** A page's address as listings are compared: no fragment, no trailing slash, scheme and host lower-case. */
export function normalizeListingUrl(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.hash = "";
    return parsed.href.replace(/\/+(?=$|\?)/, "");
  } catch {
    return url;
  }
}

/**
 * The listing references in `text`, in the order they appear, each once (an address and an MLS number of the same
 * listing are two references here; the lookup finds them one listing).
 */
export function listingReferences(text: string): ListingReference[] {
  const found: { at: number; reference: ListingReference }[] = [];
  for (const match of text.matchAll(URL_PATTERN)) {
    const url = trimUrl(match[0]);
    if (URL.canParse(url)) found.push({ at: match.index, reference: { kind: "url", url } });
  }
  for (const match of text.matchAll(MLS_PATTERN)) {
    const [whole, marked, spaced] = match;
    const number = (marked ?? spaced ?? whole).replace(/-+$/, "");
    // Inside an address ("…/listing/mls240137") it is the address that names the listing.
    const inUrl = found.some(
      ({ at, reference }) => reference.kind === "url" && at < match.index && match.index < at + reference.url.length,
    );
    if (/\d/.test(number) && !inUrl) found.push({ at: match.index, reference: { kind: "mls", mlsNumber: number } });
  }
  const seen = new Set<string>();
  return found
    .sort((a, b) => a.at - b.at)
    .map(({ reference }) => reference)
    .filter((reference) => {
      const key = referenceKey(reference);
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
}
