import type { Listing } from "../domain.js";
import { type ListingCatalog, SEARCH_LIMIT } from "./embedded/catalog.js";
import type { Findings } from "./embedded/listing-search.js";
import type { NearMiss } from "./embedded/near-misses.js";

/** Listings put into an LLM prompt at most: enough to choose from, few enough to keep the prompt small. */
const CONTEXT_LISTINGS = 8;
/** Descriptions are cut to this many characters in the prompt. */
const DESCRIPTION_CHARS = 400;

/** The fields a model needs to recommend a listing, in the API's own names (which models read well). */
const FIELDS = [
  "MLSNumber",
  "PropertyType",
  "SaleType",
  "Status",
  "CurrencySymbol",
  "SalePrice",
  "RentPrice",
  "DepositFee",
  "HOAMonth",
  "Bedrooms",
  "Bathrooms",
  "BuildingArea",
  "LotArea",
  "AreaUnit",
  "ParkingSpots",
  "YearBuilt",
  "DaysOnMarket",
  "SpaceType",
  "Tours",
  "Address",
  "City",
  "State",
  "ZIP",
  "Url",
  "Description",
] as const satisfies readonly (keyof Listing)[];

/**
 * One listing as a JSON line of its set fields. A listing without the price of its SaleType (SalePrice for
 * sale, RentPrice for rent) says `"Price":"on request"`, so that the model neither leaves the price out nor
 * invents one.
 */
function listingLine(listing: Listing): string {
  const fields: Record<string, unknown> = {};
  for (const field of FIELDS) {
    const value = listing[field];
    if (value === undefined || value === "") continue;
    fields[field] =
      field === "Description" && typeof value === "string" && value.length > DESCRIPTION_CHARS
        ? `${value.slice(0, DESCRIPTION_CHARS)}…`
        : value;
  }
  if (!(listing.SaleType === "for_rent" ? listing.RentPrice : listing.SalePrice)) fields.Price = "on request";
  return JSON.stringify(fields);
}

/** A near miss for the model: which constraint it relaxes and by how much, then its listings. */
function nearMissLines({ relaxed, listings }: NearMiss): string {
  const note =
    relaxed.constraint === "price"
      ? `the price (the first is ${relaxed.percent}% ${relaxed.over ? "over the budget" : "under the minimum"})`
      : relaxed.constraint === "bedrooms"
        ? `the bedrooms (these have ${relaxed.bedrooms})`
        : `the city (these are in ${relaxed.city}, ${Math.round(relaxed.kilometres)} km away)`;
  return `Near misses that relax ${note}; offer them as such, saying what differs:\n${listings.map(listingLine).join("\n")}`;
}

/** What is said of a sold listing: that it is no longer available, and what is similar and on offer. */
function soldLines(similar: Listing[]): string {
  return similar.length === 0
    ? "It is sold, so no longer available; no similar listing is on offer in its city."
    : `It is sold, so no longer available. Similar active listings to offer instead:\n${similar.map(listingLine).join("\n")}`;
}

/**
 * What the LLM is told about the chatbot's listings: an overview of the catalog, and the listings the question
 * finds (with the session's context), as JSON lines. The model answers from these rather than from invention.
 */
export function listingContext(catalog: ListingCatalog, findings: Findings): string {
  const lines =
    catalog.size === 0
      ? ["The agency has no listings on offer right now."]
      : [
          `The agency has ${catalog.size >= SEARCH_LIMIT ? "at least " : ""}${catalog.size} listings on offer, in ${catalog.cities.join(", ")}; property types: ${catalog.propertyTypes.join(", ")}.`,
        ];
  if (findings.kind === "listing") {
    lines.push(
      findings.listing
        ? `The listing the user asks about (RentPrice and HOAMonth are per month):\n${listingLine(findings.listing)}`
        : `No listing has MLS number ${findings.mlsNumber}.`,
    );
    if (findings.listing?.Status === "Sold") lines.push(soldLines(findings.similar));
  } else if (findings.kind === "matches") {
    const shown = findings.listings.slice(0, CONTEXT_LISTINGS);
    lines.push(
      shown.length === 0
        ? "No listing matches what the user is looking for."
        : `Listings matching what the user is looking for (${shown.length} of ${findings.listings.length}${findings.capped ? "+" : ""}), one JSON object per line (RentPrice and HOAMonth are per month):\n${shown.map(listingLine).join("\n")}`,
    );
    lines.push(...findings.nearMisses.map(nearMissLines));
  }
  return lines.join("\n");
}
