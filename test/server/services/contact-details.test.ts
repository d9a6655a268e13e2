import { describe, expect, it } from "vitest";
import { findContactDetails } from "../../../src/server/services/contact-details.js";

const phones = (text: string) =>
  findContactDetails(text)
    .filter((detail) => detail.kind === "phone")
    .map((detail) => detail.value);
const emails = (text: string) =>
  findContactDetails(text)
    .filter((detail) => detail.kind === "email")
    .map((detail) => detail.value);

describe("findContactDetails", () => {
  it("finds e-mail addresses and phone numbers in the order written, with comparable keys", () => {
    expect(findContactDetails("I'm Jane: (512) 555-0100 or Jane.Doe+homes@Example.co.uk. Thanks!")).toEqual([
      { kind: "phone", value: "(512) 555-0100", key: "5125550100" },
      { kind: "email", value: "Jane.Doe+homes@Example.co.uk", key: "jane.doe+homes@example.co.uk" },
    ]);
  });

  it.each([
    ["+1 (512) 555-0100", "+15125550100"],
    ["+1 512 555 0100", "+15125550100"],
    ["+44 20 7946 0958", "+442079460958"],
    ["0044 20 7946 0958", "+442079460958"],
    ["+49 30 12345678", "+493012345678"],
    ["+33 1 23 45 67 89", "+33123456789"],
    ["+34 612 34 56 78", "+34612345678"],
    ["+44 (0)20 7946 0958", "+4402079460958"],
    ["512-555-0100", "5125550100"],
    ["512.555.0100", "5125550100"],
    ["5125550100", "5125550100"],
    ["1 800 555 0199", "18005550199"],
    ["555-0100", "5550100"],
    ["030 12345678", "03012345678"],
    ["06 12 34 56 78", "0612345678"],
    ["020 7946 0958", "02079460958"],
  ])("finds the phone number %s", (written, key) => {
    expect(findContactDetails(`You can reach me on ${written} after 5.`)).toEqual([
      { kind: "phone", value: written, key },
    ]);
    expect(findContactDetails(written)).toEqual([{ kind: "phone", value: written, key }]);
  });

  it("finds numbers right after a label, a link scheme or in parentheses", () => {
    expect(phones("Phone:5125550100")).toEqual(["5125550100"]);
    expect(phones("tel:+15125550100")).toEqual(["+15125550100"]);
    expect(phones("(call 512-555-0100)")).toEqual(["512-555-0100"]);
    expect(phones("Call me at 512 555 0100 5 pm, or 512 555 0101 2 bedrooms")).toEqual([
      "512 555 0100",
      "512 555 0101",
    ]);
  });

  it("takes ambiguous shapes only after a word that announces a phone number", () => {
    expect(phones("my number is 612 345 678")).toEqual(["612 345 678"]);
    expect(phones("call 5550100")).toEqual(["5550100"]);
    expect(phones("612 345 678")).toEqual([]);
    expect(phones("5550100")).toEqual([]);
  });

  it.each([
    ["prices", "The asking price is $450,000, down from $1,250,000."],
    ["a price with its currency after it", "Budget: 1 250 000 € or 1.250.000 EUR"],
    ["a price range", "Anything between 450000-500000 or 450 000 - 500 000?"],
    ["a bare amount", "I can pay 2500000 cash"],
    ["sizes", "2500000 sq ft of land"],
    ["years and year ranges", "Built in 1998, renovated 1998-2005 and 2019 2020."],
    ["MLS and listing numbers", "Is MLS# 12345678 or MLS 1234567890 or listing ID: 5125550100 still available?"],
    ["references", "Order 512-555-0100, ref: 5125550100, unit 5550100"],
    ["ISO dates", "Can I visit on 2024-05-01 or 2024.05.02?"],
    ["European and US dates", "Free on 01.05.2024, 10.05.2024 14:30 and 5-12-2024"],
    ["slashed dates", "Free on 05/01/2024"],
    ["coordinates", "It is at 30.2671534, -97.7430608"],
    ["ZIP+4 codes", "ZIP 78701-1234"],
    ["social security numbers", "My SSN is 123-45-6789"],
    ["card numbers", "Card 4111 1111 1111 1111"],
    ["lists of small numbers", "Rooms 3 4 5 6 7 8 9"],
    ["time ranges", "Open 10.30-11.45"],
    ["numbers in links", "See https://example.com/property/5125550100 and www.example.com/5125550100"],
    ["numbers glued to words", "5125550100th visitor, room 1203-1205"],
    ["too few digits", "Call 555-010"],
    ["too many digits", "Call +1 512 555 0100 1234 5678"],
  ])("ignores %s", (_what, text) => {
    expect(phones(text)).toEqual([]);
  });

  it("finds each address once, whatever its case, and ignores file names and broken addresses", () => {
    expect(emails("jane@example.com, JANE@Example.com; bob_smith@mail.example.org.")).toEqual([
      "jane@example.com",
      "bob_smith@mail.example.org",
    ]);
    expect(emails("logo@2x.png, photo@home.jpg, jane@, @example.com, jane@example, jane@@example.com")).toEqual([]);
  });

  it("finds each number once, however it is written", () => {
    expect(phones("512-555-0100, I repeat (512) 555 0100; +1 512 555 0100")).toEqual([
      "512-555-0100",
      "+1 512 555 0100",
    ]);
  });

  it("does not read an address's digits as a phone number", () => {
    expect(findContactDetails("mail 5125550100@example.com")).toEqual([
      { kind: "email", value: "5125550100@example.com", key: "5125550100@example.com" },
    ]);
  });

  it("stays fast on long runs of digits and separators", () => {
    const started = performance.now();
    expect(findContactDetails(`${"1-".repeat(20_000)}x ${"9".repeat(50_000)}`)).toEqual([]);
    expect(performance.now() - started).toBeLessThan(500);
  });
});
