import { describe, expect, it } from "vitest";
import { linkAsMessage, listingCode, listingLinkIn, mlsOfCode } from "../../../src/features/listings/listing-links.js";

describe("listing link codes", () => {
  it("names an MLS number of start-payload characters as it is, any other encoded, within 64 characters", () => {
    expect(listingCode("TX-1001")).toBe("l-TX-1001");
    expect(listingCode("a_b")).toBe("l-a_b");
    const encoded = listingCode("MLS #77.5");
    expect(encoded).toBe(`lx-${Buffer.from("MLS #77.5").toString("base64url")}`);
    expect(encoded).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
    expect(listingCode("x".repeat(62))).toHaveLength(64);
    expect(listingCode("é".repeat(30))).toBeUndefined();
    expect(listingCode(" ")).toBeUndefined();
    for (const mls of ["TX-1001", "MLS #77.5", "Ñandú 4"]) expect(mlsOfCode(listingCode(mls) as string)).toBe(mls);
  });

  it("reads no code from what listingCode does not write", () => {
    expect(mlsOfCode("l-")).toBeUndefined();
    expect(mlsOfCode("hello")).toBeUndefined();
    // Decodes to "TX1", which listingCode writes as l-TX1.
    expect(mlsOfCode(`lx-${Buffer.from("TX1").toString("base64url")}`)).toBeUndefined();
    expect(mlsOfCode(`l-${"x".repeat(63)}`)).toBeUndefined();
  });

  it("finds a code the way the links send it: /start <code>, alone, or ending a sentence", () => {
    expect(listingLinkIn("/start l-TX-1001")).toBe("TX-1001");
    expect(listingLinkIn("/start@homes_bot l-TX-1001")).toBe("TX-1001");
    expect(listingLinkIn("  l-TX-1001 ")).toBe("TX-1001");
    expect(listingLinkIn("Hi! I'm interested in listing l-TX-1001")).toBe("TX-1001");
    expect(listingLinkIn("Hi! I'm interested in listing l-TX-1001.")).toBe("TX-1001");
    expect(listingLinkIn(`/start ${listingCode("MLS #77.5")}`)).toBe("MLS #77.5");
    expect(listingLinkIn("is l-TX-1001 still available?")).toBeUndefined();
    expect(listingLinkIn("/start")).toBeUndefined();
    expect(listingLinkIn("my-l-TX-1001")).toBeUndefined();
    expect(listingLinkIn("homes in austin")).toBeUndefined();
  });

  it("names the listing a link opened, for a person to read", () => {
    expect(linkAsMessage("/start l-TX-1001", "TX-1001")).toBe("Opened the link of MLS TX-1001");
    expect(linkAsMessage("/start@homes_bot l-TX-1001", "TX-1001")).toBe("Opened the link of MLS TX-1001");
    expect(linkAsMessage(" l-TX-1001 ", "TX-1001")).toBe("Opened the link of MLS TX-1001");
    expect(linkAsMessage("Hi! I'm interested in listing l-TX-1001.", "TX-1001")).toBe(
      "Hi! I'm interested in listing MLS TX-1001.",
    );
    const code = `lx-${Buffer.from("TX 1001/B").toString("base64url")}`;
    expect(linkAsMessage(code, "TX 1001/B")).toBe("Opened the link of MLS TX 1001/B");
  });
});
