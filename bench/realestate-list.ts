/**
 * RealEstateList on SQLite: 100,000 listings of one chatbot across 20 cities, then 2,000 `listings.list` calls
 * with a CityName filter, timed in-process. The target is p95 ≤ 5 ms per call (count + page). Also times the
 * engines' `listings.search` with typical criteria. Run: `npx tsx bench/realestate-list.ts`.
 */

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import SQLite from "better-sqlite3";
import { Kysely, SqliteDialect } from "kysely";
import type { SaleType } from "../src/api/types.js";
import type { ListingCriteria, ListingFields } from "../src/server/domain.js";
import { seededRandom } from "../src/server/seeded-random.js";
import { defaultSettings } from "../src/server/services/default-settings.js";
import type { ApiStore } from "../src/server/store/api-store.js";
import { toListingColumns } from "../src/server/store/listing-rows.js";
import { openApiStore, sqliteFilePath } from "../src/server/store/open-store.js";
import type { Database } from "../src/server/store/tables.js";

const LISTINGS = 100_000;
const LIST_CALLS = 2_000;
const SEARCH_CALLS = 500;
const PAGE_SIZE = 20;
const TARGET_P95_MS = 5;

const CITIES = [
  "Austin",
  "Boston",
  "Chicago",
  "Denver",
  "Houston",
  "Las Vegas",
  "Los Angeles",
  "Miami",
  "Nashville",
  "New York",
  "Orlando",
  "Philadelphia",
  "Phoenix",
  "Portland",
  "Raleigh",
  "Sacramento",
  "San Diego",
  "San Francisco",
  "Seattle",
  "Tampa",
];
const PROPERTY_TYPES = ["Single Family", "Condo", "Townhouse", "Apartment", "Multi-Family", "Loft"];

// Seeded, so every run measures the same data and the same calls.
const random = seededRandom(20_240_601);
const pick = <T>(values: readonly T[]): T => values[Math.floor(random() * values.length)] as T;
const between = (low: number, high: number) => low + Math.floor(random() * (high - low + 1));

function realisticListing(index: number): ListingFields {
  const saleType: SaleType = random() < 0.6 ? "for_sale" : "for_rent";
  const city = pick(CITIES);
  const bedrooms = between(0, 6);
  const buildingArea = between(450, 4_500);
  const salePrice = between(150, 2_500) * 1_000;
  return {
    SaleType: saleType,
    Status: pick(["Active", "Active", "Active", "PreOnMarket", "Sold"] as const),
    CurrencySymbol: "$",
    PropertyType: pick(PROPERTY_TYPES),
    Bedrooms: bedrooms,
    Bathrooms: Math.max(1, bedrooms - between(0, 2)) + (random() < 0.3 ? 0.5 : 0),
    Url: `https://homes.example.com/listing/${index}`,
    MLSNumber: `MLS${String(index).padStart(8, "0")}`,
    YearBuilt: between(1920, 2024),
    DaysOnMarket: between(0, 180),
    LotArea: between(0, 20_000),
    BuildingArea: buildingArea,
    AreaUnit: "Square Feet",
    ParkingSpots: between(0, 3),
    Images: [`https://img.example.com/${index}/1.jpg`, `https://img.example.com/${index}/2.jpg`],
    Tours: random() < 0.2 ? "OpenHouse" : undefined,
    Description: `${bedrooms} bedroom home in ${city}, ${buildingArea} sq ft, close to parks and schools.`,
    ExtensionColumn: [{ Key: "Heating", value: pick(["Gas", "Electric", "Heat pump"]) }],
    Address: `${between(1, 9_999)} ${pick(["Oak", "Maple", "Cedar", "Main", "Park"])} St`,
    City: city,
    State: "US",
    ZIP: String(between(10_000, 99_999)),
    Latitude: 25 + random() * 20,
    Longitude: -120 + random() * 45,
    ...(saleType === "for_sale"
      ? { SalePrice: salePrice, UnitAreaPrice: Math.round(salePrice / buildingArea), HOAMonth: between(0, 600) }
      : { RentPrice: between(900, 7_000), DepositFee: between(500, 5_000), SpaceType: "Entire place" as const }),
  };
}

