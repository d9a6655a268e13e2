import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, expectTypeOf, it } from "vitest";
import { API_ROOT, OPERATIONS, type RequestOf } from "../../src/api/operations.js";
import type {
  HistoryQuery,
  LeadInput,
  LeadQuery,
  ListingDeletion,
  ListingInput,
  ListingQuery,
  ListingUpdate,
} from "../../src/api/types.js";

const SRC = fileURLToPath(new URL("../../src/", import.meta.url));

/** Every `from "…"` of the TypeScript files under `folder`, as `file: specifier`. */
function importsUnder(folder: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(path.join(SRC, folder), { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith(".ts")) continue;
    const file = path.join(entry.parentPath, entry.name);
    for (const match of readFileSync(file, "utf8").matchAll(/from "([^"]+)"/g)) {
      found.push(`${path.relative(SRC, file)}: ${match[1]}`);
    }
  }
  return found;
}

describe("the API's table", () => {
  const rows = Object.values(OPERATIONS);

  it("has one row per name and per path, every path under the API's root", () => {
    expect(new Set(rows.map((row) => row.name)).size).toBe(rows.length);
    expect(new Set(rows.map((row) => row.path.toLowerCase())).size).toBe(rows.length);
    for (const row of rows) expect(row.path.startsWith(`${API_ROOT}/`), row.name).toBe(true);
  });

  it("sends a key the operation accepts", () => {
    for (const row of rows) {
      const sent = row.sends === "every" ? ["secret", "session"] : [row.sends];
      expect(
        sent.some((key) => row.accepts.some((accepted) => accepted === key)),
        row.name,
      ).toBe(true);
    }
  });

  it("marks only reads as safe to retry", () => {
    const retried = rows.filter((row) => row.retrySafe).map((row) => row.name);
    expect(retried.sort()).toEqual(["ChatContentHistory", "Get", "LeadList", "ModelList", "RealEstateList"]);
  });
});

describe("the API's types and its request schemas", () => {
  it("agree: a body the types allow is one the schemas' types take", () => {
    // ChatbotSettings is left out on purpose: the server narrows what the hosted docs leave open (ChatBubbleAlign).
    expectTypeOf<ListingInput>().toExtend<RequestOf<typeof OPERATIONS.createListing>>();
    expectTypeOf<ListingUpdate>().toExtend<RequestOf<typeof OPERATIONS.updateListing>>();
    expectTypeOf<ListingQuery>().toExtend<RequestOf<typeof OPERATIONS.listListings>>();
    expectTypeOf<ListingDeletion>().toExtend<RequestOf<typeof OPERATIONS.deleteListings>>();
    expectTypeOf<HistoryQuery>().toExtend<RequestOf<typeof OPERATIONS.chatHistory>>();
    expectTypeOf<LeadQuery>().toExtend<RequestOf<typeof OPERATIONS.listLeads>>();
    expectTypeOf<LeadInput & { Type: "Handoff" }>().toExtend<RequestOf<typeof OPERATIONS.addLead>>();
  });
});

describe("the response schemas are lenient where the hosted platform is loose", () => {
  it("read members in any case and ids sent as numeric strings", () => {
    expect(OPERATIONS.getSession.response.parse({ sessionid: "42" })).toBe(42);
    expect(OPERATIONS.listListings.response.parse({ list: [], virtualCount: 3, Extra: null })).toEqual({
      List: [],
      VirtualCount: 3,
    });
    expect(OPERATIONS.preUpload.response.parse({ FileStoreId: "7", PreUploadUrl: "https://s3/x" })).toEqual({
      FileStoreId: 7,
      PreUploadUrl: "https://s3/x",
    });
  });

  it("pass on the members of objects the client does not read", () => {
    const lead = { Type: "Lead", Name: "Ann", Content: "", SessionID: null, CreateTime: "", Score: 3 };
    expect(OPERATIONS.listLeads.response.parse([lead])).toEqual([lead]);
  });

  it("read a model's missing Key as empty and any Status but true as unavailable", () => {
    expect(OPERATIONS.listModels.response.parse([{ key: "m", Status: "true" }])).toEqual([
      { Key: "m", Value: "", Status: false },
    ]);
  });

  it("say what a wrong value should have been", () => {
    const result = OPERATIONS.getSession.response.safeParse({ SessionID: "abc" }, { reportInput: true });
    expect(result.error?.issues[0]).toMatchObject({ path: ["SessionID"], message: "an integer", input: "abc" });
  });
});

describe("the contract's boundaries", () => {
  it("src/api imports neither the client, the server, the bridge nor the adapters", () => {
    expect(importsUnder("api").filter((line) => /\/(client|server|bridge)\/|adapters\//.test(line))).toEqual([]);
  });

  it("the client and the server do not import each other", () => {
    expect(importsUnder("client").filter((line) => line.includes("/server/"))).toEqual([]);
    expect(importsUnder("server").filter((line) => line.includes("/client/"))).toEqual([]);
  });
});
