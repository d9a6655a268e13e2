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
