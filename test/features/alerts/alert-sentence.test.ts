import { describe, expect, it } from "vitest";
import { alertSentenceIn } from "../../../src/features/alerts/alert-sentence.js";

const CITIES = ["Austin", "San Antonio", "Dallas"];
const read = (text: string, cities: readonly string[] = CITIES) => alertSentenceIn(text, cities);

describe("a sentence asking for alerts", () => {
  it.each([
    [
      "notify me about new 3-bedroom homes in Austin under 600k",
      { minBeds: 3, propertyType: "house", city: "Austin", maxPrice: 600_000, saleType: "for_sale" },
    ],
    [
      "Alert me when 3 bed houses in Austin below $600,000 come up",
      { minBeds: 3, propertyType: "house", city: "Austin", maxPrice: 600_000, saleType: "for_sale" },
    ],
    ["Let me know when new listings hit the market in san antonio", { city: "San Antonio" }],
    [
      "tell me when there are new condos for rent in Dallas under $2,500",
      { propertyType: "condo", saleType: "for_rent", city: "Dallas", maxPrice: 2_500 },
    ],
    [
      "Please notify me of apartments for rent in Dallas",
      { propertyType: "apartment", saleType: "for_rent", city: "Dallas" },
    ],
    [
      "Can you alert me about at least 4 bedrooms for sale in Austin?",
      { minBeds: 4, saleType: "for_sale", city: "Austin" },
    ],
    ["notify me about properties with more than 2 bedrooms in Austin", { minBeds: 3, city: "Austin" }],
    [
      "set up an alert for townhouses in Austin between 300k and 450k",
      { propertyType: "townhouse", city: "Austin", maxPrice: 450_000, saleType: "for_sale" },
    ],
    ["I'd like to be notified about listings to buy in Austin", { saleType: "for_sale", city: "Austin" }],
    ["let me know if any new homes come up in Austin", { propertyType: "house", city: "Austin" }],
    [
      "keep me posted on 3+ bedroom single-family homes in Austin for $500k",
      { minBeds: 3, propertyType: "single-family", city: "Austin", maxPrice: 500_000, saleType: "for_sale" },
    ],
    [
      "Send me alerts for 2 bedroom apartments for rent in Dallas under $2,000",
      { minBeds: 2, propertyType: "apartment", saleType: "for_rent", city: "Dallas", maxPrice: 2_000 },
    ],
    ["ping me when condos come up in Austin", { propertyType: "condo", city: "Austin" }],
    [
      "Could you let me know whenever a new 4 bedroom house is listed in San Antonio?",
      { minBeds: 4, propertyType: "house", city: "San Antonio" },
    ],
    [
      "Hi! Please alert me about rentals in Austin under 2500 a month",
      { saleType: "for_rent", city: "Austin", maxPrice: 2_500 },
    ],
    // A city the listings do not have yet, as typed.
    ["notify me about new houses in Boston", { propertyType: "house", city: "Boston" }],
    // A ZIP code is no price.
    ["notify me about new listings for sale in 78701", { saleType: "for_sale" }],
  ])("%s", (text, criteria) => {
    expect(read(text)).toEqual({ language: "en", criteria });
  });

  it.each([
    [
      "Avísame cuando haya casas nuevas de 3 recámaras en Austin por menos de 600 mil",
      { minBeds: 3, propertyType: "house", city: "Austin", maxPrice: 600_000, saleType: "for_sale" },
    ],
    [
      "notifícame de departamentos en renta en Dallas hasta $2,000",
      { propertyType: "apartment", saleType: "for_rent", city: "Dallas", maxPrice: 2_000 },
    ],
    [
      "infórmame cuando salgan casas para comprar en San Antonio",
      { propertyType: "house", saleType: "for_sale", city: "San Antonio" },
    ],
    [
      "¿Me avisas si aparecen pisos para alquilar con al menos 2 habitaciones en Austin?",
      { propertyType: "apartment", saleType: "for_rent", minBeds: 2, city: "Austin" },
    ],
    ["quiero una alerta de viviendas en venta en Austin", { saleType: "for_sale", city: "Austin" }],
    ["avísame de nuevas propiedades con 3 habitaciones", { minBeds: 3 }],
  ])("%s", (text, criteria) => {
    expect(read(text)).toEqual({ language: "es", criteria });
  });

  it("names no criterion when the request says nothing of the search (the guided flow asks)", () => {
    expect(read("notify me about new listings")).toEqual({ language: "en", criteria: {} });
    expect(read("alert me")).toEqual({ language: "en", criteria: {} });
    expect(read("How do I set up an alert?")).toEqual({ language: "en", criteria: {} });
    expect(read("avísame")).toEqual({ language: "es", criteria: {} });
    expect(read("notify me about new condos")).toEqual({ language: "en", criteria: { propertyType: "condo" } });
  });

  it("reads a lower-case city only when the listings have it", () => {
    expect(read("notify me about new homes in austin", [])?.criteria).toEqual({ propertyType: "house" });
    expect(read("notify me about new homes in austin")?.criteria).toEqual({ propertyType: "house", city: "Austin" });
  });

  it.each([
    "do you have 3 bedroom homes in Austin?",
    "3 bedroom homes in Austin under 600k",
    "tell me about 3 bedroom homes in Austin",
    "let me know if you have new listings in Austin",
    "let me know if TX-1 is still available",
    "tell me when the open house is",
    "Can you tell me when the house was built?",
    "tell me when the new listing on Oak St is open for viewing",
    "dime cuando la casa nueva esté disponible para visitar",
    "Please let me know the price of MLS 123",
    "notify me when my viewing is confirmed",
    "don't notify me about new homes",
    "stop alerting me about homes",
    "please stop sending me alerts about condos",
    "no me avises de casas nuevas",
    "avísame si tienes casas en Austin",
    "¿tienes casas de 3 recámaras en Austin?",
    "dime cuánto cuesta la casa en Austin",
    "how many homes are for sale in Dallas?",
    "I want to buy a new home in Austin",
  ])("%s is a question, no alert", (text) => {
    expect(read(text)).toBeUndefined();
  });
});
