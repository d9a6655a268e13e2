import { describe, expect, it } from "vitest";
import { parseAmount } from "../../../src/real-estate/amounts.js";
import { type ParsedQuestion, parseQuestion } from "../../../src/server/engine/embedded/question.js";

const vocabulary = {
  cities: ["Austin", "Denver", "Miami", "San Antonio"],
  propertyTypes: ["Single Family", "Condo", "Townhouse", "Apartment"],
  mlsNumbers: ["MLS100001", "A1234567"],
};

/** The filters that were set, and the flags that are true. */
function understood(question: string): Record<string, unknown> {
  const parsed: ParsedQuestion = parseQuestion(question, vocabulary);
  const { filters, ...flags } = parsed;
  return Object.fromEntries(
    [...Object.entries(filters), ...Object.entries(flags)].filter(
      ([, value]) => value !== undefined && value !== false,
    ),
  );
}

describe("amounts", () => {
  it.each([
    ["500k", 500_000],
    ["$1.2m", 1_200_000],
    ["450,000", 450_000],
    ["1.200.000", 1_200_000],
    ["2.5", 2.5],
    ["2,5", 2.5],
    ["500 mil", 500_000],
    ["1,5 millones", 1_500_000],
    ["$2,500", 2_500],
    ["1,234.5", 1_234.5],
  ])("%s is %d", (text, value) => {
    expect(parseAmount(text)?.value).toBe(value);
  });

  it("tells prices from plain numbers", () => {
    expect(parseAmount("$300")?.priceLike).toBe(true);
    expect(parseAmount("300k")?.priceLike).toBe(true);
    expect(parseAmount("2,500")?.priceLike).toBe(true);
    expect(parseAmount("2010")?.priceLike).toBe(false);
  });
});

describe("understanding one question", () => {
  it.each<[string, Record<string, unknown>]>([
    ["3+ beds 2 baths", { minBedrooms: 3, minBathrooms: 2 }],
    ["2.5 baths", { minBathrooms: 2.5 }],
    ["at least 3 bedrooms", { minBedrooms: 3 }],
    ["more than 3 bedrooms", { minBedrooms: 4 }],
    ["exactly 2 bedrooms", { minBedrooms: 2, maxBedrooms: 2 }],
    ["up to two bedrooms", { maxBedrooms: 2 }],
    ["2-3 bedroom condos", { minBedrooms: 2, maxBedrooms: 3, propertyType: "condo", subject: true }],
    ["tres habitaciones", { minBedrooms: 3 }],
    ["between 300 and 450k", { minPrice: 300_000, maxPrice: 450_000 }],
    ["homes 300k-500k", { minPrice: 300_000, maxPrice: 500_000, subject: true }],
    ["over 1.200.000", { minPrice: 1_200_000 }],
    ["from $2,000 to $3,000 a month", { minPrice: 2_000, maxPrice: 3_000, saleType: "for_rent", subject: true }],
    ["casas de 500 mil", { propertyType: "house", maxPrice: 500_000, subject: true }],
    ["$350,000 budget", { maxPrice: 350_000 }],
    ["3 bed 2 bath under 500k", { minBedrooms: 3, minBathrooms: 2, maxPrice: 500_000 }],
    ["homes built in 2010", { subject: true }],
    [
      "pisos en alquiler con 2 dormitorios y garaje",
      { minBedrooms: 2, minParkingSpots: 1, saleType: "for_rent", propertyType: "apartment", subject: true },
    ],
    ["2-car garage", { minParkingSpots: 2 }],
    ["single family homes in denver", { propertyType: "single-family", city: "Denver", subject: true }],
    ["townhomes for rent", { propertyType: "townhouse", saleType: "for_rent", subject: true }],
    ["houses for sale", { propertyType: "house", saleType: "for_sale", subject: true }],
    ["newest listings", { sort: "newest", subject: true }],
    ["most expensive homes", { sort: "price_desc", subject: true }],
    ["las casas más baratas", { propertyType: "house", sort: "price_asc", subject: true }],
    ["¿más baratas?", { cheaper: true }],
    ["¿qué tal en Denver?", { city: "Denver", continues: true }],
    ["homes in Boston", { city: "Boston", subject: true }],
    ["In New Orleans, any condos?", { city: "New Orleans", propertyType: "condo", subject: true }],
    ["homes in boston", { subject: true }],
    ["Casas en Venta en Sevilla", { propertyType: "house", saleType: "for_sale", city: "Sevilla", subject: true }],
    ["show me something in English", {}],
    ["tell me about a1234567", { mlsNumber: "A1234567" }],
    ["MLS #100001", { mlsNumber: "MLS100001" }],
    ["MLS555", { mlsNumber: "MLS555" }],
    ["hi there!", { greeting: true }],
    ["hola, ¿qué tal?", { greeting: true }],
    ["hi, any condos?", { propertyType: "condo", subject: true }],
    ["thanks!", { thanks: true }],
    ["ok gracias", { thanks: true }],
  ])("%s", (question, expected) => {
    expect(understood(question)).toEqual(expected);
  });
});
