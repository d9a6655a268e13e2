import { describe, expect, it } from "vitest";
import { EmbeddedEngine } from "../../../src/server/engine/embedded/embedded-engine.js";
import { fragmentsOf } from "../../../src/server/engine/embedded/fragments.js";
import { ask } from "./engine-run.js";
import { historyOf, requestFor } from "./listings-fixture.js";

const engine = new EmbeddedEngine();

describe("embedded engine: context within the session", () => {
  it("adds bedrooms to the earlier city", async () => {
    const answer = await ask("and with 4 bedrooms?", { history: historyOf("homes in Austin") });
    expect(answer.searches[1]).toEqual({ city: "Austin", minBedrooms: 4, limit: 500 });
    expect(answer.text).toContain("homes in Austin with 4+ bedrooms");
    expect(answer.text).toContain("$620,000");
  });

  it("replaces the city and keeps the rest", async () => {
    const answer = await ask("what about Denver?", { history: historyOf("homes in Austin", "and with 4 bedrooms?") });
    expect(answer.searches[1]).toEqual({ city: "Denver", minBedrooms: 4, limit: 500 });
    expect(answer.text).toContain("$710,000");
  });

  it("lowers the price cap and sorts by price for cheaper ones", async () => {
    const answer = await ask("cheaper ones?", { history: historyOf("homes for sale in Austin under $500k") });
    expect(answer.searches[1]).toEqual({
      city: "Austin",
      saleType: "for_sale",
      maxPrice: 400_000,
      sort: "price_asc",
      limit: 500,
    });
    expect(answer.text).toContain("$310,000");
  });

  it("sorts by price when there was no cap", async () => {
    const answer = await ask("¿más baratas?", { history: historyOf("casas en venta en Denver") });
    expect(answer.searches[1]).toEqual({ city: "Denver", saleType: "for_sale", sort: "price_asc", limit: 500 });
  });

  it("starts over when a new search names what and where", async () => {
    const history = historyOf("3 bedroom homes for sale in Austin under $500k");
    const answer = await ask("rentals with parking in Denver", { history });
    expect(answer.searches[1]).toEqual({ city: "Denver", saleType: "for_rent", minParkingSpots: 1, limit: 500 });
  });

  it("ignores greetings, MLS questions and the AI's own messages in the history", async () => {
    const history = [
      ...historyOf("hi", "homes in Miami", "tell me about MLS300001"),
      { role: "AI" as const, content: "homes in Denver" },
    ];
    const answer = await ask("2+ baths", { history });
    expect(answer.searches[1]).toEqual({ city: "Miami", minBathrooms: 2, limit: 500 });
  });
});

describe("embedded engine: languages", () => {
  it("understands a Spanish question and answers in Spanish", async () => {
    const answer = await ask("casas en venta en Austin con 3 habitaciones", {
      settings: { AIResponseLanguage: "Spanish" },
    });
    expect(answer.searches[1]).toEqual({ city: "Austin", saleType: "for_sale", minBedrooms: 3, limit: 500 });
    expect(answer.text).toContain("Encontré 3 resultados para casas en venta en Austin con 3+ habitaciones");
    expect(answer.text).toContain("Single Family en venta · $450,000 · 3 hab. · 2 baños · 2,100 pies²");
  });

  it('takes "Español" and rents in Spanish', async () => {
    const answer = await ask("alquiler en Miami hasta 2.500", { settings: { AIResponseLanguage: "Español" } });
    expect(answer.searches[1]).toEqual({ city: "Miami", saleType: "for_rent", maxPrice: 2_500, limit: 500 });
    expect(answer.text).toContain("$2,400/mes");
  });

  it("answers a Spanish question in English when the chatbot's language is English", async () => {
    const answer = await ask("apartamentos en alquiler en Denver");
    expect(answer.text).toContain("I found 1 match for apartments for rent in Denver");
  });

  it("falls back to English for a language without templates", async () => {
    const answer = await ask("condos in Miami", { settings: { AIResponseLanguage: "French" } });
    expect(answer.text).toContain("I found 2 matches for condos in Miami");
  });
});

describe("embedded engine: streaming and tokens", () => {
  it("streams whole words in small fragments that concatenate to the answer", async () => {
    const answer = await ask("2+ baths");
    expect(answer.fragments.length).toBeGreaterThan(20);
    expect(answer.events.at(-1)?.type).toBe("done");
    expect(answer.events.filter((event) => event.type === "done")).toHaveLength(1);
    for (const fragment of answer.fragments.slice(0, -1)) expect(fragment).toMatch(/\s$/);
    for (const fragment of answer.fragments) expect(fragment.trim().split(/\s+/).length).toBeLessThanOrEqual(3);
    for (const url of answer.text.match(/https:\S+/g) ?? []) {
      expect(answer.fragments.some((fragment) => fragment.includes(url))).toBe(true);
    }
  });

  it("stops at once when the signal fires", async () => {
    const controller = new AbortController();
    const events = [];
    for await (const event of engine.answer(requestFor("2+ baths", { signal: controller.signal }))) {
      events.push(event);
      if (events.length === 2) controller.abort();
    }
    expect(events).toHaveLength(2);
  });

  it("yields nothing when the signal fired before the answer", async () => {
    const controller = new AbortController();
    controller.abort();
    expect((await ask("homes in Austin", { signal: controller.signal })).events).toEqual([]);
  });

  it("counts prompt and answer tokens, the same every time", async () => {
    const first = await ask("homes in Austin");
    const again = await ask("homes in Austin");
    const withHistory = await ask("homes in Austin", { history: historyOf("hello there, how are you doing today?") });
    expect(first.done?.totalToken).toBeGreaterThan(50);
    expect(again.done).toEqual(first.done);
    expect(again.text).toBe(first.text);
    expect(withHistory.done?.totalToken).toBeGreaterThan(first.done?.totalToken ?? 0);
  });

  it("counts special-token text as plain text", async () => {
    const answer = await ask("<|endoftext|> homes in Austin");
    expect(answer.done?.totalToken).toBeGreaterThan(0);
  });
});

describe("fragments", () => {
  it("cut only after whitespace, end at line ends and concatenate back exactly", () => {
    const text = "  Hello  there, see https://homes.example.com/a?b=1&c=2 now.\n\nNext line here ok";
    const fragments = fragmentsOf(text);
    expect(fragments.join("")).toBe(text);
    expect(fragments).toEqual([
      "  Hello  there, see ",
      "https://homes.example.com/a?b=1&c=2 now.\n\n",
      "Next line here ",
      "ok",
    ]);
  });
});