/** Seeds through a second connection in one transaction: the store has no bulk insert, and needs none. */
async function seed(dataDir: string, chatbotId: number): Promise<void> {
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: new SQLite(sqliteFilePath(dataDir)) }) });
  const rowsPerInsert = 400; // 40 columns a row stays under SQLite's 32,766 bound parameters.
  const start = Date.now() - LISTINGS * 60_000;
  await db.transaction().execute(async (trx) => {
    for (let first = 0; first < LISTINGS; first += rowsPerInsert) {
      const rows = [];
      for (let index = first; index < Math.min(LISTINGS, first + rowsPerInsert); index++) {
        const createdAt = start + index * 60_000;
        rows.push({
          chatbot_id: chatbotId,
          ...toListingColumns(realisticListing(index)),
          created_at: createdAt,
          updated_at: createdAt,
        });
      }
      await trx.insertInto("listings").values(rows).execute();
    }
  });
  await db.destroy();
}

function percentile(sorted: number[], fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)] ?? Number.NaN;
}

/** Runs `call` `count` times after a warm-up and prints its latency figures; returns p95 in ms. */
async function measure(label: string, count: number, call: () => Promise<unknown>): Promise<number> {
  for (let index = 0; index < 100; index++) await call();
  const times: number[] = [];
  const begin = performance.now();
  for (let index = 0; index < count; index++) {
    const started = performance.now();
    await call();
    times.push(performance.now() - started);
  }
  const seconds = (performance.now() - begin) / 1000;
  times.sort((a, b) => a - b);
  const p95 = percentile(times, 0.95);
  const ms = (value: number) => `${value.toFixed(3)} ms`;
  console.log(
    `${label}: ${count} calls, p50 ${ms(percentile(times, 0.5))}, p95 ${ms(p95)}, p99 ${ms(percentile(times, 0.99))}, ` +
      `${Math.round(count / seconds)} calls/s`,
  );
  return p95;
}

/** City names as clients send them: any case. */
function anyCase(city: string): string {
  const form = random();
  if (form < 0.33) return city.toLowerCase();
  if (form < 0.66) return city.toUpperCase();
  return city;
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(path.join(tmpdir(), "chatbridge-bench-"));
  let store: ApiStore | undefined;
  try {
    store = await openApiStore({ dataDir });
    const workspace = await store.workspaces.create({
      name: "bench",
      secretKey: "bench-secret",
      sessionKey: "bench-session",
    });
    const chatbot = await store.chatbots.create({
      workspaceId: workspace.id,
      serialNumber: "bench-chatbot",
      type: 0,
      settings: defaultSettings({ timeZone: "UTC", model: "listings" }),
    });

    const seedStarted = performance.now();
    await seed(dataDir, chatbot.id);
    console.log(`seeded ${LISTINGS} listings in ${((performance.now() - seedStarted) / 1000).toFixed(1)} s`);
    const opened = store;

    const listP95 = await measure("listings.list (CityName, some SaleType, pageSize 20)", LIST_CALLS, () =>
      opened.listings.list(chatbot.id, {
        cityName: anyCase(pick(CITIES)),
        saleType: random() < 0.3 ? pick(["for_sale", "for_rent"] as const) : undefined,
        pageNumber: between(1, 100),
        pageSize: PAGE_SIZE,
      }),
    );

    const typical = (): ListingCriteria => ({
      city: anyCase(pick(CITIES)),
      saleType: "for_sale",
      minBedrooms: between(1, 3),
      maxPrice: between(3, 12) * 100_000,
      sort: pick(["newest", "price_asc", "price_desc"] as const),
      limit: 5,
    });
    await measure("listings.search (city, for_sale, bedrooms, max price, sorted, limit 5)", SEARCH_CALLS, () =>
      opened.listings.search(chatbot.id, typical()),
    );
    await measure("listings.search (property type only, newest, limit 5)", SEARCH_CALLS, () =>
      opened.listings.search(chatbot.id, { propertyType: pick(["condo", "loft", "TOWNHOUSE"]), limit: 5 }),
    );

    const passed = listP95 <= TARGET_P95_MS;
    console.log(
      `${passed ? "PASS" : "FAIL"}: listings.list p95 ${listP95.toFixed(3)} ms (target ≤ ${TARGET_P95_MS} ms)`,
    );
    process.exitCode = passed ? 0 : 1;
  } finally {
    await store?.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
