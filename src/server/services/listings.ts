import type { ListingChange } from "../../api/listing-changes.js";
import type { ListingKeyType, ListingListItem } from "../../api/types.js";
import type { Logger } from "../../common/log.js";
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
  constructor(
    private readonly store: ApiStore,
    private readonly log: Logger,
  ) {}

  /** Creates a listing; returns its id as a string (its NewOaks key). */
  async create(chatbot: Chatbot, fields: ListingFields): Promise<string> {
    await this.#ensureUnique(chatbot, fields);
    const listing = await this.store.listings.create(chatbot.id, fields);
    await this.#announce(chatbot, [listing], "create");
    return String(listing.ID);
  }

  /** Replaces the listing that the key finds; an unknown key is a 404. Returns the number updated (1). */
  async update(chatbot: Chatbot, key: string, keyType: ListingKeyType, fields: ListingFields): Promise<number> {
    const [listing] = await this.store.listings.findByKeys(chatbot.id, keyType, [key]);
    if (!listing)
      throw new ApiError(404, `No listing with ${keyName[keyType]} ${key} in chatbot ${chatbot.serialNumber}`);
    await this.#ensureUnique(chatbot, fields, listing.ID);
    const updated = await this.store.listings.update(listing.ID, fields);
    await this.#announce(chatbot, [updated], "update");
    return 1;
  }

  /** Deletes the listings the keys find; keys that match nothing are skipped and not counted. */
  async delete(chatbot: Chatbot, keys: string[], keyType: ListingKeyType): Promise<number> {
    const found = await this.store.listings.findByKeys(chatbot.id, keyType, [...new Set(keys)]);
    if (found.length === 0) return 0;
    const removed = await this.store.listings.remove(found.map((listing) => listing.ID));
    await this.#announce(chatbot, found, "delete");
    return removed;
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

  /**
   * Tells the change feed's subscribers, once the change is committed. Awaited, so that an answer received means the
   * announcement went out; one that fails is logged and the write still succeeds (the feed only notifies: readers
   * find the change by reading the listings).
   */
  async #announce(chatbot: Chatbot, listings: Listing[], kind: ListingChange["Kind"]): Promise<void> {
    try {
      for (const listing of listings) {
        await this.store.listingChanges.publish({
          SerialNumber: chatbot.serialNumber,
          MLSNumber: listing.MLSNumber,
          Kind: kind,
        });
      }
    } catch (error) {
      this.log.warn({ err: error }, "listings: a change could not be announced on the change feed");
    }
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
