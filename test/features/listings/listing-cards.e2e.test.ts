/**
 * The listing card lookup against the self-hosted chatbot API over HTTP (the project's client, as the bridge uses
 * it), with every RealEstateList call counted.
 */

import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import type { ListingQuery } from "../../../src/api/types.js";
import { ChatbotClient } from "../../../src/client/index.js";
import { createLogger } from "../../../src/common/log.js";
import { ListingCards } from "../../../src/features/listings/listing-cards.js";
import { listingReferences } from "../../../src/features/listings/listing-references.js";
import { sampleListing, type Tenant, useApiHarness } from "../../support/api-harness.js";
import { freePort } from "../../support/waiting.js";

const api = useApiHarness("sqlite");
const silent = createLogger("silent");

/** A client of the harness whose RealEstateList calls are counted. */
function countingClient(tenant: Tenant) {
  const client = api.client(tenant);
  const calls: ListingQuery[] = [];
  return {
    calls,
    listListings: (query: ListingQuery) => {
      calls.push(query);
      return client.listListings(query);
    },
  };
}

/** A chatbot of its own with three listings: one coming soon, one for rent at an address without its number, one sold. */
async function chatbotWithListings(): Promise<string> {
  const serial = await api.addChatbot(api.a);
  const client = api.client(api.a);
  await client.createListing(
    sampleListing(serial, {
      MLSNumber: "TX-1001",
      Url: "https://homes.test/listing/tx-1001",
      Status: "PreOnMarket",
      SalePrice: 450_000,
      Bedrooms: 3,
      Bathrooms: 2,
      BuildingArea: 1850,
      Address: "12 Oak St",
      City: "Austin",
      State: "TX",
      ZIP: "78701",
      Images: ["https://img.test/tx-1001-1.jpg", "https://img.test/tx-1001-2.jpg"],
    }),
  );
  await client.createListing(
    sampleListing(serial, {
      MLSNumber: "RB-7",
      Url: "https://homes.test/rentals/sunny-loft",
      SaleType: "for_rent",
      PropertyType: "Apartment",
      RentPrice: 2300,
      Bedrooms: 0,
      Bathrooms: 1,
      BuildingArea: 0,
      City: "Denver",
    }),
  );
  await client.createListing(
    sampleListing(serial, { MLSNumber: "SD-9", Url: "https://homes.test/sd", Status: "Sold" }),
  );
  return serial;
}

