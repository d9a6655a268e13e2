import { describe, expect, it } from "vitest";
import { listingReferences, normalizeListingUrl } from "../../../src/features/listings/listing-references.js";

const url = (address: string) => ({ kind: "url", url: address });
const mls = (mlsNumber: string) => ({ kind: "mls", mlsNumber });

describe("listingReferences", () => {
  it("finds addresses and MLS numbers in the order they appear, each once", () => {
    const text = [
      "1. 3-bed house, $450,000 (MLS240137)",
      "   12 Oak St, Austin, TX 78701",
      "   https://homes.example.com/listing/mls240137",
      "See MLS# 12345 and MLS number TX-1234, or MLS 777; again https://homes.example.com/listing/mls240137.",
    ].join("\n");
    expect(listingReferences(text)).toEqual([
      mls("MLS240137"),
      url("https://homes.example.com/listing/mls240137"),
      mls("12345"),
      mls("TX-1234"),
      mls("777"),
    ]);
  });

  it("leaves out the punctuation and markdown around an address, keeping brackets the address opened", () => {
    const text =
      "Look at [this home](https://a.example/listing/1), <https://a.example/listing/2>, **https://a.example/3**! " +
      '(also https://a.example/wiki/Foo_(bar)) and “https://a.example/4?x=1&y=2”: "https://a.example/5".';
    expect(listingReferences(text)).toEqual([
      url("https://a.example/listing/1"),
      url("https://a.example/listing/2"),
      url("https://a.example/3"),
      url("https://a.example/wiki/Foo_(bar)"),
      url("https://a.example/4?x=1&y=2"),
      url("https://a.example/5"),
    ]);
  });

  it("takes an address again written with a trailing slash, a fragment or another case of host as the same one", () => {
    const text = "https://Homes.Example.com/listing/a1/ then https://homes.example.com/listing/a1#photos";
    expect(listingReferences(text)).toEqual([url("https://Homes.Example.com/listing/a1/")]);
    expect(normalizeListingUrl("https://Homes.Example.com/listing/a1/?x=1#top")).toBe(
      "https://homes.example.com/listing/a1?x=1",
    );
  });

  it("reads the MLS forms people write, case-insensitively, and dedupes them whatever their case", () => {
    expect(listingReferences("mls #: 42A, MLS no. 42a, Mls-77, MLS:88.")).toEqual([
      mls("42A"),
      mls("Mls-77"),
      mls("88"),
    ]);
  });

  it("reads a long text in linear time, however many brackets close it", () => {
    const started = performance.now();
    expect(listingReferences(`https://a.example/x${")".repeat(50_000)} ${"MLS ".repeat(10_000)}`)).toEqual([
      url("https://a.example/x"),
    ]);
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it("finds nothing where an MLS mention holds no number, or in words and addresses of other schemes", () => {
    expect(listingReferences("Ask me about an MLS number! MLS numbers are unique. HTMLS5 ftp://x.example/1")).toEqual(
      [],
    );
    expect(listingReferences("")).toEqual([]);
  });
});
