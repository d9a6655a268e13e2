import type { ListingListItem } from "../../api/types.js";
import type { Listing } from "../domain.js";

const numberText = (value: number | undefined | null) => (value === undefined || value === null ? "" : String(value));

/**
 * A stored listing in RealEstateList's item shape: numbers as text and unset numbers as "", `Images` as one
 * comma-separated string, `ExtensionColumn` as its JSON text, `LATITUDE`/`LONGITUDE` upper-case numbers (null
 * when unset), `Area` from the listing's `Location`, and `Price` = SalePrice for sale or RentPrice for rent.
 * SaleType keeps the request form (`for_sale`, `for_rent`): the spec says the list form differs but not how.
 */
export function toListItem(listing: Listing): ListingListItem {
  return {
    ID: listing.ID,
    PropertyType: listing.PropertyType,
    SaleType: listing.SaleType,
    Status: listing.Status,
    Images: (listing.Images ?? []).join(","),
    CurrencySymbol: listing.CurrencySymbol,
    State: listing.State ?? "",
    City: listing.City ?? "",
    Address: listing.Address ?? "",
    ZIP: listing.ZIP ?? "",
    Area: listing.Location ?? "",
    Url: listing.Url,
    Tours: listing.Tours ?? "",
    MLSNumber: listing.MLSNumber,
    Description: listing.Description ?? "",
    SpaceType: listing.SpaceType ?? "",
    Price: numberText(listing.SaleType === "for_sale" ? listing.SalePrice : listing.RentPrice),
    LATITUDE: listing.Latitude ?? null,
    LONGITUDE: listing.Longitude ?? null,
    Bathrooms: numberText(listing.Bathrooms),
    Bedrooms: numberText(listing.Bedrooms),
    YearBuilt: numberText(listing.YearBuilt),
    DaysOnMarket: numberText(listing.DaysOnMarket),
    LotArea: numberText(listing.LotArea),
    BuildingArea: numberText(listing.BuildingArea),
    ParkingSpots: numberText(listing.ParkingSpots),
    ExtensionColumn: listing.ExtensionColumn ? JSON.stringify(listing.ExtensionColumn) : "",
    RentPrice: numberText(listing.RentPrice),
    DepositFee: numberText(listing.DepositFee),
    SalePrice: numberText(listing.SalePrice),
    UnitAreaPrice: numberText(listing.UnitAreaPrice),
    ZestimatePrice: numberText(listing.ZestimatePrice),
    HOAMonth: numberText(listing.HOAMonth),
  };
}