describe("ListingCards", () => {
  it("makes cards of the listings an answer names by MLS number or address, in order, each once, none for the unknown", async () => {
    const serial = await chatbotWithListings();
    const cards = new ListingCards(countingClient(api.a), serial, silent);
    const answer =
      "MLS# 404404 is gone. Try MLS# TX-1001 (https://homes.test/listing/tx-1001), the loft at " +
      "https://homes.test/rentals/sunny-loft/, https://homes.test/unknown or MLS sd-9.";
    const shown = await cards.cardsFor(listingReferences(answer), 3);
    expect(shown).toEqual([
      {
        mlsNumber: "TX-1001",
        url: "https://homes.test/listing/tx-1001",
        image: "https://img.test/tx-1001-1.jpg",
        price: "$450,000",
        saleType: "for_sale",
        status: "Coming soon",
        beds: 3,
        baths: 2,
        area: "1,850 sq ft",
        address: "12 Oak St, Austin, TX 78701",
        propertyType: "Single Family Residential",
      },
      {
        mlsNumber: "RB-7",
        url: "https://homes.test/rentals/sunny-loft",
        image: undefined,
        price: "$2,300 / month",
        saleType: "for_rent",
        status: undefined,
        beds: 0,
        baths: 1,
        area: undefined,
        address: "Denver",
        propertyType: "Apartment",
      },
      expect.objectContaining({ mlsNumber: "SD-9", status: "Sold", price: "Price on request" }),
    ]);
    // At most `max`, the first named first.
    expect((await cards.cardsFor(listingReferences(answer), 1)).map((card) => card.mlsNumber)).toEqual(["TX-1001"]);
    expect(await cards.cardsFor(listingReferences(answer), 0)).toEqual([]);
  });

  it("finds an address ending in its MLS number without the index, and other addresses through one shared index build", async () => {
    const serial = await chatbotWithListings();
    const client = countingClient(api.a);
    const cards = new ListingCards(client, serial, silent);
    const found = await cards.cardsFor(listingReferences("https://homes.test/listing/tx-1001"), 3);
    expect(found.map((card) => card.mlsNumber)).toEqual(["TX-1001"]);
    // One query, by the number upper-cased: MLS numbers mostly are, addresses mostly are not.
    expect(client.calls).toEqual([{ SerialNumber: serial, MLSNumber: "TX-1001" }]);
    const [one, two] = await Promise.all([
      cards.cardsFor(listingReferences("https://homes.test/rentals/sunny-loft"), 3),
      cards.cardsFor(listingReferences("https://homes.test/sd"), 3),
    ]);
    expect([one?.[0]?.mlsNumber, two?.[0]?.mlsNumber]).toEqual(["RB-7", "SD-9"]);
    expect(client.calls.filter((call) => call.PageSize === 100)).toEqual([
      { SerialNumber: serial, PageNumber: 1, PageSize: 100 },
    ]);
  });

  it("remembers what it found and what it did not for a while, then asks again", async () => {
    const serial = await chatbotWithListings();
    const client = countingClient(api.a);
    let now = 1_000_000;
    const cards = new ListingCards(client, serial, silent, { now: () => now });
    const references = listingReferences("MLS# TX-1001, MLS# 404404, https://homes.test/nowhere");
    expect((await cards.cardsFor(references, 3)).map((card) => card.mlsNumber)).toEqual(["TX-1001"]);
    const asked = client.calls.length;
    expect(asked).toBeGreaterThan(0);
    now += 59_000;
    expect((await cards.cardsFor(references, 3)).map((card) => card.mlsNumber)).toEqual(["TX-1001"]);
    expect(client.calls.length).toBe(asked);
    now += 2_000;
    await cards.cardsFor(references, 3);
    expect(client.calls.length).toBe(2 * asked);
  });

  it("reads the address index page by page, up to its cap", async () => {
    const serial = await api.addChatbot(api.a);
    const created = api.client(api.a);
    const oldest = sampleListing(serial, { Url: "https://homes.test/first-of-all" });
    await created.createListing(oldest);
    for (let i = 0; i < 104; i++) await created.createListing(sampleListing(serial));
    const client = countingClient(api.a);
    const references = listingReferences(oldest.Url);
    const found = await new ListingCards(client, serial, silent).cardsFor(references, 3);
    expect(found.map((card) => card.mlsNumber)).toEqual([oldest.MLSNumber]);
    expect(client.calls.filter((call) => call.PageSize === 100).map((call) => call.PageNumber)).toEqual([1, 2]);
    // The oldest listing lies beyond a cap of 100: not found, and the index reads no second page.
    const capped = countingClient(api.a);
    expect(await new ListingCards(capped, serial, silent, { indexCap: 100 }).cardsFor(references, 3)).toEqual([]);
    expect(capped.calls.filter((call) => call.PageSize === 100).map((call) => call.PageNumber)).toEqual([1]);
  }, 30_000);

  it("names the cities of the listings from the same index build", async () => {
    const serial = await chatbotWithListings();
    const client = countingClient(api.a);
    const cards = new ListingCards(client, serial, silent);
    expect((await cards.cities()).sort()).toEqual(["Austin", "Denver"]);
    await cards.cardsFor(listingReferences("https://homes.test/rentals/sunny-loft"), 3);
    expect(client.calls.filter((call) => call.PageSize === 100)).toHaveLength(1);
  });

  it("gives no cards when the API cannot be reached, with one warning that names no key", async () => {
    const lines: string[] = [];
    const log = createLogger("debug", {
      destination: new Writable({
        write(chunk, _encoding, done) {
          lines.push(String(chunk));
          done();
        },
      }),
    });
    const unreachable = new ChatbotClient({
      baseUrl: `http://127.0.0.1:${await freePort()}`,
      apiKey: "sk-secret-api-key",
      sessionKey: "secret-session-key",
      timeoutMs: 2_000,
      retry: { attempts: 1, baseDelayMs: 0, maxDelayMs: 0 },
    });
    try {
      const cards = new ListingCards(unreachable, "homes-chatbot", log);
      const references = listingReferences("MLS# TX-1001 at https://homes.test/rentals/sunny-loft");
      await expect(cards.cardsFor(references, 3)).resolves.toEqual([]);
      await expect(cards.cardsFor(references, 3)).resolves.toEqual([]);
      await expect(cards.cities()).resolves.toEqual([]);
      // One warning, then debug lines: an API that is down does not fill the log.
      const logged = lines.map((line) => JSON.parse(line) as { level: number; msg: string });
      expect(logged.map((line) => line.level)).toEqual([40, 20, 20]);
      expect(logged[0]?.msg).toContain("listing cards");
      expect(lines.join("")).not.toMatch(/secret/);
    } finally {
      await unreachable.close();
    }
  });
});
