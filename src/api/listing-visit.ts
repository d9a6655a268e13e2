/**
 * A ListingVisit lead: someone opened a conversation from a listing's link or QR code (`chatbridge links`). The
 * bridge records one per visit through LeadAdd; the daily leads digest counts them per listing and channel. Its
 * Content names both, in one form the bridge writes and the server reads, so LeadList shows it in plain words.
 */

/** The lead type of a visit. */
export const LISTING_VISIT = "ListingVisit";

/** The Content of a visit's lead: "MLS TX1001 via telegram". */
export function listingVisitContent(mlsNumber: string, channel: string): string {
  return `MLS ${mlsNumber} via ${channel}`;
}

/** The listing and channel of a visit's Content; undefined for any other text. */
export function readListingVisit(content: string): { mlsNumber: string; channel: string } | undefined {
  const match = /^MLS (\S+) via (\S+)$/.exec(content);
  return match ? { mlsNumber: match[1] as string, channel: match[2] as string } : undefined;
}
