import { describe, expect, it } from "vitest";
import { ApiError } from "../../../src/server/http/api-error.js";
import { editChatbotSchema } from "../../../src/server/schemas/chatbot.js";
import { createListingSchema, listListingsSchema } from "../../../src/server/schemas/listing.js";
import { parseRequest } from "../../../src/server/schemas/parse-request.js";

function message(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(400);
    return (error as ApiError).message;
  }
  throw new Error("expected a 400");
}

describe("parseRequest", () => {
  it("names the field and the problem", () => {
    expect(message(() => parseRequest(listListingsSchema, {}))).toBe("SerialNumber is required");
    expect(message(() => parseRequest(listListingsSchema, { SerialNumber: "a", SaleType: "sale" }))).toBe(
      "SaleType must be one of for_sale, for_rent",
    );
    expect(message(() => parseRequest(listListingsSchema, { SerialNumber: "a", PageSize: 500 }))).toBe(
      "PageSize must be at most 100",
    );
    expect(message(() => parseRequest(listListingsSchema, { SerialNumber: 5 }))).toBe("SerialNumber must be a string");
    expect(message(() => parseRequest(editChatbotSchema, { serialNumber: "a", ChatBubbleColor: "rgb(300,0,0)" }))).toBe(
      "ChatBubbleColor must be a colour like rgb(37,99,235) with values from 0 to 255",
    );
    expect(message(() => parseRequest(editChatbotSchema, { serialNumber: "a", TalkToHumanEmail: "nope" }))).toBe(
      "TalkToHumanEmail must be an e-mail address",
    );
    expect(message(() => parseRequest(editChatbotSchema, { serialNumber: "a", Temperature: 11 }))).toBe(
      "Temperature must be at most 10",
    );
    expect(message(() => parseRequest(editChatbotSchema, { serialNumber: "a", TimeZone: "Mars/Base" }))).toBe(
      "TimeZone must be an IANA time zone such as America/New_York",
    );
  });

  it("names nested fields with their index", () => {
    const listing = { SerialNumber: "a", ExtensionColumn: [{ Key: "Pets", value: 3 }] };
    expect(message(() => parseRequest(createListingSchema, listing))).toMatch(/^SaleType is required$/);
    const valid = {
      SerialNumber: "a",
      SaleType: "for_sale",
      Status: "Active",
      CurrencySymbol: "$",
      PropertyType: "Condo",
      Bedrooms: 2,
      Bathrooms: 1,
      Url: "https://x.example/1",
      MLSNumber: "M1",
      YearBuilt: 2000,
      DaysOnMarket: 1,
      LotArea: 0,
      BuildingArea: 800,
      AreaUnit: "Square Feet",
      ParkingSpots: 1,
    };
    expect(
      message(() => parseRequest(createListingSchema, { ...valid, ExtensionColumn: [{ Key: "Pets", value: 3 }] })),
    ).toBe("ExtensionColumn[0].value must be a string");
  });

  it("matches field names in any letter case, and refuses the same name twice", () => {
    expect(parseRequest(listListingsSchema, { serialnumber: "a", cityname: "Austin", PAGESIZE: 5 })).toEqual({
      SerialNumber: "a",
      CityName: "Austin",
      PageNumber: 1,
      PageSize: 5,
    });
    expect(message(() => parseRequest(listListingsSchema, { SerialNumber: "a", serialNumber: "b" }))).toBe(
      "SerialNumber is given twice (as SerialNumber and serialNumber)",
    );
  });
});
