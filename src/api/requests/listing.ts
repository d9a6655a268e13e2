import { z } from "zod";
import { amount, serialNumber, text, wholeNumber } from "./fields.js";
import { must } from "./rules.js";

export const SALE_TYPES = ["for_sale", "for_rent"] as const;
export const LISTING_STATUSES = ["Active", "PreOnMarket", "Sold"] as const;
export const AREA_UNITS = ["Square Feet", "Square Meters"] as const;
export const TOURS = ["OpenHouse", "3D"] as const;
export const SPACE_TYPES = ["Entire place", "Room"] as const;
export const KEY_TYPES = ["NewOaks", "MLSNumber", "URL"] as const;

/** The largest page RealEstateList serves. */
export const MAX_PAGE_SIZE = 100;
/** The most keys one RealEstateDelete takes. */
export const MAX_DELETE_KEYS = 1000;

const listingUrl = z
  .string()
  .max(2048)
  .refine((value) => /^https?:\/\/\S+$/i.test(value), "must be an http(s) URL");

/**
 * The fields of Create and Update, as the spec's table has them. SalePrice and RentPrice are optional there,
 * whatever the SaleType (the hosted docs' sample stops before the prices), so a listing for sale without
 * SalePrice (or for rent without RentPrice) is accepted: its price is "on request", as agencies list homes
 * whose price they give only when asked. RealEstateList shows that price as "" (the spec's form of
 * an unset number); wherever a listing is presented to people (the embedded engine's answers, the listings
 * given to an LLM) it reads "price on request", never an empty price. Update replaces the whole listing, so an
 * Update without the price, or one that switches SaleType to the kind whose price is missing, makes it so too.
 * Searches with a budget leave such listings out; sorted by price they come last.
 */
const listingFields = {
  SaleType: z.enum(SALE_TYPES),
  Status: z.enum(LISTING_STATUSES),
  CurrencySymbol: z.string().trim().min(1).max(8),
  PropertyType: z.string().trim().min(1).max(100),
  Bedrooms: wholeNumber(0, 1000),
  Bathrooms: z.number().min(0).max(1000),
  Url: listingUrl,
  MLSNumber: z.string().trim().min(1).max(64),
  YearBuilt: wholeNumber(0, 3000),
  DaysOnMarket: wholeNumber(0, 100_000),
  LotArea: amount,
  BuildingArea: amount,
  AreaUnit: z.enum(AREA_UNITS),
  ParkingSpots: wholeNumber(0, 10_000),
  Images: z.array(listingUrl).max(100).optional(),
  Tours: z.enum(TOURS).optional(),
  Description: text(20_000).optional(),
  ExtensionColumn: z
    .array(z.object({ Key: z.string().min(1).max(200), value: z.string().max(5000) }))
    .max(100)
    .optional(),
  Location: text(500).optional(),
  Address: text(500).optional(),
  City: text(200).optional(),
  State: text(100).optional(),
  ZIP: text(20).optional(),
  Latitude: z.number().min(-90).max(90).optional(),
  Longitude: z.number().min(-180).max(180).optional(),
  SalePrice: amount.optional(),
  UnitAreaPrice: amount.optional(),
  HOAMonth: amount.optional(),
  ZestimatePrice: amount.optional(),
  RentPrice: amount.optional(),
  SpaceType: z.enum(SPACE_TYPES).optional(),
  DepositFee: amount.optional(),
};

/** `/chat/Chatbot/RealEstateCreate`. */
export const createListingSchema = z.object({ SerialNumber: serialNumber, ...listingFields });

/** `/chat/Chatbot/RealEstateUpdate`: the whole listing again, plus the key that finds it. */
export const updateListingSchema = z.object({
  SerialNumber: serialNumber,
  Key: z.string().trim().min(1).max(2048),
  KeyType: z.enum(KEY_TYPES),
  ...listingFields,
});

/** `/chat/Chatbot/RealEstateList`. */
export const listListingsSchema = z.object({
  SerialNumber: serialNumber,
  CityName: z.string().trim().max(200).optional(),
  SaleType: z.enum(SALE_TYPES).optional(),
  MLSNumber: z.string().trim().max(64).optional(),
  PageNumber: z.number().int().min(1).max(1_000_000).optional().default(1),
  PageSize: z.number().int().min(1).max(MAX_PAGE_SIZE).optional().default(20),
});

/** `/chat/Chatbot/RealEstateDelete`. */
export const deleteListingsSchema = z.object({
  SerialNumber: serialNumber,
  Keys: z.array(z.string().max(2048)).min(1, must("list at least one key")).max(MAX_DELETE_KEYS),
  KeyType: z.enum(KEY_TYPES),
});
