import { describe, expect, it } from "vitest";
import { describeCriteria, matches } from "../../../src/features/alerts/search-criteria.js";
import { listingItem } from "../../upstream/scripted-chatbot.js";

describe("saved search criteria", () => {
  const house = listingItem("TX-1"); // 3 beds, for sale, Austin, $450,000

  it("matches every listing when open, and each criterion on its own", () => {
    expect(matches({}, house)).toBe(true);
    expect(matches({ city: "  austin " }, house)).toBe(true);
    expect(matches({ city: "Dallas" }, house)).toBe(false);
    expect(matches({ saleType: "for_sale" }, house)).toBe(true);
    expect(matches({ saleType: "for_rent" }, house)).toBe(false);
    expect(matches({ saleType: "for_rent" }, listingItem("TX-2", { SaleType: "For Rent" }))).toBe(true);
    expect(matches({ minBeds: 3 }, house)).toBe(true);
    expect(matches({ minBeds: 4 }, house)).toBe(false);
    expect(matches({ maxPrice: 450_000 }, house)).toBe(true);
    expect(matches({ maxPrice: 449_999 }, house)).toBe(false);
    expect(matches({ city: "Austin", saleType: "for_sale", minBeds: 3, maxPrice: 600_000 }, house)).toBe(true);
  });

  it("does not match a listing that leaves the criterion's field unset, or is priced on request", () => {
    expect(matches({ minBeds: 1 }, listingItem("TX-3", { Bedrooms: "" }))).toBe(false);
    expect(matches({ maxPrice: 600_000 }, listingItem("TX-4", { Price: "0" }))).toBe(false);
    expect(matches({}, listingItem("TX-4", { Price: "0" }))).toBe(true);
  });

  it("says the search in words", () => {
    expect(describeCriteria({ city: "Austin", saleType: "for_sale", minBeds: 3, maxPrice: 600_000 })).toBe(
      "3+ bedrooms for sale in Austin up to $600,000",
    );
    expect(describeCriteria({})).toBe("homes");
    expect(describeCriteria({ saleType: "for_rent", city: "Dallas" })).toBe("homes for rent in Dallas");
  });

  it("matches the property type as the embedded engine does: houses take townhouses, not condos", () => {
    expect(matches({ propertyType: "house" }, house)).toBe(true);
    expect(matches({ propertyType: "house" }, listingItem("TX-5", { PropertyType: "Townhome" }))).toBe(true);
    expect(matches({ propertyType: "house" }, listingItem("TX-6", { PropertyType: "Apartment" }))).toBe(false);
    expect(matches({ propertyType: "apartment" }, listingItem("TX-7", { PropertyType: "Condo" }))).toBe(true);
    expect(matches({ propertyType: "condo" }, listingItem("TX-8", { PropertyType: "Apartment" }))).toBe(false);
    expect(matches({ propertyType: "house" }, listingItem("TX-9", { PropertyType: "" }))).toBe(false);
  });

  it("describes the property type, in English and in Spanish", () => {
    const search = {
      propertyType: "house",
      city: "Austin",
      saleType: "for_sale",
      minBeds: 3,
      maxPrice: 600_000,
    } as const;
    expect(describeCriteria(search)).toBe("3+ bedroom houses for sale in Austin up to $600,000");
    expect(describeCriteria(search, "es")).toBe("casas de 3+ habitaciones en venta en Austin hasta $600,000");
    expect(describeCriteria({ propertyType: "condo", saleType: "for_rent" })).toBe("condos for rent");
    expect(describeCriteria({ minBeds: 2 }, "es")).toBe("viviendas de 2+ habitaciones");
  });
});
