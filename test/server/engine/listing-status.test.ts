import { describe, expect, it } from "vitest";
import type { Listing } from "../../../src/server/domain.js";
import { ask } from "./engine-run.js";
import { DEMO_LISTINGS, LISTINGS } from "./listings-fixture.js";

const SPANISH = { AIResponseLanguage: "Spanish" };
const SOLD_DEMO = DEMO_LISTINGS.filter((listing) => listing.Status === "Sold");

describe("sold listings", () => {
  it("are never offered in a list", async () => {
    expect(SOLD_DEMO.length).toBeGreaterThan(0);
    for (const question of ["homes", "homes for sale in Seattle", "rentals in Denver", "cheapest homes"]) {
      const answer = await ask(question, { listings: DEMO_LISTINGS });
      for (const sold of SOLD_DEMO) expect(answer.text).not.toContain(sold.Url);
    }
    // The fixture's sold MLS100006 would be the only 3-bedroom home for sale in Austin under $400k.
    const answer = await ask("3 bedroom homes for sale in Austin under $400k");
    expect(answer.text).not.toContain("mls100006");
    expect(answer.text).toContain("the closest is $450,000 — 13% over your budget");
  });

  it("asked by MLS number, says it is sold and offers similar active ones", async () => {
    const answer = await ask("is MLS100006 still available?");
    expect(answer.searches.at(-1)).toEqual({
      city: "Austin",
      saleType: "for_sale",
      minBedrooms: 2,
      maxBedrooms: 4,
      minPrice: 316_000,
      maxPrice: 474_000,
      statuses: ["Active"],
      limit: 500,
    });
    const [soldDetails, similar] = answer.text.split("\n\nSimilar homes still available in Austin:\n\n");
    expect(soldDetails).toMatch(/^MLS100006 has been sold, so it's no longer available\.\n\n/);
    expect(soldDetails).toContain("Single Family for sale in Austin (MLS100006)");
    expect(soldDetails).toContain("Status: sold");
    // Of the Austin homes for sale, the condo at $310,000 is too cheap and the townhouse is only coming soon.
    expect(similar).toBe(
      "1. Single Family for sale · $450,000 · 3 beds · 2 baths · 2,100 sq ft\n" +
        "   101 Oak St, Austin, TX 70001\n" +
        "   https://homes.example.com/listing/mls100001",
    );
    expect(answer.done?.noAnswer).toBe(false);
  });

  it("says so in Spanish", async () => {
    const answer = await ask("MLS100006", { settings: SPANISH });
    expect(answer.text).toMatch(/^La propiedad MLS100006 ya se vendió, así que no está disponible\.\n\n/);
    expect(answer.text).toContain("Estado: vendida");
    expect(answer.text).toContain(
      "Propiedades parecidas disponibles en Austin:\n\n1. Single Family en venta · $450,000",
    );
  });

  it("says when nothing similar is on offer", async () => {
    const sold = { ...(LISTINGS[14] as Listing), Status: "Sold" as const, SalePrice: 900_000 };
    const listings = [...LISTINGS.slice(0, 14), sold];
    const answer = await ask(`tell me about ${sold.MLSNumber}`, { listings });
    expect(answer.text).toMatch(/\n\nI have no similar homes available in San Antonio right now\.$/);
    const spanish = await ask(`MLS ${sold.MLSNumber}`, { listings, settings: SPANISH });
    expect(spanish.text).toMatch(/\n\nAhora mismo no tengo propiedades parecidas disponibles en San Antonio\.$/);
  });
});

describe("coming-soon listings", () => {
  it('are labelled "coming soon" in lists and details', async () => {
    expect((await ask("townhouses for sale in Austin")).text).toContain(
      "1. Townhouse for sale · coming soon · $480,000 · 3 beds",
    );
    expect((await ask("MLS100004")).text).toContain("Status: coming soon");
  });

  it('are labelled "próximamente" in Spanish', async () => {
    expect((await ask("casas adosadas en venta en Austin", { settings: SPANISH })).text).toContain(
      "1. Townhouse en venta · próximamente · $480,000 · 3 hab.",
    );
    expect((await ask("MLS100004", { settings: SPANISH })).text).toContain("Estado: próximamente");
  });

  it("leave active listings unlabelled", async () => {
    const answer = await ask("homes for sale in Denver");
    expect(answer.text).not.toMatch(/coming soon|sold/i);
  });
});

describe("listings without a price", () => {
  const priceless = [
    { ...(LISTINGS[0] as Listing), SalePrice: undefined },
    { ...(LISTINGS[4] as Listing), RentPrice: 0 },
  ];

  it('say "price on request"', async () => {
    const answer = await ask("homes in Austin", { listings: priceless });
    expect(answer.text).toContain("Apartment for rent · price on request · 2 beds");
    expect(answer.text).toContain("Single Family for sale · price on request · 3 beds");
    expect((await ask("MLS100001", { listings: priceless })).text).toContain("Price: on request");
    expect((await ask("MLS100005", { listings: priceless })).text).toContain("Rent: on request");
  });

  it('say "precio a consultar" in Spanish', async () => {
    const answer = await ask("viviendas en Austin", { listings: priceless, settings: SPANISH });
    expect(answer.text).toContain("Single Family en venta · precio a consultar · 3 hab.");
    expect((await ask("MLS100001", { listings: priceless, settings: SPANISH })).text).toContain("Precio: a consultar");
  });

  it("are no near miss of a budget", async () => {
    const answer = await ask("3 bedroom homes for sale in Austin under 400k", { listings: priceless });
    expect(answer.text).not.toContain("price on request");
  });
});
