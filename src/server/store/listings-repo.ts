import { type ExpressionBuilder, type Kysely, sql } from "kysely";
import type { ListingStatus } from "../../api/types.js";
import type { ListingFilter, ListingKeyType } from "../domain.js";
import type { ApiStore } from "./api-store.js";
import { type Clock, toCount } from "./codecs.js";
import { cityKey, toListing, toListingColumns } from "./listing-rows.js";
import type { Database, ListingTable } from "./tables.js";

/** What the engines offer when the criteria name no status: sold homes are not for sale any more. */
const OFFERED_STATUSES: ListingStatus[] = ["Active", "PreOnMarket"];

/** Keys per `IN (…)` list, well below SQLite's and PostgreSQL's bound-parameter limits. */
const KEYS_PER_QUERY = 500;

/** The column each KeyType names a listing by. */
const KEY_COLUMNS = { NewOaks: "id", MLSNumber: "mls_number", URL: "url" } as const satisfies Record<
  ListingKeyType,
  keyof ListingTable
>;

/** Real-estate listings of chatbots. */
export function listingsRepo(db: Kysely<Database>, now: Clock): ApiStore["listings"] {
  return {
    async create(chatbotId, fields) {
      const created = now().getTime();
      const row = await db
        .insertInto("listings")
        .values({ chatbot_id: chatbotId, ...toListingColumns(fields), created_at: created, updated_at: created })
        .returningAll()
        .executeTakeFirstOrThrow();
      return toListing(row);
    },

    async findByKeys(chatbotId, keyType, keys) {
      // NewOaks keys are ids as text: text that is no id matches nothing.
      const values: (number | string)[] = keyType === "NewOaks" ? keys.filter(isListingId).map(Number) : keys;
      const found = [];
      for (const chunk of chunks(values, KEYS_PER_QUERY)) {
        const rows = await db
          .selectFrom("listings")
          .selectAll()
          .where("chatbot_id", "=", chatbotId)
          .where(KEY_COLUMNS[keyType], "in", chunk)
          .orderBy("id")
          .execute();
        found.push(...rows.map(toListing));
      }
      return found;
    },

    async update(id, fields) {
      const row = await db
        .updateTable("listings")
        .set({ ...toListingColumns(fields), updated_at: now().getTime() })
        .where("id", "=", id)
        .returningAll()
        .executeTakeFirst();
      if (row === undefined) throw new Error(`listing ${id} does not exist`);
      return toListing(row);
    },

    async remove(ids) {
      let removed = 0;
      for (const chunk of chunks(ids, KEYS_PER_QUERY)) {
        const result = await db.deleteFrom("listings").where("id", "in", chunk).executeTakeFirst();
        removed += toCount(result.numDeletedRows);
      }
      return removed;
    },

    async list(chatbotId, filter) {
      const matches = filtered(db, chatbotId, filter);
      // A page number below 1 means the first page rather than a negative OFFSET, which PostgreSQL rejects.
      const offset = Math.max(0, filter.pageNumber - 1) * filter.pageSize;
      const [counted, rows] = await Promise.all([
        matches.select((eb) => eb.fn.countAll().as("total")).executeTakeFirstOrThrow(),
        matches.selectAll().orderBy("id", "desc").limit(filter.pageSize).offset(offset).execute(),
      ]);
      return { items: rows.map(toListing), total: toCount(counted.total) };
    },

    async search(chatbotId, criteria) {
      // An empty list names no status, like an absent one (rather than matching nothing).
      const statuses = criteria.statuses?.length ? criteria.statuses : OFFERED_STATUSES;
      let query = filtered(db, chatbotId, {
        cityName: criteria.city,
        saleType: criteria.saleType,
        mlsNumber: criteria.mlsNumber,
      })
        .selectAll()
        .where("status", "in", statuses);
      if (criteria.propertyType !== undefined) {
        const pattern = `%${escapeLike(criteria.propertyType.toLowerCase())}%`;
        // lower() folds ASCII only on SQLite; property types are English words, where both databases agree.
        query = query.where(sql<boolean>`lower(${sql.ref("property_type")}) like ${pattern} escape '\\'`);
      }
      if (criteria.minBedrooms !== undefined) query = query.where("bedrooms", ">=", criteria.minBedrooms);
      if (criteria.maxBedrooms !== undefined) query = query.where("bedrooms", "<=", criteria.maxBedrooms);
      if (criteria.minBathrooms !== undefined) query = query.where("bathrooms", ">=", criteria.minBathrooms);
      if (criteria.minParkingSpots !== undefined) query = query.where("parking_spots", ">=", criteria.minParkingSpots);
      const { minPrice, maxPrice } = criteria;
      if (minPrice !== undefined) query = query.where((eb) => eb(price(eb), ">=", minPrice));
      if (maxPrice !== undefined) query = query.where((eb) => eb(price(eb), "<=", maxPrice));
      // Listings without a price go last in both price orders (the databases disagree on where NULLs sort).
      if (criteria.sort === "price_asc") query = query.orderBy(price, (order) => order.asc().nullsLast());
      if (criteria.sort === "price_desc") query = query.orderBy(price, (order) => order.desc().nullsLast());
      const rows = await query.orderBy("id", "desc").limit(criteria.limit).execute();
      return rows.map(toListing);
    },

    async count(chatbotId) {
      const row = await db
        .selectFrom("listings")
        .select((eb) => eb.fn.countAll().as("total"))
        .where("chatbot_id", "=", chatbotId)
        .executeTakeFirstOrThrow();
      return toCount(row.total);
    },
  };
}

/** A chatbot's listings narrowed by RealEstateList's filters (city case-insensitive, all exact). */
function filtered(db: Kysely<Database>, chatbotId: number, filter: Omit<ListingFilter, "pageNumber" | "pageSize">) {
  let query = db.selectFrom("listings").where("chatbot_id", "=", chatbotId);
  if (filter.cityName !== undefined) query = query.where("city_key", "=", cityKey(filter.cityName));
  if (filter.saleType !== undefined) query = query.where("sale_type", "=", filter.saleType);
  if (filter.mlsNumber !== undefined) query = query.where("mls_number", "=", filter.mlsNumber);
  return query;
}

/** Whether a NewOaks key is the text of a listing id. */
function isListingId(key: string): boolean {
  return /^[1-9][0-9]*$/.test(key) && Number.isSafeInteger(Number(key));
}

/**
 * The price the criteria compare: the rent of a rental, the sale price otherwise. A price of 0 is "on request" like
 * a missing one (that is how answers show it), so it is NULL here: no budget matches it and price orders put it last.
 */
function price(eb: ExpressionBuilder<Database, "listings">) {
  const amount = eb
    .case()
    .when("sale_type", "=", "for_rent")
    .then(eb.ref("rent_price"))
    .else(eb.ref("sale_price"))
    .end();
  return eb.fn<number | null>("nullif", [amount, eb.lit(0)]);
}

/** Makes `%`, `_` and the escape character itself match literally in a LIKE pattern. */
function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (character) => `\\${character}`);
}

function* chunks<T>(values: T[], size: number): Generator<T[]> {
  for (let start = 0; start < values.length; start += size) yield values.slice(start, start + size);
}
