import type { ListingStatus } from "../../../api/types.js";
import type { Listing } from "../../domain.js";
import type { EngineRequest } from "../types.js";
import { SEARCH_LIMIT } from "./catalog.js";
import { listingPrice } from "./listing-facts.js";

/** A similar home costs within this share of the sold one's price. */
const PRICE_SPREAD = 0.2;
/** Similar homes shown after a sold one. */
const SIMILAR_SHOWN = 3;
/** Only homes that can be bought or rented today: coming-soon ones cannot yet stand in for a sold home. */
const AVAILABLE: ListingStatus[] = ["Active"];

/**
 * Active listings like a sold one, to offer instead: the same city and sale type, a price within 20% (any price
 * when the sold one gives none) and one bedroom more or fewer at most; closest in price first, then in bedrooms.
 * None when the sold listing names no city, since "similar" starts with where it is.
 */
export async function similarOnOffer(
  sold: Listing,
  searchListings: EngineRequest["searchListings"],
): Promise<Listing[]> {
  const city = sold.City?.trim();
  if (!city) return [];
  const price = listingPrice(sold);
  const found = await searchListings({
    city,
    saleType: sold.SaleType,
    minBedrooms: Math.max(0, sold.Bedrooms - 1),
    maxBedrooms: sold.Bedrooms + 1,
    minPrice: price === undefined ? undefined : Math.round(price * (1 - PRICE_SPREAD)),
    maxPrice: price === undefined ? undefined : Math.round(price * (1 + PRICE_SPREAD)),
    statuses: AVAILABLE,
    limit: SEARCH_LIMIT,
  });
  // Without a price of its own, the sold home sets no price bounds and every similar one is equally close in price.
  const priceGap = (listing: Listing) => (price === undefined ? 0 : Math.abs((listingPrice(listing) ?? price) - price));
  const roomGap = (listing: Listing) => Math.abs(listing.Bedrooms - sold.Bedrooms);
  return found.sort((a, b) => priceGap(a) - priceGap(b) || roomGap(a) - roomGap(b)).slice(0, SIMILAR_SHOWN);
}
