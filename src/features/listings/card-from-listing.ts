import type { ListingListItem } from "../../api/types.js";
import type { ListingCard } from "./listing-card.js";

const whole = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });
const upToCents = new Intl.NumberFormat("en-US", { maximumFractionDigits: 2 });

/** A field as text: RealEstateList sends every value as a string, but a platform sending a number is read alike. */
function text(value: unknown): string {
  return typeof value === "string" ? value.trim() : typeof value === "number" ? String(value) : "";
}

/** A number field; undefined when unset ("") or not a number. */
function amount(value: unknown): number | undefined {
  const written = text(value);
  const parsed = written === "" ? Number.NaN : Number(written);
  return Number.isFinite(parsed) ? parsed : undefined;
}

/** The price people read: a missing or zero price is "on request", as the API's answers say it (docs/chatbot-api.md). */
function price(item: ListingListItem, forRent: boolean): string {
  const value = amount(item.Price);
  if (value === undefined || value <= 0) return "Price on request";
  const symbol = text(item.CurrencySymbol);
  return forRent ? `${symbol}${upToCents.format(value)} / month` : `${symbol}${whole.format(value)}`;
}

/**
 * The building's area with its unit. RealEstateList's items carry no `AreaUnit` (the self-hosted server follows the
 * platform's documented shape); one the platform sends is used, otherwise square feet, the unit of MLS listings.
 */
function area(item: ListingListItem): string | undefined {
  const value = amount(item.BuildingArea);
  if (value === undefined || value <= 0) return undefined;
  const unit = /met/i.test(text((item as { AreaUnit?: unknown }).AreaUnit)) ? "m²" : "sq ft";
  return `${whole.format(value)} ${unit}`;
}

/** "Address, City, State ZIP", leaving out what is unset. */
function address(item: ListingListItem): string {
  const region = [text(item.State), text(item.ZIP)].filter(Boolean).join(" ");
  return [text(item.Address), text(item.City), region].filter(Boolean).join(", ");
}

/** The first image that is an http(s) address: `Images` is one comma-separated string. */
function firstImage(images: unknown): string | undefined {
  return text(images)
    .split(",")
    .map((image) => image.trim())
    .find((image) => /^https?:\/\//i.test(image) && URL.canParse(image));
}

/** A RealEstateList item as a card, every value formatted for people. */
export function cardFromListing(item: ListingListItem): ListingCard {
  const forRent = text(item.SaleType).toLowerCase().replace(/\s/g, "_") === "for_rent";
  const status = text(item.Status).toLowerCase();
  return {
    mlsNumber: text(item.MLSNumber),
    url: text(item.Url),
    image: firstImage(item.Images),
    price: price(item, forRent),
    saleType: forRent ? "for_rent" : "for_sale",
    status: status === "preonmarket" ? "Coming soon" : status === "sold" ? "Sold" : undefined,
    beds: amount(item.Bedrooms),
    baths: amount(item.Bathrooms),
    area: area(item),
    address: address(item),
    propertyType: text(item.PropertyType),
  };
}
