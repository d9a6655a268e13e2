import { describe, expect, it } from "vitest";
import type { ListingCatalog } from "../../../src/server/engine/embedded/catalog.js";
import { listingContext } from "../../../src/server/engine/listing-context.js";
import { LISTINGS } from "./listings-fixture.js";

const catalog = {
  cities: ["Austin"],
  propertyTypes: ["Condo"],
  mlsNumbers: [],
  currencySymbol: "$",
  size: 3,
} as unknown as ListingCatalog;

/** The JSON lines of the listings in a context. */
const lines = (context: string) =>
  context
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as Record<string, unknown>);

describe("listingContext", () => {
  it("tells the model that a listing without the price of its sale type has its price on request", () => {
    const [sale, rent] = [LISTINGS[0], LISTINGS[4]];
    if (!sale || !rent) throw new Error("the fixture has changed");
    expect([sale.SaleType, rent.SaleType]).toEqual(["for_sale", "for_rent"]);
    const priceless = [
      { ...sale, SalePrice: undefined },
      { ...rent, RentPrice: undefined, SalePrice: 250_000 },
      { ...sale, SalePrice: 0 },
    ];
    const context = listingContext(catalog, {
      kind: "matches",
      filters: {},
      listings: [sale, rent, ...priceless],
      capped: false,
      nearMisses: [],
    });
    expect(lines(context).map((line) => line.Price)).toEqual([
      undefined,
      undefined,
      "on request",
      "on request",
      "on request",
    ]);
    expect(lines(context)[0]).toMatchObject({ SalePrice: sale.SalePrice });
  });
});

describe("listingContext: near misses and sold listings", () => {
  const [first, second] = LISTINGS;
  if (!first || !second) throw new Error("the fixture has changed");

  it("gives the model the near misses with what each relaxes", () => {
    const context = listingContext(catalog, {
      kind: "matches",
      filters: { maxPrice: 400_000 },
      listings: [],
      capped: false,
      nearMisses: [{ relaxed: { constraint: "price", percent: 7, over: true }, listings: [first] }],
    });
    expect(context).toContain("No listing matches what the user is looking for.");
    expect(context).toContain("Near misses that relax the price (the first is 7% over the budget)");
    expect(lines(context).map((line) => line.MLSNumber)).toEqual([first.MLSNumber]);
  });

  it("tells the model a listing is sold and what similar ones are on offer", () => {
    const context = listingContext(catalog, {
      kind: "listing",
      mlsNumber: first.MLSNumber,
      listing: { ...first, Status: "Sold" },
      similar: [second],
    });
    expect(context).toContain("It is sold, so no longer available. Similar active listings to offer instead:");
    expect(lines(context).map((line) => line.MLSNumber)).toEqual([first.MLSNumber, second.MLSNumber]);
  });
});
