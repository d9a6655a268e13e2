import { describe, expect, it } from "vitest";
import { z } from "zod";
import { askSchema } from "../../../src/api/requests/chat.js";
import { addChatbotSchema, historySchema } from "../../../src/api/requests/chatbot.js";
import { confirmUploadSchema } from "../../../src/api/requests/files.js";
import {
  createListingSchema,
  deleteListingsSchema,
  listListingsSchema,
  updateListingSchema,
} from "../../../src/api/requests/listing.js";
import { createEngines } from "../../../src/server/engine/registry.js";
import { ApiError, MAX_LISTED_PROBLEMS } from "../../../src/server/http/api-error.js";
import { editChatbotSchemaFor } from "../../../src/server/schemas/edit-chatbot.js";
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

/** The problems of a 400, without the "Invalid request: " prefix. */
function problems(run: () => unknown): string[] {
  const text = message(run);
  expect(text.startsWith("Invalid request: ")).toBe(true);
  return text.slice("Invalid request: ".length).split("; ");
}

const engines = createEngines({ baseUrl: undefined, apiKey: undefined, model: undefined });
const editSchema = editChatbotSchemaFor(engines);

const validListing = {
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

describe("parseRequest", () => {
  it("lists every missing required field at once, in the spec's field order", () => {
    expect(message(() => parseRequest(createListingSchema, { SerialNumber: "a" }))).toBe(
      "Invalid request: SaleType is required; Status is required; CurrencySymbol is required; " +
        "PropertyType is required; Bedrooms is required; Bathrooms is required; Url is required; " +
        "MLSNumber is required; YearBuilt is required; DaysOnMarket is required; LotArea is required; " +
        "BuildingArea is required; AreaUnit is required; ParkingSpots is required",
    );
    // The same body gives the same message, whatever order its fields came in.
    const scrambled = { ParkingSpots: "1", Bedrooms: -1, SerialNumber: "a", SaleType: "sale" };
    const reversed = Object.fromEntries(Object.entries(scrambled).reverse());
    expect(message(() => parseRequest(createListingSchema, scrambled))).toBe(
      message(() => parseRequest(createListingSchema, reversed)),
    );
  });

  it("says each kind of problem in words, naming the whole valid range of a number", () => {
    const listing = (overrides: Record<string, unknown>) => () =>
      parseRequest(createListingSchema, { ...validListing, ...overrides });
    expect(problems(listing({ Bedrooms: "3" }))).toEqual([
      "Bedrooms must be a whole number from 0 to 1,000, not a string",
    ]);
    expect(problems(listing({ Bedrooms: -1 }))).toEqual(["Bedrooms must be a whole number from 0 to 1,000"]);
    expect(problems(listing({ Bedrooms: 2.5 }))).toEqual(["Bedrooms must be a whole number from 0 to 1,000"]);
    expect(problems(listing({ Bathrooms: [2] }))).toEqual(["Bathrooms must be a number from 0 to 1,000, not an array"]);
    // A sanity cap far beyond real values is named only when it is broken.
    expect(problems(listing({ SalePrice: -5 }))).toEqual(["SalePrice must be a number ≥ 0"]);
    expect(problems(listing({ SalePrice: 2e12 }))).toEqual(["SalePrice must be a number from 0 to 1,000,000,000,000"]);
    expect(problems(listing({ Latitude: null }))).toEqual(["Latitude must be a number from -90 to 90, not null"]);
    expect(problems(listing({ SaleType: "sale" }))).toEqual(["SaleType must be for_sale or for_rent"]);
    expect(problems(listing({ Status: null }))).toEqual(["Status must be Active, PreOnMarket or Sold, not null"]);
    expect(problems(listing({ PropertyType: " " }))).toEqual(["PropertyType must not be empty"]);
    expect(problems(listing({ CurrencySymbol: "dollars!!" }))).toEqual([
      "CurrencySymbol must have at most 8 characters",
    ]);
    expect(problems(listing({ Description: {} }))).toEqual(["Description must be a string, not an object"]);
    expect(problems(listing({ Images: "https://x.example/a.jpg" }))).toEqual([
      "Images must be an array of strings, not a string",
    ]);
    expect(problems(listing({ Images: Array(101).fill("https://x.example/a.jpg") }))).toEqual([
      "Images must list at most 100 items",
    ]);
    expect(problems(() => parseRequest(listListingsSchema, { SerialNumber: "a", PageSize: 500 }))).toEqual([
      "PageSize must be a whole number from 1 to 100",
    ]);
    expect(problems(() => parseRequest(editSchema, { serialNumber: "a", ChatbotPopupOnce: "yes" }))).toEqual([
      "ChatbotPopupOnce must be true or false, not a string",
    ]);
    expect(problems(() => parseRequest(editSchema, { serialNumber: "a", ChatBubbleAlign: 2 }))).toEqual([
      "ChatBubbleAlign must be 0 or 1",
    ]);
    expect(problems(() => parseRequest(editSchema, { serialNumber: "a", MessageLimit: -2 }))).toEqual([
      "MessageLimit must be a whole number from -1 to 100,000,000",
    ]);
  });

  it("uses a schema's own wording where it has one", () => {
    expect(problems(() => parseRequest(deleteListingsSchema, { SerialNumber: "a", Keys: [], KeyType: "URL" }))).toEqual(
      ["Keys must list at least one key"],
    );
    expect(problems(() => parseRequest(editSchema, { serialNumber: "a", ChatBubbleColor: "rgb(300,0,0)" }))).toEqual([
      "ChatBubbleColor must be a colour like rgb(37,99,235) with values from 0 to 255",
    ]);
    expect(problems(() => parseRequest(editSchema, { serialNumber: "a", TalkToHumanEmail: "nope" }))).toEqual([
      "TalkToHumanEmail must be an e-mail address",
    ]);
    expect(problems(() => parseRequest(editSchema, { serialNumber: "a", TimeZone: "Mars/Base" }))).toEqual([
      "TimeZone must be an IANA time zone such as America/New_York",
    ]);
    expect(problems(() => parseRequest(addChatbotSchema, { timeZone: "UTC", type: 1 }))).toEqual([
      "type must be 0 (generic chatbot)",
    ]);
    // A missing field is "required" even where the schema words its wrong values itself.
    expect(problems(() => parseRequest(addChatbotSchema, {}))).toEqual(["timeZone is required", "type is required"]);
    for (const FileStoreId of ["abc", 0, 1.5, true, null, {}]) {
      expect(problems(() => parseRequest(confirmUploadSchema, { FileStoreId }))).toEqual([
        "FileStoreId must be a file id as GetPreUploadUrl gave it: a number, or the same as a string",
      ]);
    }
  });

  it("names nested fields with their index", () => {
    const nested = {
      ...validListing,
      Images: ["https://x.example/a.jpg", "https://x.example/b.jpg", "b.jpg", 4],
      ExtensionColumn: [
        { Key: "Pets", value: "yes" },
        { Key: "", value: 3 },
      ],
    };
    expect(problems(() => parseRequest(createListingSchema, nested))).toEqual([
      "Images[2] must be an http(s) URL",
      "Images[3] must be a string, not a number",
      "ExtensionColumn[1].Key must not be empty",
      "ExtensionColumn[1].value must be a string, not a number",
    ]);
  });

  it("lists the rules between fields along with the fields' own problems", () => {
    expect(problems(() => parseRequest(askSchema, { sessionID: "12", content: " " }))).toEqual([
      "sessionID must be a whole number ≥ 1, not a string",
      "content must not be empty when chatAskType is Text",
    ]);
    expect(problems(() => parseRequest(askSchema, { content: "", chatAskType: "Audio", fileIds: [1, 2] }))).toEqual([
      "sessionID is required",
      "fileIds must hold exactly one file for Audio",
    ]);
    expect(problems(() => parseRequest(askSchema, { sessionID: 1, content: "hi", chatAskType: "Image" }))).toEqual([
      "fileIds is required when chatAskType is Image",
    ]);
    // A rule whose own fields are wrong is not judged: their problems say enough.
    expect(problems(() => parseRequest(askSchema, { sessionID: 1, content: 5 }))).toEqual([
      "content must be a string, not a number",
    ]);
    const dates = { StartTime: "2025-03-02", EndTime: "2025-03-01" };
    expect(problems(() => parseRequest(historySchema, dates))).toEqual([
      "SerialNumber is required",
      "StartTime must not be after EndTime",
    ]);
    expect(problems(() => parseRequest(editSchema, { serialNumber: "", Model: "999", Name: "" }))).toEqual([
      "serialNumber must not be empty",
      "Name must not be empty",
      "Model must be the Key of a model ModelList shows as available: 1 (chatbridge-listings)",
    ]);
    const update = { ...validListing, Key: "", KeyType: "Id", SaleType: undefined };
    expect(problems(() => parseRequest(updateListingSchema, update))).toEqual([
      "Key must not be empty",
      "KeyType must be NewOaks, MLSNumber or URL",
      "SaleType is required",
    ]);
  });

  it(`lists at most ${MAX_LISTED_PROBLEMS} problems, then how many more there are`, () => {
    const keys = Array.from({ length: 1000 }, (_, index) => index);
    const listed = problems(() =>
      parseRequest(deleteListingsSchema, { SerialNumber: "a", Keys: keys, KeyType: "URL" }),
    );
    expect(listed).toHaveLength(MAX_LISTED_PROBLEMS + 1);
    expect(listed[0]).toBe("Keys[0] must be a string, not a number");
    expect(listed.at(-1)).toBe(`and ${1000 - MAX_LISTED_PROBLEMS} more`);
  });

  it("matches field names in any letter case, refuses the same name twice, and ignores unknown fields", () => {
    expect(parseRequest(listListingsSchema, { serialnumber: "a", cityname: "Austin", PAGESIZE: 5 })).toEqual({
      SerialNumber: "a",
      CityName: "Austin",
      PageNumber: 1,
      PageSize: 5,
    });
    expect(
      problems(() => parseRequest(listListingsSchema, { SerialNumber: "a", serialNumber: "b", PageSize: 0 })),
    ).toEqual([
      "SerialNumber is given twice (as SerialNumber and serialNumber)",
      "PageSize must be a whole number from 1 to 100",
    ]);
    // A "__proto__" key (JSON.parse makes it an own property) is no field: it can neither fill nor hide one.
    const hostile = JSON.parse('{"__proto__": {"SerialNumber": "smuggled"}, "PageSize": 5}');
    expect(problems(() => parseRequest(listListingsSchema, hostile))).toEqual(["SerialNumber is required"]);
    const parsed = parseRequest(listListingsSchema, { ...JSON.parse('{"__proto__": {"x": 1}}'), SerialNumber: "a" });
    expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype);
  });

  it("never shows zod's own wording", () => {
    const schema = z.object({ n: z.number().multipleOf(5), s: z.email(), t: z.tuple([z.string()]) });
    const listed = problems(() => parseRequest(schema, { n: 7, s: "x", t: [1] }));
    expect(listed).toEqual([
      "n must be a multiple of 5",
      "s must be an e-mail address",
      "t[0] must be a string, not a number",
    ]);
    for (const text of listed) expect(text).not.toMatch(/Invalid|Too (small|big)|expected|received/);
  });
});
