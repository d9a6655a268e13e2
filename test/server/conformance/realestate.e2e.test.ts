import { describe, expect, it } from "vitest";
import type { ListingInput } from "../../../src/api/types.js";
import { ChatbotApiError } from "../../../src/client/errors.js";
import {
  type ApiHarness,
  availableBackends,
  expectFailure,
  expectSuccess,
  sampleListing,
  type Tenant,
  useApiHarness,
} from "../../support/api-harness.js";

/** The fields of a RealEstateList item, exactly as the spec's table lists them. */
const LIST_ITEM_FIELDS = [
  "ID",
  "PropertyType",
  "SaleType",
  "Status",
  "Images",
  "CurrencySymbol",
  "State",
  "City",
  "Address",
  "ZIP",
  "Area",
  "Url",
  "Tours",
  "MLSNumber",
  "Description",
  "SpaceType",
  "Price",
  "LATITUDE",
  "LONGITUDE",
  "Bathrooms",
  "Bedrooms",
  "YearBuilt",
  "DaysOnMarket",
  "LotArea",
  "BuildingArea",
  "ParkingSpots",
  "ExtensionColumn",
  "RentPrice",
  "DepositFee",
  "SalePrice",
  "UnitAreaPrice",
  "ZestimatePrice",
  "HOAMonth",
].sort();

const CREATE = "/chat/Chatbot/RealEstateCreate";
const UPDATE = "/chat/Chatbot/RealEstateUpdate";
const LIST = "/chat/Chatbot/RealEstateList";
const DELETE = "/chat/Chatbot/RealEstateDelete";

async function create(api: ApiHarness, t: Tenant, listing: ListingInput): Promise<string> {
  const response = await api.call(CREATE, listing, t.secret);
  expectSuccess(response);
  expect(response.body.Data).toMatch(/^[1-9]\d*$/);
  return response.body.Data as string;
}

async function list(api: ApiHarness, t: Tenant, query: Record<string, unknown>) {
  const response = await api.call(LIST, query, t.session);
  expectSuccess(response);
  expect(Object.keys(response.body.Data).sort()).toEqual(["List", "VirtualCount"]);
  return response.body.Data as { List: Record<string, unknown>[]; VirtualCount: number };
}

