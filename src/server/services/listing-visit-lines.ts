import { readListingVisit } from "../../api/listing-visit.js";
import type { Lead } from "../domain.js";

/**
 * One line per listing whose link opened conversations, busiest first: "TX1001: 3 visits (telegram 2, web 1)".
 * A ListingVisit lead whose Content is not a visit's (written by another client) counts under that Content.
 */
export function listingVisitLines(leads: readonly Lead[]): string[] {
  const byListing = new Map<string, Map<string, number>>();
  for (const lead of leads) {
    if (lead.type !== "ListingVisit") continue;
    const visit = readListingVisit(lead.content) ?? { mlsNumber: lead.content || "?", channel: "unknown" };
    const channels = byListing.get(visit.mlsNumber) ?? new Map<string, number>();
    channels.set(visit.channel, (channels.get(visit.channel) ?? 0) + 1);
    byListing.set(visit.mlsNumber, channels);
  }
  const total = (channels: Map<string, number>) => [...channels.values()].reduce((sum, count) => sum + count, 0);
  return [...byListing]
    .sort(([a, one], [b, other]) => total(other) - total(one) || a.localeCompare(b))
    .map(([mlsNumber, channels]) => {
      const count = total(channels);
      const each = [...channels]
        .sort(([a, one], [b, other]) => other - one || a.localeCompare(b))
        .map(([channel, visits]) => `${channel} ${visits}`)
        .join(", ");
      return `${mlsNumber}: ${count} ${count === 1 ? "visit" : "visits"} (${each})`;
    });
}
