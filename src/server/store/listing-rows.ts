import type { Insertable, Selectable } from "kysely";
import type { Listing, ListingFields } from "../domain.js";
import { toDate } from "./codecs.js";
import type { ListingTable } from "./tables.js";

/** The columns that hold a listing's API fields (all but the id, the owner and the timestamps). */
export type ListingFieldColumns = Omit<Insertable<ListingTable>, "id" | "chatbot_id" | "created_at" | "updated_at">;

/** The key the city filter compares: case folded in JavaScript so both databases fold the same way. */
export function cityKey(city: string): string {
  return city.toLowerCase();
}

/**
 * A listing's fields as column values. Every column is given, with NULL for unset fields, so that an update
 * clears a field the new version leaves out (Kysely would skip an `undefined`).
 */
export function toListingColumns(fields: ListingFields): ListingFieldColumns {
  return {
    sale_type: fields.SaleType,
    status: fields.Status,
    currency_symbol: fields.CurrencySymbol,
    property_type: fields.PropertyType,
    bedrooms: fields.Bedrooms,
    bathrooms: fields.Bathrooms,
    url: fields.Url,
    mls_number: fields.MLSNumber,
    year_built: fields.YearBuilt,
    days_on_market: fields.DaysOnMarket,
    lot_area: fields.LotArea,
    building_area: fields.BuildingArea,
    area_unit: fields.AreaUnit,
    parking_spots: fields.ParkingSpots,
    images: fields.Images === undefined ? null : JSON.stringify(fields.Images),
    tours: fields.Tours ?? null,
    description: fields.Description ?? null,
    extension_column: fields.ExtensionColumn === undefined ? null : JSON.stringify(fields.ExtensionColumn),
    location: fields.Location ?? null,
    address: fields.Address ?? null,
    city: fields.City ?? null,
    city_key: fields.City === undefined ? null : cityKey(fields.City),
    state: fields.State ?? null,
    zip: fields.ZIP ?? null,
    latitude: fields.Latitude ?? null,
    longitude: fields.Longitude ?? null,
    sale_price: fields.SalePrice ?? null,
    unit_area_price: fields.UnitAreaPrice ?? null,
    hoa_month: fields.HOAMonth ?? null,
    zestimate_price: fields.ZestimatePrice ?? null,
    rent_price: fields.RentPrice ?? null,
    space_type: fields.SpaceType ?? null,
    deposit_fee: fields.DepositFee ?? null,
  };
}

/** A row as a listing; unset (NULL) optional fields are left out, as they were when the listing was given. */
export function toListing(row: Selectable<ListingTable>): Listing {
  const optional: Partial<ListingFields> = {
    // The store wrote these JSON columns from the listing's arrays.
    Images: row.images === null ? undefined : (JSON.parse(row.images) as string[]),
    Tours: row.tours ?? undefined,
    Description: row.description ?? undefined,
    ExtensionColumn:
      row.extension_column === null
        ? undefined
        : (JSON.parse(row.extension_column) as NonNullable<ListingFields["ExtensionColumn"]>),
    Location: row.location ?? undefined,
    Address: row.address ?? undefined,
    City: row.city ?? undefined,
    State: row.state ?? undefined,
    ZIP: row.zip ?? undefined,
    Latitude: row.latitude ?? undefined,
    Longitude: row.longitude ?? undefined,
    SalePrice: row.sale_price ?? undefined,
    UnitAreaPrice: row.unit_area_price ?? undefined,
    HOAMonth: row.hoa_month ?? undefined,
    ZestimatePrice: row.zestimate_price ?? undefined,
    RentPrice: row.rent_price ?? undefined,
    SpaceType: row.space_type ?? undefined,
    DepositFee: row.deposit_fee ?? undefined,
  };
  return {
    ID: row.id,
    chatbotId: row.chatbot_id,
    SaleType: row.sale_type,
    Status: row.status,
    CurrencySymbol: row.currency_symbol,
    PropertyType: row.property_type,
    Bedrooms: row.bedrooms,
    Bathrooms: row.bathrooms,
    Url: row.url,
    MLSNumber: row.mls_number,
    YearBuilt: row.year_built,
    DaysOnMarket: row.days_on_market,
    LotArea: row.lot_area,
    BuildingArea: row.building_area,
    AreaUnit: row.area_unit,
    ParkingSpots: row.parking_spots,
    ...definedOnly(optional),
    createdAt: toDate(row.created_at),
    updatedAt: toDate(row.updated_at),
  };
}

function definedOnly<T extends object>(values: T): Partial<T> {
  return Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined)) as Partial<T>;
}
