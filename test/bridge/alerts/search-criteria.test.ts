import { describe, expect, it } from "vitest";
import { describeCriteria, matches } from "../../../src/bridge/alerts/search-criteria.js";
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
});
