import type { Listing } from "../../domain.js";
import type { ListingCatalog } from "./catalog.js";
import { listingPrice } from "./listing-facts.js";
import { nearbyCities } from "./nearby-cities.js";
import type { SearchFilters } from "./question.js";

/** A budget is stretched by at most this share: a little over is an option, far over is another search. */
const PRICE_STRETCH = 0.15;
/** Near misses shown in all, and for one relaxed constraint, so that one answer can offer different compromises. */
const NEAR_MISSES_SHOWN = 3;
const NEAR_MISSES_PER_RELAXATION = 2;

/** The one constraint a near miss relaxes, and by how much. */
export type Relaxed =
  /** The closest listing (the first) is `percent` (at least 1) above the maximum (`over`) or below the minimum. */
  | { constraint: "price"; percent: number; over: boolean }
  /** One bedroom fewer or more than asked: the count the near misses have. */
  | { constraint: "bedrooms"; bedrooms: number }
  /** A city near the one asked for, from centre to centre. */
  | { constraint: "city"; city: string; kilometres: number };

/** Listings that miss the search by one relaxed constraint, closest first. */
export interface NearMiss {
  relaxed: Relaxed;
  listings: Listing[];
}

/** The engine's search of the offered listings (kind of property included), in the order the store returns them. */
export type Search = (filters: SearchFilters) => Promise<Listing[]>;

/** How far a price is outside the asked range, as a share of the bound it misses. */
function miss(price: number, { minPrice, maxPrice }: SearchFilters): { share: number; over: boolean } {
  if (maxPrice !== undefined && price > maxPrice) return { share: (price - maxPrice) / maxPrice, over: true };
  // Otherwise it comes from the range below the minimum, the only other one searched.
  const minimum = minPrice ?? price;
  return { share: (minimum - price) / minimum, over: false };
}

/** Up to 15% over the maximum and under the minimum, closest first. */
async function widerPrice(filters: SearchFilters, search: Search): Promise<NearMiss | undefined> {
  const { minPrice, maxPrice } = filters;
  const ranges: Pick<SearchFilters, "minPrice" | "maxPrice">[] = [];
  if (maxPrice !== undefined) ranges.push({ minPrice: maxPrice, maxPrice: Math.round(maxPrice * (1 + PRICE_STRETCH)) });
  if (minPrice !== undefined) ranges.push({ minPrice: Math.round(minPrice * (1 - PRICE_STRETCH)), maxPrice: minPrice });
  const found = (await Promise.all(ranges.map((range) => search({ ...filters, ...range })))).flat();
  const priced = found.flatMap((listing) => {
    const price = listingPrice(listing);
    return price === undefined ? [] : [{ listing, ...miss(price, filters) }];
  });
  priced.sort((a, b) => a.share - b.share);
  const closest = priced[0];
  if (closest === undefined) return undefined;
  const percent = Math.max(1, Math.round(closest.share * 100));
  return {
    relaxed: { constraint: "price", percent, over: closest.over },
    listings: priced.map((entry) => entry.listing),
  };
}

/**
 * One bedroom fewer than a minimum ("3 bedroom" means 3 or more, so 2), else one more than a maximum ("up to 2
 * bedrooms", so 3); an exact count tries fewer first, which keeps the home within budget more often.
 */
async function otherBedrooms(filters: SearchFilters, search: Search): Promise<NearMiss | undefined> {
  const counts: number[] = [];
  if (filters.minBedrooms !== undefined && filters.minBedrooms >= 1) counts.push(filters.minBedrooms - 1);
  if (filters.maxBedrooms !== undefined) counts.push(filters.maxBedrooms + 1);
  for (const bedrooms of counts) {
    const listings = await search({ ...filters, minBedrooms: bedrooms, maxBedrooms: bedrooms });
    if (listings.length > 0) return { relaxed: { constraint: "bedrooms", bedrooms }, listings };
  }
  return undefined;
}

/** The nearest other city with matches, within reach of the asked city's centre. */
async function nearbyCity(
  filters: SearchFilters,
  catalog: ListingCatalog,
  search: Search,
): Promise<NearMiss | undefined> {
  if (filters.city === undefined) return undefined;
  for (const { city, kilometres } of nearbyCities(filters.city, catalog.centres)) {
    const listings = await search({ ...filters, city });
    if (listings.length > 0) return { relaxed: { constraint: "city", city, kilometres }, listings };
  }
  return undefined;
}

/**
 * What comes closest to a search that found nothing, relaxing one constraint at a time in this order: the price
 * (up to 15% past the budget), the bedrooms (one fewer or more), the city (a nearby one). A small stretch of the
 * budget keeps everything else that was asked; a room fewer changes the home; another city changes the life
 * around it, which people trade last. At most {@link NEAR_MISSES_SHOWN} listings, at most
 * {@link NEAR_MISSES_PER_RELAXATION} per relaxed constraint; a listing appears once, since each relaxation's
 * listings fail the others' constraints. Bathrooms, parking and the kind of property are never relaxed.
 */
export async function findNearMisses(
  filters: SearchFilters,
  catalog: ListingCatalog,
  search: Search,
): Promise<NearMiss[]> {
  const relaxations = [
    () => widerPrice(filters, search),
    () => otherBedrooms(filters, search),
    () => nearbyCity(filters, catalog, search),
  ];
  const nearMisses: NearMiss[] = [];
  let room = NEAR_MISSES_SHOWN;
  for (const relax of relaxations) {
    if (room === 0) break;
    const found = await relax();
    if (found === undefined) continue;
    const listings = found.listings.slice(0, Math.min(room, NEAR_MISSES_PER_RELAXATION));
    nearMisses.push({ ...found, listings });
    room -= listings.length;
  }
  return nearMisses;
}
