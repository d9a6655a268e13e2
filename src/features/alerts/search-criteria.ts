import type { ListingListItem } from "../../api/types.js";
import type { RequestLanguage } from "../../real-estate/alert-request.js";
import { isOfKind, type PropertyKind } from "../../real-estate/property-types.js";

/** What a saved search asks for; a criterion left out matches every listing. */
export interface SearchCriteria {
  /** Compared without letter case or surrounding blanks. */
  city?: string | undefined;
  saleType?: "for_sale" | "for_rent" | undefined;
  minBeds?: number | undefined;
  maxPrice?: number | undefined;
  /** The kind of property ("house" takes single-family homes and townhouses), matched as the embedded engine does. */
  propertyType?: PropertyKind | undefined;
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
  if (criteria.propertyType && !isOfKind(field(item.PropertyType), criteria.propertyType)) return false;
  return true;
}

/** Each kind in words, plural, in each language. */
const KIND_NAMES: Record<PropertyKind, Record<RequestLanguage, string>> = {
  house: { en: "houses", es: "casas" },
  "single-family": { en: "single-family homes", es: "casas unifamiliares" },
  townhouse: { en: "townhouses", es: "casas adosadas" },
  condo: { en: "condos", es: "condominios" },
  apartment: { en: "apartments", es: "departamentos" },
  "multi-family": { en: "multi-family homes", es: "viviendas multifamiliares" },
  "mobile-home": { en: "mobile homes", es: "casas móviles" },
  land: { en: "land", es: "terrenos" },
};

/**
 * The search in words, for the user: "3+ bedroom houses for sale in Austin up to $600,000", "3+ bedrooms for rent";
 * "homes" when open. In Spanish: "casas de 3+ habitaciones en venta en Austin hasta $600,000".
 */
export function describeCriteria(criteria: SearchCriteria, language: RequestLanguage = "en"): string {
  const kind = criteria.propertyType && KIND_NAMES[criteria.propertyType][language];
  const beds = criteria.minBeds;
  const price = criteria.maxPrice !== undefined ? `$${money.format(criteria.maxPrice)}` : undefined;
  if (language === "es") {
    return [
      kind ?? "viviendas",
      beds !== undefined ? `de ${beds}+ habitaciones` : undefined,
      criteria.saleType === "for_rent" ? "en alquiler" : criteria.saleType === "for_sale" ? "en venta" : undefined,
      criteria.city ? `en ${criteria.city}` : undefined,
      price ? `hasta ${price}` : undefined,
    ]
      .filter(Boolean)
      .join(" ");
  }
  const what = kind
    ? [beds !== undefined ? `${beds}+ bedroom` : undefined, kind].filter(Boolean).join(" ")
    : beds !== undefined
      ? `${beds}+ bedrooms`
      : "homes";
  return [
    what,
    criteria.saleType === "for_rent" ? "for rent" : criteria.saleType === "for_sale" ? "for sale" : undefined,
    criteria.city ? `in ${criteria.city}` : undefined,
    price ? `up to ${price}` : undefined,
  ]
    .filter(Boolean)
    .join(" ");
}
