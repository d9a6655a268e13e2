import type { ListingKeyType, ListingListItem } from "../../api/types.js";
import type { Chatbot, Listing, ListingFields } from "../domain.js";
import { ApiError } from "../http/api-error.js";
import type { ApiStore } from "../store/api-store.js";
import { toListItem } from "./listing-item.js";

const keyName: Record<ListingKeyType, string> = { NewOaks: "NewOaks id", MLSNumber: "MLSNumber", URL: "URL" };

/**
 * A chatbot's real-estate listings. MLSNumber and Url are unique within a chatbot (a second listing with
 * the same one is a 409), so that a key of either type finds at most one listing.
 */
export class ListingService {
  constructor(private readonly store: ApiStore) {}

  /** Creates a listing; returns its id as a string (its NewOaks key). */
  async create(chatbot: Chatbot, fields: ListingFields): Promise<string> {
    await this.#ensureUnique(chatbot, fields);
    return String((await this.store.listings.create(chatbot.id, fields)).ID);
  }

  /** Replaces the listing that the key finds; an unknown key is a 404. Returns the number updated (1). */
  async update(chatbot: Chatbot, key: string, keyType: ListingKeyType, fields: ListingFields): Promise<number> {
    const [listing] = await this.store.listings.findByKeys(chatbot.id, keyType, [key]);
    if (!listing)
      throw new ApiError(404, `No listing with ${keyName[keyType]} ${key} in chatbot ${chatbot.serialNumber}`);
    await this.#ensureUnique(chatbot, fields, listing.ID);
    await this.store.listings.update(listing.ID, fields);
    return 1;
  }

  /** Deletes the listings the keys find; keys that match nothing are skipped and not counted. */
  async delete(chatbot: Chatbot, keys: string[], keyType: ListingKeyType): Promise<number> {
    const found = await this.store.listings.findByKeys(chatbot.id, keyType, [...new Set(keys)]);
    return found.length === 0 ? 0 : this.store.listings.remove(found.map((listing) => listing.ID));
  }

  /** RealEstateList: newest first, paged; VirtualCount is the number of all matches. */
  async list(
    chatbot: Chatbot,
    query: {
      CityName?: string | undefined;
      SaleType?: Listing["SaleType"] | undefined;
      MLSNumber?: string | undefined;
      PageNumber: number;
      PageSize: number;
    },
  ): Promise<{ List: ListingListItem[]; VirtualCount: number }> {
    const { items, total } = await this.store.listings.list(chatbot.id, {
      cityName: query.CityName || undefined,
      saleType: query.SaleType,
      mlsNumber: query.MLSNumber || undefined,
      pageNumber: query.PageNumber,
      pageSize: query.PageSize,
    });
    return { List: items.map(toListItem), VirtualCount: total };
  }

  async #ensureUnique(chatbot: Chatbot, fields: ListingFields, exceptId?: number): Promise<void> {
    for (const [keyType, value] of [
      ["MLSNumber", fields.MLSNumber],
      ["URL", fields.Url],
    ] as const) {
      const clash = (await this.store.listings.findByKeys(chatbot.id, keyType, [value])).find((l) => l.ID !== exceptId);
      if (clash)
        throw new ApiError(
          409,
          `${keyType === "URL" ? "Url" : keyType} ${value} is already used by listing ${clash.ID}`,
        );
    }
  }
}
