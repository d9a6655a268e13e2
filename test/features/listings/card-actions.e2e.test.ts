import { describe, expect, it } from "vitest";
import {
  cardActionId,
  cardActionText,
  readCardActionId,
  similarHomesQuestion,
} from "../../../src/features/listings/card-actions.js";
import { cardFromListing } from "../../../src/features/listings/card-from-listing.js";
import { cardFacts, cardKind, cutText } from "../../../src/features/listings/card-text.js";
import { listingItem } from "../../upstream/scripted-chatbot.js";

describe("card actions", () => {
  it("carries the action and listing in an id, and reads only ids of known actions back", () => {
    expect(cardActionId("similar", "TX-1001")).toBe("card:similar:TX-1001");
    expect(readCardActionId("card:similar:TX-1001")).toEqual({ action: "similar", mlsNumber: "TX-1001" });
    // An MLS number with a colon stays whole.
    expect(readCardActionId("card:similar:A:1")).toEqual({ action: "similar", mlsNumber: "A:1" });
    expect(readCardActionId("card:viewing:TX-1")).toEqual({ action: "viewing", mlsNumber: "TX-1" });
    for (const other of ["ask:Rentals", "card:tour:TX-1", "card:similar:", "card:similar", "similar:TX-1"]) {
      expect(readCardActionId(other)).toBeUndefined();
    }
  });

  it("leaves out an id longer than the platform takes (Telegram: 64 bytes)", () => {
    expect(cardActionId("similar", "X".repeat(51))).toBe(`card:similar:${"X".repeat(51)}`);
    expect(cardActionId("similar", "X".repeat(52))).toBeUndefined();
    expect(cardActionId("similar", "X".repeat(52), 256)).toBeDefined();
  });

  it("asks for homes like the listing: same city and sale type, ±20% price, ±1 bedroom", () => {
    expect(similarHomesQuestion(listingItem("TX-1001"))).toBe(
      "Show me homes similar to MLS TX-1001: in Austin, for sale, about $450,000 (±20%: $360,000 to $540,000), 2 to 4 bedrooms.",
    );
    const rental = listingItem("R-7", { SaleType: "for_rent", Price: "2300", Bedrooms: "0", City: "Dallas" });
    expect(similarHomesQuestion(rental)).toBe(
      "Show me homes similar to MLS R-7: in Dallas, for rent, about $2,300 a month (±20%: $1,840 to $2,760), 0 to 1 bedrooms.",
    );
    // What the listing leaves unset is left out of the question.
    const bare = listingItem("B-1", { City: "", Price: "", Bedrooms: "" });
    expect(similarHomesQuestion(bare)).toBe("Show me homes similar to MLS B-1: for sale.");
    expect(cardActionText("similar", "B-1")).toBe("Show me homes similar to MLS B-1");
    expect(cardActionText("viewing", "B-1")).toBe("Book a viewing of MLS B-1");
  });
});

describe("card text", () => {
  it("writes the facts on one line and the kind with its badge, leaving out what is unset", () => {
    const card = cardFromListing(listingItem("TX-1", { Status: "PreOnMarket", Bathrooms: "1" }));
    expect(cardFacts(card)).toBe("$450,000 · 3 beds · 1 bath · 1,850 sq ft");
    expect(cardKind(card)).toBe("House · Coming soon");
    const bare = cardFromListing(listingItem("TX-2", { Bedrooms: "", Bathrooms: "", BuildingArea: "", Price: "" }));
    expect(cardFacts(bare)).toBe("Price on request");
    expect(cutText("abcdef", 4)).toBe("abc…");
    expect(cutText("abc", 3)).toBe("abc");
  });
});
