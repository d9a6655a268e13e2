import { describe, expect, it } from "vitest";
import type { Listing, ListingCriteria, ListingFields } from "../../../src/server/domain.js";
import { minimalListing, newChatbot, type StoreGetter } from "./fixtures.js";

/** The engines' listing search: each criterion, the default statuses, the sort orders and the limit. */
export function searchContract(store: StoreGetter): void {
  describe("listing search", () => {
    /** Sale and rental listings of one chatbot, created in the order of the names. */
    async function catalogue() {
      const chatbot = await newChatbot(store());
      const add = (fields: Partial<ListingFields>) => store().listings.create(chatbot.id, minimalListing(fields));
      const listings = {
        saleCondo: await add({
          City: "Austin",
          PropertyType: "Luxury Condo",
          Bedrooms: 2,
          Bathrooms: 2,
          ParkingSpots: 1,
          SalePrice: 400_000,
        }),
        saleHouse: await add({
          City: "Austin",
          Status: "PreOnMarket",
          PropertyType: "Single Family",
          Bedrooms: 4,
          Bathrooms: 3,
          ParkingSpots: 2,
          SalePrice: 750_000,
        }),
        soldCondo: await add({
          City: "Austin",
          Status: "Sold",
          PropertyType: "CONDO",
          Bedrooms: 2,
          SalePrice: 300_000,
        }),
        unpriced: await add({
          City: "Dallas",
          PropertyType: "Townhouse",
          Bedrooms: 3,
          Bathrooms: 2.5,
          ParkingSpots: 0,
        }),
        // A rental's price is its rent, whatever SalePrice it also carries.
        rentCondo: await add({
          SaleType: "for_rent",
          City: "austin",
          PropertyType: "Condo",
          Bedrooms: 1,
          Bathrooms: 1,
          ParkingSpots: 0,
          RentPrice: 1_800,
          SalePrice: 900_000,
        }),
        rentFlat: await add({
          SaleType: "for_rent",
          City: "Dallas",
          PropertyType: "Apartment 100%_off",
          Bedrooms: 3,
          Bathrooms: 2,
          ParkingSpots: 0,
          RentPrice: 3_200,
          MLSNumber: "MLS-FLAT",
        }),
      };
      await store().listings.create((await newChatbot(store())).id, minimalListing({ City: "Austin" }));
      const search = async (criteria: Partial<ListingCriteria>) => {
        const found = await store().listings.search(chatbot.id, { limit: 50, ...criteria });
        return found.map((listing) => nameOf(listings, listing));
      };
      return { chatbot, listings, search };
    }

    it("offers Active and PreOnMarket listings by default, newest first", async () => {
      const { search } = await catalogue();
      expect(await search({})).toEqual(["rentFlat", "rentCondo", "unpriced", "saleHouse", "saleCondo"]);
    });

    it("searches the statuses named instead, when some are", async () => {
      const { search } = await catalogue();
      expect(await search({ statuses: ["Sold"] })).toEqual(["soldCondo"]);
      expect(await search({ city: "austin", statuses: ["Sold", "PreOnMarket"] })).toEqual(["soldCondo", "saleHouse"]);
    });

    it("narrows by city (case-insensitive), sale type and MLS number", async () => {
      const { search } = await catalogue();
      expect(await search({ city: "AUSTIN" })).toEqual(["rentCondo", "saleHouse", "saleCondo"]);
      expect(await search({ saleType: "for_rent" })).toEqual(["rentFlat", "rentCondo"]);
      expect(await search({ city: "dallas", saleType: "for_sale" })).toEqual(["unpriced"]);
      expect(await search({ mlsNumber: "MLS-FLAT" })).toEqual(["rentFlat"]);
    });

    it("matches the property type as a case-insensitive substring, wildcards taken literally", async () => {
      const { search } = await catalogue();
      expect(await search({ propertyType: "condo" })).toEqual(["rentCondo", "saleCondo"]);
      expect(await search({ propertyType: "CONDO", statuses: ["Active", "Sold"] })).toEqual([
        "rentCondo",
        "soldCondo",
        "saleCondo",
      ]);
      expect(await search({ propertyType: "single fam" })).toEqual(["saleHouse"]);
      expect(await search({ propertyType: "%" })).toEqual(["rentFlat"]);
      expect(await search({ propertyType: "t_" })).toEqual([]);
      expect(await search({ propertyType: "%_" })).toEqual(["rentFlat"]);
    });

    it("narrows by bedrooms, bathrooms and parking spots", async () => {
      const { search } = await catalogue();
      expect(await search({ minBedrooms: 3 })).toEqual(["rentFlat", "unpriced", "saleHouse"]);
      expect(await search({ maxBedrooms: 2 })).toEqual(["rentCondo", "saleCondo"]);
      expect(await search({ minBedrooms: 2, maxBedrooms: 3 })).toEqual(["rentFlat", "unpriced", "saleCondo"]);
      expect(await search({ minBathrooms: 2.5 })).toEqual(["unpriced", "saleHouse"]);
      expect(await search({ minParkingSpots: 1 })).toEqual(["saleHouse", "saleCondo"]);
    });

    it("compares prices with the sale price for sale and the rent for rent", async () => {
      const { search } = await catalogue();
      expect(await search({ maxPrice: 2_000 })).toEqual(["rentCondo"]);
      expect(await search({ minPrice: 500_000 })).toEqual(["saleHouse"]);
      expect(await search({ minPrice: 1_800, maxPrice: 400_000 })).toEqual(["rentFlat", "rentCondo", "saleCondo"]);
    });

    it("sorts by price either way with unpriced listings last, and by newest", async () => {
      const { search } = await catalogue();
      expect(await search({ sort: "price_asc" })).toEqual([
        "rentCondo",
        "rentFlat",
        "saleCondo",
        "saleHouse",
        "unpriced",
      ]);
      expect(await search({ sort: "price_desc" })).toEqual([
        "saleHouse",
        "saleCondo",
        "rentFlat",
        "rentCondo",
        "unpriced",
      ]);
      expect(await search({ sort: "newest" })).toEqual(["rentFlat", "rentCondo", "unpriced", "saleHouse", "saleCondo"]);
    });

    it("returns at most `limit` listings, after sorting", async () => {
      const { search } = await catalogue();
      expect(await search({ limit: 2 })).toEqual(["rentFlat", "rentCondo"]);
      expect(await search({ sort: "price_desc", limit: 2 })).toEqual(["saleHouse", "saleCondo"]);
    });

    it("returns whole listings", async () => {
      const { chatbot, listings } = await catalogue();
      expect(await store().listings.search(chatbot.id, { mlsNumber: "MLS-FLAT", limit: 1 })).toStrictEqual([
        listings.rentFlat,
      ]);
    });
  });
}

/** The catalogue name of a found listing, so failures read as names rather than ids. */
function nameOf(listings: Record<string, Listing>, found: Listing): string {
  return Object.entries(listings).find(([, listing]) => listing.ID === found.ID)?.[0] ?? `unknown listing ${found.ID}`;
}
