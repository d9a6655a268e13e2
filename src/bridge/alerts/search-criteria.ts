import type { ListingListItem } from "../../api/types.js";

/** What a saved search asks for; a criterion left out matches every listing. */
export interface SearchCriteria {
  /** Compared without letter case or surrounding blanks. */
  city?: string | undefined;
  saleType?: "for_sale" | "for_rent" | undefined;
  minBeds?: number | undefined;
  maxPrice?: number | undefined;
}

const money = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });

/** A RealEstateList field as trimmed text: the API sends strings, a platform may send numbers. */
function field(value: unknown): string {
  return typeof value === "string" ? value.trim() : typeof value === "number" ? String(value) : "";
}

/** A number field, undefined when unset or not a number. */
function amount(value: unknown): number | undefined {
  const written = field(value);
  const parsed = written === "" ? Number.NaN : Number(written);
  return Number.isFinite(parsed) ? parsed : undefined;
}

/** "for_sale" or "for_rent", written either way ("For Rent", "for_rent"). */
export function saleTypeOf(item: ListingListItem): "for_sale" | "for_rent" {
  return field(item.SaleType).toLowerCase().replace(/\s/g, "_") === "for_rent" ? "for_rent" : "for_sale";
}

/** The listing's price, undefined when unset or zero ("on request"). */
export function priceOf(item: ListingListItem): number | undefined {
  const price = amount(item.Price);
  return price !== undefined && price > 0 ? price : undefined;
}

/**
 * True when `item` meets every criterion. A listing that leaves a criterion's field unset does not meet it (a
 * search for 3 bedrooms is not about a listing that does not say), and one priced "on request" is over any maximum.
 */
export function matches(criteria: SearchCriteria, item: ListingListItem): boolean {
  if (criteria.city && field(item.City).toLowerCase() !== criteria.city.trim().toLowerCase()) return false;
  if (criteria.saleType && saleTypeOf(item) !== criteria.saleType) return false;
  if (criteria.minBeds !== undefined && (amount(item.Bedrooms) ?? -1) < criteria.minBeds) return false;
  const price = priceOf(item);
  if (criteria.maxPrice !== undefined && (price === undefined || price > criteria.maxPrice)) return false;
  return true;
}

/** The search in words, for the user: "3+ bedrooms for sale in Austin up to $600,000"; "any home" when open. */
export function describeCriteria(criteria: SearchCriteria): string {
  const parts = [
    criteria.minBeds !== undefined ? `${criteria.minBeds}+ bedrooms` : "homes",
    criteria.saleType === "for_rent" ? "for rent" : criteria.saleType === "for_sale" ? "for sale" : undefined,
    criteria.city ? `in ${criteria.city}` : undefined,
    criteria.maxPrice !== undefined ? `up to $${money.format(criteria.maxPrice)}` : undefined,
  ];
  return parts.filter(Boolean).join(" ");
}
