import { describe, expect, it } from "vitest";
import type { ListingFields } from "../../../src/server/domain.js";
import { fullListing, minimalListing, newChatbot, type PinnableClock, type StoreGetter } from "./fixtures.js";

/** Listings: round trips, lookups by key, updates, removal, and RealEstateList. */
export function listingsContract(store: StoreGetter, clock: PinnableClock): void {
  describe("listings", () => {
    it("round-trips every field exactly", async () => {
      const chatbot = await newChatbot(store());
      const fields = fullListing();

      const listing = await store().listings.create(chatbot.id, fields);

      expect(listing).toStrictEqual({
        ID: expect.any(Number),
        chatbotId: chatbot.id,
        ...fields,
        createdAt: expect.any(Date),
        updatedAt: listing.createdAt,
      });
      expect(await store().listings.findByKeys(chatbot.id, "NewOaks", [String(listing.ID)])).toStrictEqual([listing]);
    });

    it("leaves unset optional fields out, and keeps empty arrays", async () => {
      const chatbot = await newChatbot(store());
      const bare = await store().listings.create(chatbot.id, minimalListing());
      const empty = await store().listings.create(chatbot.id, minimalListing({ Images: [], ExtensionColumn: [] }));

      const [found] = await store().listings.findByKeys(chatbot.id, "NewOaks", [String(bare.ID)]);
      expect(Object.keys(found ?? {}).sort()).toEqual(
        [...Object.keys(minimalListing()), "ID", "chatbotId", "createdAt", "updatedAt"].sort(),
      );
      expect(found).toStrictEqual(bare);
      expect(empty).toMatchObject({ Images: [], ExtensionColumn: [] });
    });

    it("finds listings by NewOaks id, MLS number and URL, within the chatbot only", async () => {
      const chatbot = await newChatbot(store());
      const other = await newChatbot(store());
      const a = await store().listings.create(chatbot.id, minimalListing());
      const b = await store().listings.create(chatbot.id, minimalListing());
      const foreign = await store().listings.create(other.id, minimalListing({ MLSNumber: a.MLSNumber, Url: a.Url }));

      expect(await store().listings.findByKeys(chatbot.id, "NewOaks", [String(b.ID), String(a.ID)])).toEqual([a, b]);
      expect(await store().listings.findByKeys(chatbot.id, "NewOaks", [String(foreign.ID)])).toEqual([]);
      expect(await store().listings.findByKeys(chatbot.id, "MLSNumber", [a.MLSNumber])).toEqual([a]);
      expect(await store().listings.findByKeys(chatbot.id, "URL", [b.Url, "https://nowhere.example"])).toEqual([b]);
      expect(await store().listings.findByKeys(other.id, "URL", [a.Url])).toEqual([foreign]);
      expect(await store().listings.findByKeys(chatbot.id, "MLSNumber", [])).toEqual([]);
    });

    it("matches nothing with a NewOaks key that is not an id", async () => {
      const chatbot = await newChatbot(store());
      const listing = await store().listings.create(chatbot.id, minimalListing());
      const id = String(listing.ID);

      for (const key of [
        "",
        "abc",
        `${id}.0`,
        `${id}.5`,
        ` ${id}`,
        `0${id}`,
        `-${id}`,
        "1e3",
        "99999999999999999999",
      ]) {
        expect(await store().listings.findByKeys(chatbot.id, "NewOaks", [key]), key).toEqual([]);
      }
      // MLS numbers and URLs are not ids.
      expect(await store().listings.findByKeys(chatbot.id, "NewOaks", [listing.MLSNumber])).toEqual([]);
    });

    it("finds more keys than fit one query", async () => {
      const chatbot = await newChatbot(store());
      const listing = await store().listings.create(chatbot.id, minimalListing());
      const keys = Array.from({ length: 1_200 }, (_, index) => `MLS-missing-${index}`);
      keys.splice(700, 0, listing.MLSNumber);

      expect(await store().listings.findByKeys(chatbot.id, "MLSNumber", keys)).toEqual([listing]);
    });

    it("updates every field, clearing the optional ones left out, and stamps updatedAt", async () => {
      const chatbot = await newChatbot(store());
      clock.set("2024-05-01T10:00:00Z");
      const listing = await store().listings.create(chatbot.id, fullListing());
      clock.set("2024-05-02T10:00:00Z");
      const fields: ListingFields = minimalListing({
        SaleType: "for_sale",
        Status: "Sold",
        Bathrooms: 3.5,
        City: "Lisboa",
      });

      const updated = await store().listings.update(listing.ID, fields);

      expect(updated).toStrictEqual({
        ID: listing.ID,
        chatbotId: chatbot.id,
        ...fields,
        createdAt: new Date("2024-05-01T10:00:00Z"),
        updatedAt: new Date("2024-05-02T10:00:00Z"),
      });
      expect(await store().listings.findByKeys(chatbot.id, "NewOaks", [String(listing.ID)])).toStrictEqual([updated]);
      expect((await store().listings.list(chatbot.id, { cityName: "lisboa", pageNumber: 1, pageSize: 5 })).total).toBe(
        1,
      );
      expect(
        (await store().listings.list(chatbot.id, { cityName: "são paulo", pageNumber: 1, pageSize: 5 })).total,
      ).toBe(0);
    });

    it("rejects an update of a listing that does not exist", async () => {
      await expect(store().listings.update(987_654_321, minimalListing())).rejects.toThrow(/987654321/);
    });

    it("removes listings by id and says how many went", async () => {
      const chatbot = await newChatbot(store());
      const [a, b, c] = [
        await store().listings.create(chatbot.id, minimalListing()),
        await store().listings.create(chatbot.id, minimalListing()),
        await store().listings.create(chatbot.id, minimalListing()),
      ];

      expect(await store().listings.remove([a.ID, c.ID, 987_654_321])).toBe(2);
      expect(await store().listings.remove([a.ID])).toBe(0);
      expect(await store().listings.remove([])).toBe(0);
      expect(await store().listings.count(chatbot.id)).toBe(1);
      expect(await store().listings.findByKeys(chatbot.id, "NewOaks", [String(b.ID)])).toEqual([b]);
    });

    it("counts a chatbot's listings", async () => {
      const chatbot = await newChatbot(store());
      expect(await store().listings.count(chatbot.id)).toBe(0);
      await store().listings.create(chatbot.id, minimalListing());
      await store().listings.create(chatbot.id, minimalListing());
      await store().listings.create((await newChatbot(store())).id, minimalListing());
      expect(await store().listings.count(chatbot.id)).toBe(2);
    });
  });

  describe("RealEstateList", () => {
    /** Listings of one chatbot in three cities, both sale types; returned in creation order. */
    async function catalogue() {
      const chatbot = await newChatbot(store());
      const add = (fields: Partial<ListingFields>) => store().listings.create(chatbot.id, minimalListing(fields));
      const listings = [
        await add({ City: "Austin", SaleType: "for_sale" }),
        await add({ City: "austin", SaleType: "for_rent" }),
        await add({ City: "São Paulo", SaleType: "for_sale" }),
        await add({ City: "AUSTIN", SaleType: "for_sale", MLSNumber: "MLS-42" }),
        await add({ City: "Austin Heights", SaleType: "for_sale" }),
        await add({ SaleType: "for_rent" }),
        await add({ City: "Austin", SaleType: "for_sale" }),
      ];
      const other = await newChatbot(store());
      await store().listings.create(other.id, minimalListing({ City: "Austin" }));
      return { chatbot, listings };
    }
    const ids = (page: { items: { ID: number }[] }) => page.items.map((listing) => listing.ID);

    it("gives all of a chatbot's listings newest first without filters", async () => {
      const { chatbot, listings } = await catalogue();
      const page = await store().listings.list(chatbot.id, { pageNumber: 1, pageSize: 20 });

      expect(page.total).toBe(7);
      expect(page.items).toEqual([...listings].reverse());
    });

    it("filters by city case-insensitively and exactly", async () => {
      const { chatbot, listings } = await catalogue();
      const austin = [listings[6], listings[3], listings[1], listings[0]].map((listing) => listing?.ID);
      const list = (cityName: string) => store().listings.list(chatbot.id, { cityName, pageNumber: 1, pageSize: 20 });

      for (const cityName of ["austin", "AUSTIN", "Austin", "aUsTiN"]) {
        const page = await list(cityName);
        expect(ids(page), cityName).toEqual(austin);
        expect(page.total).toBe(4);
      }
      expect(ids(await list("SÃO PAULO"))).toEqual([listings[2]?.ID]);
      expect((await list("Aust")).total).toBe(0);
      expect((await list("Austin%")).total).toBe(0);
    });

    it("filters by sale type and MLS number, alone and with the city", async () => {
      const { chatbot, listings } = await catalogue();
      const list = (filter: { cityName?: string; saleType?: "for_sale" | "for_rent"; mlsNumber?: string }) =>
        store().listings.list(chatbot.id, { ...filter, pageNumber: 1, pageSize: 20 });

      expect(ids(await list({ saleType: "for_rent" }))).toEqual([listings[5]?.ID, listings[1]?.ID]);
      expect(ids(await list({ cityName: "austin", saleType: "for_sale" }))).toEqual(
        [listings[6], listings[3], listings[0]].map((listing) => listing?.ID),
      );
      expect(ids(await list({ mlsNumber: "MLS-42" }))).toEqual([listings[3]?.ID]);
      expect(ids(await list({ mlsNumber: "mls-42" }))).toEqual([]);
      expect(ids(await list({ cityName: "austin", saleType: "for_rent", mlsNumber: "MLS-42" }))).toEqual([]);
    });

    it("pages through the matches and counts them all", async () => {
      const { chatbot, listings } = await catalogue();
      const page = (pageNumber: number) =>
        store().listings.list(chatbot.id, { cityName: "austin", pageNumber, pageSize: 3 });
      const newest = [listings[6], listings[3], listings[1], listings[0]].map((listing) => listing?.ID);

      expect(await page(1).then(ids)).toEqual(newest.slice(0, 3));
      expect(await page(2)).toEqual({ items: [expect.objectContaining({ ID: newest[3] })], total: 4 });
      expect(await page(3)).toEqual({ items: [], total: 4 });
      // A page number below 1 is the first page.
      expect(await page(0).then(ids)).toEqual(newest.slice(0, 3));
    });
  });
}
