import type { ListingStatus } from "../../../api/types.js";
import { isOfKind } from "../../../real-estate/property-types.js";
import type { Listing } from "../../domain.js";
import type { EngineRequest } from "../types.js";
import { knowsCity, type ListingCatalog, loadListingCatalog, SEARCH_LIMIT } from "./catalog.js";
import { type Understanding, understandConversation } from "./conversation.js";
import { findNearMisses, type NearMiss } from "./near-misses.js";
import type { SearchFilters } from "./question.js";
import { similarOnOffer } from "./similar-listings.js";

/** What the listings say about the question. */
export type Findings =
  | { kind: "greeting" | "thanks" | "other" }
  /**
   * An MLS question; `listing` is undefined when no listing has that number. `similar` holds active listings to
   * offer instead of a sold one (empty otherwise).
   */
  | { kind: "listing"; mlsNumber: string; listing: Listing | undefined; similar: Listing[] }
  /**
   * A search: the filters used and every match (up to {@link SEARCH_LIMIT}, `capped` when there may be more);
   * when nothing matched, the near misses (possibly none).
   */
  | { kind: "matches"; filters: SearchFilters; listings: Listing[]; capped: boolean; nearMisses: NearMiss[] };

/** A question about one listing deserves an answer even when that home is sold. */
const EVERY_STATUS: ListingStatus[] = ["Active", "PreOnMarket", "Sold"];

/**
 * A price order needs one kind of price: a monthly rent is not comparable with a sale price. When a price-sorted
 * search without a sale type finds both, the homes for sale are kept (a renter says "rent" or "alquiler").
 */
function comparablePrices(
  filters: SearchFilters,
  listings: Listing[],
): { filters: SearchFilters; listings: Listing[] } {
  if (filters.saleType !== undefined || (filters.sort !== "price_asc" && filters.sort !== "price_desc")) {
    return { filters, listings };
  }
  const forSale = listings.filter((listing) => listing.SaleType === "for_sale");
  if (forSale.length === 0 || forSale.length === listings.length) return { filters, listings };
  return { filters: { ...filters, saleType: "for_sale" }, listings: forSale };
}

/**
 * The ways an MLS number the catalog does not know (a sold home, say) may be stored: as written, and with or
 * without an "MLS" prefix, since "MLS #100006" and "MLS100006" name the same listing.
 */
function mlsSpellings(mlsNumber: string): string[] {
  const bare = mlsNumber.replace(/^MLS[\s#-]*/i, "");
  return [...new Set([mlsNumber, bare === mlsNumber ? `MLS${bare}` : bare])];
}

/**
 * Searches the offered listings (Active and PreOnMarket, the store's default: sold homes are never offered), the
 * kind of property matched here, by family. `capped` tells that the store returned its limit, so that there may be
 * more matches, of the kind too.
 */
async function searchOffered(
  filters: SearchFilters,
  searchListings: EngineRequest["searchListings"],
): Promise<{ listings: Listing[]; capped: boolean }> {
  const { propertyType, ...criteria } = filters;
  const found = await searchListings({ ...criteria, limit: SEARCH_LIMIT });
  const listings =
    propertyType === undefined ? found : found.filter((listing) => isOfKind(listing.PropertyType, propertyType));
  return { listings, capped: found.length >= SEARCH_LIMIT };
}

async function lookUp(
  understanding: Understanding,
  catalog: ListingCatalog,
  searchListings: EngineRequest["searchListings"],
): Promise<Findings> {
  switch (understanding.kind) {
    case "listing": {
      const { mlsNumber } = understanding;
      for (const spelling of mlsSpellings(mlsNumber)) {
        const [listing] = await searchListings({ mlsNumber: spelling, statuses: EVERY_STATUS, limit: 1 });
        if (listing) {
          const similar = listing.Status === "Sold" ? await similarOnOffer(listing, searchListings) : [];
          return { kind: "listing", mlsNumber, listing, similar };
        }
      }
      return { kind: "listing", mlsNumber, listing: undefined, similar: [] };
    }
    case "search": {
      const found = await searchOffered(understanding.filters, searchListings);
      const { filters, listings } = comparablePrices(understanding.filters, found.listings);
      // Around a city the chatbot does not have, there is nothing near: the answer names the cities instead.
      const nearMisses =
        listings.length === 0 && catalog.size > 0 && knowsCity(catalog, filters.city)
          ? await findNearMisses(
              filters,
              catalog,
              async (relaxed) => (await searchOffered(relaxed, searchListings)).listings,
            )
          : [];
      return { kind: "matches", filters, listings, capped: found.capped, nearMisses };
    }
    default:
      return understanding;
  }
}

/**
 * Everything both engines need to answer from the listings: the chatbot's catalog, and what the question (with
 * the session's context) finds. The embedded engine renders it; the LLM provider puts it into the prompt.
 */
export async function consultListings(
  request: Pick<EngineRequest, "question" | "history" | "searchListings">,
): Promise<{ catalog: ListingCatalog; findings: Findings }> {
  const catalog = await loadListingCatalog(request.searchListings);
  const understanding = understandConversation(request.question, request.history, catalog);
  return { catalog, findings: await lookUp(understanding, catalog, request.searchListings) };
}
