import { describe, expect, it } from "vitest";
import { diffListings } from "../../../src/features/alerts/listing-diff.js";
import { listingItem } from "../../upstream/scripted-chatbot.js";

const kinds = (diff: ReturnType<typeof diffListings>) => diff.events.map((event) => `${event.kind}:${event.mlsNumber}`);

describe("listing diff", () => {
  it("finds nothing at the first poll, only a snapshot", () => {
    const diff = diffListings(undefined, [listingItem("TX-1"), listingItem("tx-2", { Status: "PreOnMarket" })]);
    expect(diff.events).toEqual([]);
    expect(diff.snapshot).toEqual({
      "TX-1": { price: 450_000, status: "active" },
      "TX-2": { price: 450_000, status: "preonmarket" },
    });
  });

  it("tells new listings, price drops and PreOnMarket → Active, and nothing else", () => {
    const { snapshot } = diffListings(undefined, [
      listingItem("TX-1"),
      listingItem("TX-2", { Status: "PreOnMarket" }),
      listingItem("TX-3"),
      listingItem("TX-4"),
      listingItem("TX-5", { Status: "PreOnMarket" }),
    ]);
    const diff = diffListings(snapshot, [
      listingItem("TX-1"),
      listingItem("TX-2", { Status: "Active" }),
      listingItem("TX-3", { Price: "430000" }),
      listingItem("TX-4", { Price: "470000" }),
      listingItem("TX-5", { Status: "Sold" }),
      listingItem("TX-6"),
    ]);
    expect(kinds(diff)).toEqual(["now-active:TX-2", "price-drop:TX-3", "new:TX-6"]);
    expect(diff.events[1]?.item.Price).toBe("430000");
  });

  it("forgets a listing gone from a poll, and reads a price set later as no drop", () => {
    const first = diffListings(undefined, [listingItem("TX-1"), listingItem("TX-2", { Price: "" })]);
    const second = diffListings(first.snapshot, [listingItem("TX-2", { Price: "400000" })]);
    expect(second.events).toEqual([]);
    expect(Object.keys(second.snapshot)).toEqual(["TX-2"]);
    expect(kinds(diffListings(second.snapshot, [listingItem("TX-1"), listingItem("TX-2")]))).toEqual(["new:TX-1"]);
  });

  it("counts a listing listed twice once, and skips one without an MLS number", () => {
    const { snapshot } = diffListings(undefined, []);
    const diff = diffListings(snapshot, [listingItem("TX-1"), listingItem("tx-1"), listingItem("")]);
    expect(kinds(diff)).toEqual(["new:TX-1"]);
  });
});
