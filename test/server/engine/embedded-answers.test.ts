import { describe, expect, it } from "vitest";
import type { ListingCriteria } from "../../../src/server/domain.js";
import { ask } from "./engine-run.js";

const WELCOME = "Welcome to Sunrise Realty! Ask me about homes for sale or rent.";
const CATALOG_SEARCH: ListingCriteria = { limit: 500 };

describe("embedded engine: questions, criteria and answers", () => {
  const cases: { question: string; criteria: Omit<ListingCriteria, "limit">; says: string[]; omits?: string[] }[] = [
    {
      question: "3 bedroom homes for sale in Austin under $500k",
      criteria: { city: "Austin", saleType: "for_sale", minBedrooms: 3, maxPrice: 500_000 },
      says: [
        "I found 2 matches",
        "Townhouse for sale · coming soon · $480,000 · 3 beds · 2.5 baths · 2,100 sq ft",
        "$450,000",
      ],
      omits: ["$620,000", "$395,000"],
    },
    {
      question: "rentals with parking in Denver",
      criteria: { city: "Denver", saleType: "for_rent", minParkingSpots: 1 },
      says: [
        "$2,800/month",
        "$1,700/month",
        "109 Oak St, Denver, CO 70009",
        "https://homes.example.com/listing/mls200003",
      ],
    },
    {
      question: "what's the cheapest condo?",
      criteria: { sort: "price_asc" },
      says: ["cheapest first", "1. Condo for sale · $285,000"],
      omits: ["/month"],
    },
    {
      question: "show me houses between 300k and 450k",
      criteria: { minPrice: 300_000, maxPrice: 450_000, saleType: "for_sale" },
      says: ["I found 1 match for houses for sale between $300,000 and $450,000", "Single Family for sale · $450,000"],
      omits: ["Condo", "$310,000"],
    },
    {
      question: "2+ baths",
      criteria: { minBathrooms: 2 },
      says: ["I found 10 matches for homes with 2+ bathrooms. Here are the first 5:", "5. ", "…and 5 more."],
      omits: ["6. "],
    },
    {
      question: "apartments for rent in Miami below 2,500 a month",
      criteria: { city: "Miami", saleType: "for_rent", maxPrice: 2_500 },
      // A condo for rent is an apartment to a renter.
      says: ["I found 2 matches for apartments for rent in Miami up to $2,500/month", "$2,400/month", "Condo for rent"],
      omits: ["$3,200"],
    },
    {
      question: "Homes under $1.2M in San Antonio",
      criteria: { city: "San Antonio", saleType: "for_sale", maxPrice: 1_200_000 },
      says: ["$275,000", "115 Oak St, San Antonio"],
    },
  ];

  for (const { question, criteria, says, omits = [] } of cases) {
    it(`"${question}"`, async () => {
      const answer = await ask(question);
      expect(answer.searches).toEqual([CATALOG_SEARCH, { ...criteria, limit: 500 }]);
      for (const text of says) expect(answer.text).toContain(text);
      for (const text of omits) expect(answer.text).not.toContain(text);
      expect(answer.done?.noAnswer).toBe(false);
    });
  }

  it("describes one listing in detail for an MLS question", async () => {
    const answer = await ask("tell me about MLS100003");
    expect(answer.searches[1]).toEqual({
      mlsNumber: "MLS100003",
      statuses: ["Active", "PreOnMarket", "Sold"],
      limit: 1,
    });
    for (const text of [
      "Condo for sale in Austin (MLS100003)",
      "Price: $310,000",
      "Bedrooms: 2 · Bathrooms: 2",
      "Year built: 1993",
      "Parking: 1 spot",
      "HOA: $250/month",
      "Address: 103 Oak St, Austin, TX 70003",
      "Bright condo with 2 bedrooms in Austin.",
      "https://homes.example.com/listing/mls100003",
    ]) {
      expect(answer.text).toContain(text);
    }
    expect(answer.done?.noAnswer).toBe(false);
  });

  it("finds an MLS number written apart and in lower case, and says when a home is sold", async () => {
    const answer = await ask("what about mls #100006?");
    expect(answer.searches.slice(1, 3).map((search) => search.mlsNumber)).toEqual(["100006", "MLS100006"]);
    expect(answer.text).toContain("Status: sold");
  });

  it("keeps the listed count at five and says how many more matched", async () => {
    const answer = await ask("homes");
    expect(answer.text.match(/^\d\. /gm)).toHaveLength(5);
    expect(answer.text).toContain("I found 14 matches");
    expect(answer.text).toContain("…and 9 more.");
  });
});

describe("embedded engine: greetings and fallbacks", () => {
  for (const greeting of ["hi", "Hello!", "hola", "Buenos días", "hey there"]) {
    it(`answers "${greeting}" with the WelcomeMessage`, async () => {
      const answer = await ask(greeting);
      expect(answer.text).toBe(WELCOME);
      expect(answer.done?.noAnswer).toBe(false);
    });
  }

  it("greets in the chatbot's language when there is no WelcomeMessage", async () => {
    const answer = await ask("hola", { settings: { WelcomeMessage: "", AIResponseLanguage: "Spanish" } });
    expect(answer.text).toBe(
      "¡Hola! Soy el asistente de Sunrise Realty. ¿Cómo puedo ayudarte a encontrar tu próximo hogar?",
    );
  });

  it("declines a question that is not about listings", async () => {
    const answer = await ask("what's the meaning of life");
    expect(answer.searches).toEqual([CATALOG_SEARCH]);
    expect(answer.text).toContain("I can only help with our listings");
    expect(answer.done?.noAnswer).toBe(true);
  });

  it("says nothing matched and suggests the cities there are", async () => {
    const answer = await ask("condos in Boston");
    expect(answer.searches[1]).toEqual({ city: "Boston", limit: 500 });
    expect(answer.text).toBe(
      "Sorry, I couldn't find any condos in Boston. I have listings in Austin, Denver, Miami and San Antonio.",
    );
    expect(answer.done?.noAnswer).toBe(true);
  });

  it("suggests widening the filters when a known city has no match", async () => {
    const answer = await ask("5 bedroom condos in Austin under 100k");
    expect(answer.text).toContain("Try a different price range, fewer bedrooms or another property type.");
    expect(answer.done?.noAnswer).toBe(true);
  });

  it("says when an MLS number is unknown", async () => {
    const answer = await ask("MLS 999999");
    expect(answer.searches.slice(1).map((search) => search.mlsNumber)).toEqual(["999999", "MLS999999"]);
    expect(answer.text).toContain("I couldn't find a listing with MLS number 999999.");
    expect(answer.done?.noAnswer).toBe(true);
  });

  it("says how to set up an alert when asked for one directly, then what there is now", async () => {
    const answer = await ask("notify me about new 3-bedroom homes in Austin under 500k");
    expect(answer.text).toMatch(/^I can't send alerts from here\. .*send this same sentence \(or \/alert\)/);
    expect(answer.text).toContain("I found 2 matches");
    const spanish = await ask("avísame cuando haya casas en Austin", { settings: { AIResponseLanguage: "Spanish" } });
    expect(spanish.text).toMatch(/^Desde aquí no puedo enviar alertas\./);
    // A question is only answered.
    expect((await ask("3 bedroom homes in Austin under 500k")).text).toMatch(/^I found 2 matches/);
  });

  it("says when there are no listings at all", async () => {
    const answer = await ask("homes in Austin", { listings: [] });
    expect(answer.text).toBe("I don't have any listings to show right now. Please check back soon.");
    expect(answer.done?.noAnswer).toBe(true);
  });
});
