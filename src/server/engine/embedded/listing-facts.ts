import type { Listing } from "../../domain.js";
import type { ListingFacts, Phrasebook, SearchWords } from "./phrasebook.js";
import type { SearchFilters } from "./question.js";

const formats = new Map<string, Intl.NumberFormat>();

/** A number with the locale's thousands separators and at most two decimals ("450,000", "2.5"). */
function formatNumber(value: number, locale: string): string {
  let format = formats.get(locale);
  if (format === undefined) {
    format = new Intl.NumberFormat(locale, { maximumFractionDigits: 2 });
    formats.set(locale, format);
  }
  return format.format(value);
}

/** An amount after its currency symbol, as listings carry it ("$450,000"). */
function formatMoney(value: number, symbol: string, locale: string): string {
  return `${symbol}${formatNumber(value, locale)}`;
}

const positive = (value: number | undefined): value is number => value !== undefined && value > 0;
const text = (value: string | undefined) => (value?.trim() ? value.trim() : undefined);

/**
 * The price of a listing's own kind: the monthly rent of a rental, the sale price otherwise; undefined when it is
 * missing or 0, which answers say as "price on request".
 */
export function listingPrice(listing: Listing): number | undefined {
  const amount = listing.SaleType === "for_rent" ? listing.RentPrice : listing.SalePrice;
  return positive(amount) ? amount : undefined;
}

/** A listing's facts formatted in the phrasebook's language. */
export function listingFacts(listing: Listing, book: Phrasebook): ListingFacts {
  const money = (value: number) => formatMoney(value, listing.CurrencySymbol, book.locale);
  const area = (value: number) => `${formatNumber(value, book.locale)} ${book.areaUnits[listing.AreaUnit]}`;
  const amount = listingPrice(listing);
  const city = text(listing.City);
  const stateZip = [text(listing.State), text(listing.ZIP)].filter(Boolean).join(" ");
  const address = [text(listing.Address), city, stateZip].filter(Boolean).join(", ");
  return {
    mlsNumber: listing.MLSNumber,
    propertyType: listing.PropertyType,
    saleType: listing.SaleType,
    status: listing.Status,
    price: amount !== undefined ? `${money(amount)}${listing.SaleType === "for_rent" ? book.perMonth : ""}` : undefined,
    bedrooms: listing.Bedrooms,
    bathrooms: listing.Bathrooms,
    bathroomsText: formatNumber(listing.Bathrooms, book.locale),
    area: positive(listing.BuildingArea) ? area(listing.BuildingArea) : undefined,
    lot: positive(listing.LotArea) ? area(listing.LotArea) : undefined,
    address: address || undefined,
    city,
    url: text(listing.Url),
    yearBuilt: positive(listing.YearBuilt) ? listing.YearBuilt : undefined,
    parkingSpots: listing.ParkingSpots,
    hoa: positive(listing.HOAMonth) ? `${money(listing.HOAMonth)}${book.perMonth}` : undefined,
    deposit: positive(listing.DepositFee) ? money(listing.DepositFee) : undefined,
    daysOnMarket: listing.DaysOnMarket,
    tours: listing.Tours,
    spaceType: listing.SpaceType,
    description: text(listing.Description),
  };
}

/** The filters of a search in words' raw material: prices formatted, "/month" on rents. */
export function searchWords(filters: SearchFilters, currencySymbol: string, book: Phrasebook): SearchWords {
  const suffix = filters.saleType === "for_rent" ? book.perMonth : "";
  const money = (value: number | undefined) =>
    value === undefined ? undefined : `${formatMoney(value, currencySymbol, book.locale)}${suffix}`;
  return {
    propertyType: filters.propertyType,
    saleType: filters.saleType,
    city: filters.city,
    minBedrooms: filters.minBedrooms,
    maxBedrooms: filters.maxBedrooms,
    minBathrooms: filters.minBathrooms === undefined ? undefined : formatNumber(filters.minBathrooms, book.locale),
    minParkingSpots: filters.minParkingSpots,
    minPrice: money(filters.minPrice),
    maxPrice: money(filters.maxPrice),
  };
}
