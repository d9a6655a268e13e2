import { describe, expect, it } from "vitest";
import { familyOf } from "../../../src/real-estate/property-types.js";
import type { Listing } from "../../../src/server/domain.js";
import { ask } from "./engine-run.js";
import { DEMO_LISTINGS, LISTINGS } from "./listings-fixture.js";

/** The PropertyType of every listing line of an answer ("1. Condo for sale · …" → "Condo"). */
const listedTypes = (text: string) =>
  [...text.matchAll(/^\d+\. (.+?) (?:for sale|for rent|en venta|en alquiler) ·/gm)].map((match) => match[1]);

describe("PropertyType texts are read as families", () => {
  it.each([
    ["Single Family Residential", "single-family"],
    ["Single-Family", "single-family"],
    ["House", "single-family"],
    ["Townhouse", "townhouse"],
    ["Townhome", "townhouse"],
    ["Casa adosada", "townhouse"],
    ["Condo", "condo"],
    ["Condominium", "condo"],
    ["Apartment", "apartment"],
    ["Departamento", "apartment"],
    ["Mobile Home", "mobile-home"],
    ["Duplex", "multi-family"],
    ["Land", "land"],
    ["Villa", undefined],
    ["Castle", undefined],
  ])("%s is %s", (propertyType, family) => {
    expect(familyOf(propertyType)).toBe(family);
  });
});

describe("property words choose the listings' types", () => {
  it.each<[string, string[]]>([
    ["houses in Austin", ["Townhouse", "Single Family", "Single Family"]],
    ["single family homes in Austin", ["Single Family", "Single Family"]],
    ["apartments in Austin", ["Apartment", "Condo"]],
    ["condos in Austin", ["Condo"]],
    ["townhouses in Denver", ["Townhouse"]],
  ])("%s", async (question, types) => {
    expect(listedTypes((await ask(question)).text)).toEqual(types);
  });

  it.each<[string, string[]]>([
    ["casas en Austin", ["Townhouse", "Single Family", "Single Family"]],
    ["departamentos en Austin", ["Apartment", "Condo"]],
    ["pisos en alquiler en Miami", ["Apartment", "Condo", "Apartment"]],
    ["condominios en Miami", ["Condo", "Condo"]],
    ["casas adosadas en Denver", ["Townhouse"]],
  ])("%s (Spanish)", async (question, types) => {
    const answer = await ask(question, { settings: { AIResponseLanguage: "Spanish" } });
    expect(listedTypes(answer.text)).toEqual(types);
  });

  it("names the kind asked for in the answer", async () => {
    expect((await ask("houses for sale in Austin")).text).toMatch(/^I found 3 matches for houses for sale in Austin:/);
    const spanish = await ask("departamentos en Austin", { settings: { AIResponseLanguage: "Spanish" } });
    expect(spanish.text).toMatch(/^Encontré 2 resultados para apartamentos en Austin:/);
  });

  it('keeps "homes" for every type, as listing sites do', async () => {
    const answer = await ask("homes in Austin");
    expect(new Set(listedTypes(answer.text))).toEqual(new Set(["Single Family", "Condo", "Townhouse", "Apartment"]));
  });

  it("on the demo: houses are never apartments or condos, apartments never houses", async () => {
    const houses = listedTypes((await ask("houses in Seattle", { listings: DEMO_LISTINGS })).text);
    const apartments = listedTypes((await ask("apartments in Seattle", { listings: DEMO_LISTINGS })).text);
    const casas = listedTypes(
      (await ask("casas en Seattle", { listings: DEMO_LISTINGS, settings: { AIResponseLanguage: "Spanish" } })).text,
    );
    expect(houses.length).toBeGreaterThan(0);
    expect(apartments.length).toBeGreaterThan(0);
    expect(casas).toEqual(houses);
    for (const type of houses) expect(["Single Family Residential", "Townhouse"]).toContain(type);
    for (const type of apartments) expect(["Apartment", "Condo"]).toContain(type);
  });

  describe("types of no known family", () => {
    const base = LISTINGS[0] as Listing;
    const listings = [
      { ...base, ID: 1, MLSNumber: "V1", PropertyType: "Villa", SalePrice: 900_000 },
      { ...base, ID: 2, MLSNumber: "S1", PropertyType: "Single Family", SalePrice: 450_000 },
    ];

    it("are kept when no type is asked", async () => {
      expect(listedTypes((await ask("homes in Austin", { listings })).text)).toEqual(["Single Family", "Villa"]);
    });

    it("are left out when a kind is asked", async () => {
      expect(listedTypes((await ask("houses in Austin", { listings })).text)).toEqual(["Single Family"]);
    });

    it("are found by their own name", async () => {
      expect(listedTypes((await ask("villas in Austin", { listings })).text)).toEqual(["Villa"]);
    });
  });
});