describe.each(await availableBackends())("real estate listings (%s)", (backend) => {
  const api = useApiHarness(backend);

  it("creates a listing and lists it with exactly the spec's item fields, numbers as text", async () => {
    const serial = await api.addChatbot(api.a);
    const input = sampleListing(serial, {
      City: "Austin",
      State: "TX",
      Address: "12 Oak St",
      ZIP: "78701",
      Location: "Downtown",
      Latitude: 30.27,
      Longitude: -97.74,
      SalePrice: 450000,
      UnitAreaPrice: 180,
      HOAMonth: 75.5,
      ZestimatePrice: 460000,
      DepositFee: 0,
      Images: ["https://example.com/img1.jpg", "https://example.com/img2.jpg"],
      Tours: "3D",
      Description: "Beautiful family home",
      ExtensionColumn: [
        { Key: "Pool", value: "yes" },
        { Key: "View", value: 'lake, "west"' },
      ],
      SpaceType: "Entire place",
    });
    const id = await create(api, api.a, input);
    const page = await list(api, api.a, { SerialNumber: serial });
    expect(page.VirtualCount).toBe(1);
    const [item] = page.List;
    expect(Object.keys(item ?? {}).sort()).toEqual(LIST_ITEM_FIELDS);
    expect(item).toEqual({
      ID: Number(id),
      PropertyType: "Single Family Residential",
      SaleType: "for_sale",
      Status: "Active",
      Images: "https://example.com/img1.jpg,https://example.com/img2.jpg",
      CurrencySymbol: "$",
      State: "TX",
      City: "Austin",
      Address: "12 Oak St",
      ZIP: "78701",
      Area: "Downtown",
      Url: input.Url,
      Tours: "3D",
      MLSNumber: input.MLSNumber,
      Description: "Beautiful family home",
      SpaceType: "Entire place",
      Price: "450000",
      LATITUDE: 30.27,
      LONGITUDE: -97.74,
      Bathrooms: "2.5",
      Bedrooms: "3",
      YearBuilt: "1998",
      DaysOnMarket: "2",
      LotArea: "800",
      BuildingArea: "2500",
      ParkingSpots: "2",
      ExtensionColumn: expect.any(String),
      RentPrice: "",
      DepositFee: "0",
      SalePrice: "450000",
      UnitAreaPrice: "180",
      ZestimatePrice: "460000",
      HOAMonth: "75.5",
    });
    expect(JSON.parse(item?.ExtensionColumn as string)).toEqual(input.ExtensionColumn);
  });

  it("prices a rental by RentPrice and leaves every unset value empty", async () => {
    const serial = await api.addChatbot(api.a);
    await create(api, api.a, sampleListing(serial, { SaleType: "for_rent", RentPrice: 2100, SalePrice: 999999 }));
    await create(api, api.a, sampleListing(serial, { SaleType: "for_rent" }));
    const [bare, rental] = (await list(api, api.a, { SerialNumber: serial })).List;
    expect(rental).toMatchObject({ SaleType: "for_rent", Price: "2100", RentPrice: "2100", SalePrice: "999999" });
    expect(bare).toMatchObject({ Price: "", RentPrice: "", SalePrice: "", DepositFee: "", HOAMonth: "" });
    expect(bare).toMatchObject({ Images: "", ExtensionColumn: "", City: "", Area: "", Tours: "", SpaceType: "" });
    expect(bare).toMatchObject({ LATITUDE: null, LONGITUDE: null });
  });

  it("lists newest first, pages, and counts every match in VirtualCount", async () => {
    const serial = await api.addChatbot(api.a);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push(await create(api, api.a, sampleListing(serial)));
    const page = async (PageNumber: number) =>
      list(api, api.a, { SerialNumber: serial, PageSize: 2, PageNumber }).then((data) => ({
        ids: data.List.map((item) => String(item.ID)),
        count: data.VirtualCount,
      }));
    expect(await page(1)).toEqual({ ids: [ids[4], ids[3]], count: 5 });
    expect(await page(2)).toEqual({ ids: [ids[2], ids[1]], count: 5 });
    expect(await page(3)).toEqual({ ids: [ids[0]], count: 5 });
    expect(await page(4)).toEqual({ ids: [], count: 5 });
  });

  it("defaults to page 1 of 20", async () => {
    const serial = await api.addChatbot(api.a);
    const ids: string[] = [];
    for (let i = 0; i < 22; i++) ids.push(await create(api, api.a, sampleListing(serial)));
    const data = await list(api, api.a, { SerialNumber: serial });
    expect(data.VirtualCount).toBe(22);
    expect(data.List.map((item) => String(item.ID))).toEqual(ids.slice(2).reverse());
  });

  it("filters by city (case-insensitive, whole name), SaleType and MLSNumber", async () => {
    const serial = await api.addChatbot(api.a);
    const austinSale = await create(api, api.a, sampleListing(serial, { City: "Austin" }));
    const austinRent = await create(api, api.a, sampleListing(serial, { City: "AUSTIN", SaleType: "for_rent" }));
    const denver = sampleListing(serial, { City: "Denver" });
    const denverId = await create(api, api.a, denver);
    const ids = async (query: Record<string, unknown>) => {
      const data = await list(api, api.a, { SerialNumber: serial, ...query });
      expect(data.VirtualCount).toBe(data.List.length);
      return data.List.map((item) => String(item.ID));
    };
    expect(await ids({ CityName: "aUsTiN" })).toEqual([austinRent, austinSale]);
    expect(await ids({ CityName: "Aus" })).toEqual([]);
    expect(await ids({ SaleType: "for_rent" })).toEqual([austinRent]);
    expect(await ids({ SaleType: "for_sale" })).toEqual([denverId, austinSale]);
    expect(await ids({ CityName: "austin", SaleType: "for_sale" })).toEqual([austinSale]);
    expect(await ids({ MLSNumber: denver.MLSNumber })).toEqual([denverId]);
    expect(await ids({ MLSNumber: "MLS-none" })).toEqual([]);
  });

  it("updates by the created id (KeyType NewOaks), by MLSNumber and by URL", async () => {
    const serial = await api.addChatbot(api.a);
    const original = sampleListing(serial, { City: "Austin", SalePrice: 400000 });
    const id = await create(api, api.a, original);
    const update = async (Key: string, KeyType: string, changes: Partial<ListingInput>) => {
      const body = { ...original, ...changes, Key, KeyType };
      expectSuccess(await api.call(UPDATE, body, api.a.secret), 1);
      Object.assign(original, changes);
    };
    await update(id, "NewOaks", { SalePrice: 410000, Status: "PreOnMarket" });
    await update(original.MLSNumber, "MLSNumber", { MLSNumber: "MLS-renamed", City: "Round Rock" });
    await update(original.Url, "URL", { Url: "https://example.com/renamed", Status: "Sold" });
    const data = await list(api, api.a, { SerialNumber: serial });
    expect(data.VirtualCount).toBe(1);
    expect(data.List[0]).toMatchObject({
      ID: Number(id),
      Status: "Sold",
      Price: "410000",
      City: "Round Rock",
      MLSNumber: "MLS-renamed",
      Url: "https://example.com/renamed",
    });
  });

  it("answers 404 to an update whose key finds no listing, for every KeyType", async () => {
    const listing = sampleListing(api.a.serialNumber);
    for (const [Key, KeyType] of [
      ["987654321", "NewOaks"],
      ["abc", "NewOaks"],
      ["MLS-nowhere", "MLSNumber"],
      ["https://example.com/nowhere", "URL"],
    ] as [string, string][]) {
      const response = await api.call(UPDATE, { ...listing, Key, KeyType }, api.a.secret);
      expectFailure(response, 404, new RegExp(`No listing with .*${Key.replace(/[./]/g, "\\$&")}`));
    }
    // A listing of another workspace's chatbot is not found through one's own chatbot either.
    const foreignId = await create(api, api.b, sampleListing(api.b.serialNumber));
    const response = await api.call(UPDATE, { ...listing, Key: foreignId, KeyType: "NewOaks" }, api.a.secret);
    expectFailure(response, 404, /No listing with NewOaks id/);
  });

  it("refuses a second listing with the same MLSNumber or Url in a chatbot (409), not across chatbots", async () => {
    const serial = await api.addChatbot(api.a);
    const first = sampleListing(serial);
    const firstId = await create(api, api.a, first);
    const sameMls = await api.call(CREATE, sampleListing(serial, { MLSNumber: first.MLSNumber }), api.a.secret);
    expectFailure(sameMls, 409, `MLSNumber ${first.MLSNumber} is already used by listing ${firstId}`);
    const sameUrl = await api.call(CREATE, sampleListing(serial, { Url: first.Url }), api.a.secret);
    expectFailure(sameUrl, 409, `Url ${first.Url} is already used by listing ${firstId}`);
    const second = sampleListing(serial);
    const secondId = await create(api, api.a, second);
    const clash = await api.call(
      UPDATE,
      { ...second, MLSNumber: first.MLSNumber, Key: secondId, KeyType: "NewOaks" },
      api.a.secret,
    );
    expectFailure(clash, 409, /^MLSNumber .* is already used by listing/);
    // Keeping its own MLSNumber and Url is no clash; another chatbot may reuse them.
    expectSuccess(await api.call(UPDATE, { ...second, Key: secondId, KeyType: "NewOaks" }, api.a.secret), 1);
    await create(api, api.b, { ...first, SerialNumber: api.b.serialNumber });
    expect((await list(api, api.a, { SerialNumber: serial })).VirtualCount).toBe(2);
  });

  it("deletes by NewOaks id, MLSNumber and URL, counting only listings that existed", async () => {
    const serial = await api.addChatbot(api.a);
    const listings = Array.from({ length: 5 }, () => sampleListing(serial));
    const ids: string[] = [];
    for (const listing of listings) ids.push(await create(api, api.a, listing));
    const remove = (Keys: string[], KeyType: string) =>
      api.call(DELETE, { SerialNumber: serial, Keys, KeyType }, api.a.session);
    expectSuccess(await remove([ids[0] ?? "", ids[1] ?? "", "987654321", "abc", ids[0] ?? ""], "NewOaks"), {
      SuccessCount: 2,
    });
    expectSuccess(await remove([listings[2]?.MLSNumber ?? "", "MLS-nowhere"], "MLSNumber"), { SuccessCount: 1 });
    expectSuccess(await remove([listings[3]?.Url ?? ""], "URL"), { SuccessCount: 1 });
    expectSuccess(await remove([ids[0] ?? ""], "NewOaks"), { SuccessCount: 0 });
    const rest = await list(api, api.a, { SerialNumber: serial });
    expect(rest.List.map((item) => String(item.ID))).toEqual([ids[4]]);
    // Another workspace's listing id deletes nothing through one's own chatbot.
    const foreign = await create(api, api.b, sampleListing(api.b.serialNumber));
    expectSuccess(await remove([foreign], "NewOaks"), { SuccessCount: 0 });
    expect((await list(api, api.b, { SerialNumber: api.b.serialNumber })).List.map((i) => String(i.ID))).toContain(
      foreign,
    );
  });

  it("accepts the secret key or the session key on Create, Update and Delete; List wants the session key", async () => {
    const listing = sampleListing(api.a.serialNumber);
    const id = (await api.call(CREATE, listing, api.a.session)).body.Data as string;
    expect(id).toMatch(/^\d+$/);
    expectSuccess(await api.call(UPDATE, { ...listing, Key: id, KeyType: "NewOaks" }, api.a.session), 1);
    const secretList = await api.call(LIST, { SerialNumber: api.a.serialNumber }, api.a.secret);
    expectFailure(
      secretList,
      401,
      "RealEstateList needs the session key in chatrobot-sessionkey; Authorization (the secret key) is not accepted here",
    );
    const deleted = await api.call(
      DELETE,
      { SerialNumber: api.a.serialNumber, Keys: [id], KeyType: "NewOaks" },
      {
        ...api.a.secret,
      },
    );
    expectSuccess(deleted, { SuccessCount: 1 });
  });

  it("accepts field names in any letter case and the spec's samples without Content-Type", async () => {
    const serial = await api.addChatbot(api.a);
    const { SerialNumber: _, SaleType, ...rest } = sampleListing(serial);
    const id = await create(api, api.a, { serialnumber: serial, SALETYPE: SaleType, ...rest } as never);
    const response = await api.call(LIST, JSON.stringify({ SERIALNUMBER: serial, cityname: "" }), {
      ...api.a.session,
      "content-type": "application/x-www-form-urlencoded",
    });
    expectSuccess(response);
    expect(response.body.Data.List.map((item: { ID: number }) => String(item.ID))).toEqual([id]);
  });

  it("validates fields, naming the field and the problem", async () => {
    const serial = api.a.serialNumber;
    const { SerialNumber: _, ...withoutSerial } = sampleListing(serial);
    const cases: [string, unknown, string | RegExp][] = [
      [CREATE, withoutSerial, "SerialNumber is required"],
      [CREATE, sampleListing(serial, { SaleType: "for_lease" as never }), "SaleType must be for_sale or for_rent"],
      [CREATE, sampleListing(serial, { Status: "Pending" as never }), "Status must be Active, PreOnMarket or Sold"],
      [CREATE, sampleListing(serial, { AreaUnit: "Acres" as never }), "AreaUnit must be Square Feet or Square Meters"],
      [CREATE, sampleListing(serial, { Tours: "Video" as never }), "Tours must be OpenHouse or 3D"],
      [
        CREATE,
        sampleListing(serial, { Bedrooms: "3" as never }),
        "Bedrooms must be a whole number from 0 to 1,000, not a string",
      ],
      [CREATE, sampleListing(serial, { Url: "not a url" }), "Url must be an http(s) URL"],
      [CREATE, sampleListing(serial, { Latitude: 91 }), "Latitude must be a number from -90 to 90"],
      [
        CREATE,
        sampleListing(serial, { ExtensionColumn: [{ key: "x", value: "y" }] as never }),
        "ExtensionColumn[0].Key is required",
      ],
      [UPDATE, { ...sampleListing(serial), Key: "1" }, "KeyType is required"],
      [UPDATE, { ...sampleListing(serial), Key: "1", KeyType: "Id" }, "KeyType must be NewOaks, MLSNumber or URL"],
      [DELETE, { SerialNumber: serial, Keys: [], KeyType: "NewOaks" }, "Keys must list at least one key"],
      [DELETE, { SerialNumber: serial, Keys: ["1"] }, "KeyType is required"],
    ];
    for (const [path, body, problem] of cases) {
      expectFailure(await api.call(path, body, api.a.secret), 400, `Invalid request: ${problem}`);
    }
    const listCases: [Record<string, unknown>, string][] = [
      [{ SerialNumber: serial, PageSize: 101 }, "PageSize must be a whole number from 1 to 100"],
      [{ SerialNumber: serial, PageNumber: 0 }, "PageNumber must be a whole number from 1 to 1,000,000"],
      [{ SerialNumber: serial, SaleType: "rent" }, "SaleType must be for_sale or for_rent"],
      [{ PageSize: 5 }, "SerialNumber is required"],
    ];
    for (const [body, problem] of listCases) {
      expectFailure(await api.call(LIST, body, api.a.session), 400, `Invalid request: ${problem}`);
    }
  });

  it("names every problem of a request in one answer, so that a create takes one round trip to fix", async () => {
    const serial = api.a.serialNumber;
    expectFailure(
      await api.call(CREATE, { SerialNumber: serial }, api.a.secret),
      400,
      "Invalid request: SaleType is required; Status is required; CurrencySymbol is required; " +
        "PropertyType is required; Bedrooms is required; Bathrooms is required; Url is required; " +
        "MLSNumber is required; YearBuilt is required; DaysOnMarket is required; LotArea is required; " +
        "BuildingArea is required; AreaUnit is required; ParkingSpots is required",
    );
    const wrong = sampleListing(serial, {
      Bedrooms: -1,
      SaleType: null as never,
      Images: ["https://example.com/a.jpg", "a.jpg"],
      SalePrice: "450000" as never,
    });
    expectFailure(
      await api.call(CREATE, wrong, api.a.secret),
      400,
      "Invalid request: SaleType must be for_sale or for_rent, not null; Bedrooms must be a whole number from 0 to 1,000; " +
        "Images[1] must be an http(s) URL; SalePrice must be a number ≥ 0, not a string",
    );
    const deletion = { SerialNumber: "", Keys: [], KeyType: "id" };
    expectFailure(
      await api.call(DELETE, deletion, api.a.secret),
      400,
      "Invalid request: SerialNumber must not be empty; Keys must list at least one key; KeyType must be NewOaks, MLSNumber or URL",
    );
    // Nothing was stored by any of them.
    expect((await list(api, api.a, { SerialNumber: serial })).List.map((item) => item.Url)).not.toContain(wrong.Url);
    // The project's client hands the whole message on, once (a 400 is not retried).
    const refused = await api
      .client(api.a)
      .createListing(sampleListing(serial, { Bedrooms: -1, Url: "nope" }))
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ChatbotApiError);
    expect(refused).toMatchObject({ kind: "http", status: 400, code: 400 });
    expect((refused as ChatbotApiError).detail).toBe(
      "Invalid request: Bedrooms must be a whole number from 0 to 1,000; Url must be an http(s) URL",
    );
  });

  it("accepts a listing without the price of its SaleType: RealEstateList shows it empty, answers say on request", async () => {
    const serial = await api.addChatbot(api.a, { WelcomeMessage: "Hi" });
    const forSale = sampleListing(serial, { City: "Quietville", PropertyType: "Villa", MLSNumber: "MLS-POA-1" });
    const forRent = sampleListing(serial, {
      City: "Quietville",
      PropertyType: "Loft",
      MLSNumber: "MLS-POA-2",
      SaleType: "for_rent",
      SalePrice: 300000, // the price of the other kind is no rent
    });
    const saleId = await create(api, api.a, forSale);
    await create(api, api.a, forRent);
    const items = (await list(api, api.a, { SerialNumber: serial })).List;
    for (const item of items) expect(item).toMatchObject({ Price: "", RentPrice: "" });
    expect(items.map((item) => item.SalePrice).sort()).toEqual(["", "300000"]);

    const sessionID = await api.openSession(api.a, serial);
    const ask = async (content: string) => {
      const response = await api.call("/chat/Chat/ClientAsk", { sessionID, content }, api.a.secret);
      expectSuccess(response);
      return response.body.Data.content as string;
    };
    const listed = await ask("Homes in Quietville?");
    expect(listed).toContain("Villa for sale · price on request · 3 beds");
    expect(listed).toContain("Loft for rent · price on request · 3 beds");
    expect(await ask("Tell me about MLS-POA-1")).toContain("Price: on request");
    expect(await ask("Tell me about MLS-POA-2")).toContain("Rent: on request");

    // An update that switches the sale type without giving the new kind's price: on request too.
    const switched = { ...forSale, SaleType: "for_rent" as const, SalePrice: 510000, Key: saleId, KeyType: "NewOaks" };
    expectSuccess(await api.call(UPDATE, switched, api.a.secret), 1);
    expect(await ask("Tell me about MLS-POA-1")).toContain("Rent: on request");
    // With its price back, the listing shows it.
    const priced = { ...switched, RentPrice: 2400 };
    expectSuccess(await api.call(UPDATE, priced, api.a.secret), 1);
    expect(await ask("Tell me about MLS-POA-1")).toContain("Rent: $2,400/month");
  });

  it("answers another workspace's chatbot exactly like an unknown one, on every listing operation", async () => {
    const unknown = "0123456789abcdef0123456789abcdef";
    const bodies = (serial: string): [string, unknown, Record<string, string>][] => [
      [CREATE, sampleListing(serial), api.a.secret],
      [UPDATE, { ...sampleListing(serial), Key: "1", KeyType: "NewOaks" }, api.a.secret],
      [LIST, { SerialNumber: serial }, api.a.session],
      [DELETE, { SerialNumber: serial, Keys: ["1"], KeyType: "NewOaks" }, api.a.secret],
    ];
    const before = (await list(api, api.b, { SerialNumber: api.b.serialNumber })).VirtualCount;
    const foreign = bodies(api.b.serialNumber);
    const missing = bodies(unknown);
    for (const [index, [path, body, headers]] of foreign.entries()) {
      const theirs = await api.call(path, body, headers);
      const [, unknownBody, unknownHeaders] = missing[index] ?? [];
      const nobody = await api.call(path, unknownBody, unknownHeaders);
      expectFailure(theirs, 404, `Chatbot ${api.b.serialNumber} not found`);
      expectFailure(nobody, 404, `Chatbot ${unknown} not found`);
      expect({ ...theirs.body, Message: theirs.body.Message.replace(api.b.serialNumber, "X") }).toEqual({
        ...nobody.body,
        Message: nobody.body.Message.replace(unknown, "X"),
      });
    }
    expect((await list(api, api.b, { SerialNumber: api.b.serialNumber })).VirtualCount).toBe(before);
  });
});
