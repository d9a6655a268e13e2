import type { ListingListItem } from "../../api/types.js";
import { priceOf } from "./search-criteria.js";

/** What a poll remembers of one listing, to tell what changed at the next: its price and status. */
export interface ListingState {
  price?: number | undefined;
  status: string;
}

/** The listings seen by the last poll, by upper-case MLS number. */
export type ListingSnapshot = Record<string, ListingState>;

/** A change worth an alert. */
export interface ListingEvent {
  kind: "new" | "price-drop" | "now-active";
  mlsNumber: string;
  item: ListingListItem;
}

/** What one poll found: the events, and the snapshot the next poll compares with. */
export interface ListingDiff {
  events: ListingEvent[];
  snapshot: ListingSnapshot;
}

/** The snapshot key of a listing; undefined for one without an MLS number (it cannot be told apart). */
function keyOf(item: ListingListItem): string | undefined {
  const mls = String(item.MLSNumber ?? "")
    .trim()
    .toUpperCase();
  return mls === "" ? undefined : mls;
}

/**
 * Compares the listings of a poll with the last snapshot: a listing not seen before is new, one whose price went
 * down had a price drop, one that went from PreOnMarket to Active is now active (a listing changing in two ways has
 * one event, the first of these). With no previous snapshot (the first poll) nothing is an event: every listing
 * would be "new". A listing missing from a poll is forgotten, so it is new again if it comes back.
 */
export function diffListings(previous: ListingSnapshot | undefined, items: readonly ListingListItem[]): ListingDiff {
  const events: ListingEvent[] = [];
  const snapshot: ListingSnapshot = {};
  for (const item of items) {
    const key = keyOf(item);
    if (!key || snapshot[key]) continue;
    const state: ListingState = {
      price: priceOf(item),
      status: String(item.Status ?? "")
        .trim()
        .toLowerCase(),
    };
    snapshot[key] = state;
    if (!previous) continue;
    const before = previous[key];
    const kind = !before
      ? "new"
      : state.price !== undefined && before.price !== undefined && state.price < before.price
        ? "price-drop"
        : before.status === "preonmarket" && state.status === "active"
          ? "now-active"
          : undefined;
    if (kind) events.push({ kind, mlsNumber: key, item });
  }
  return { events, snapshot };
}
