import type { ListingListItem, ListingPage } from "../../api/types.js";
import { normalizeListingUrl } from "./listing-references.js";

/** RealEstateList's largest page. */
const PAGE_SIZE = 100;

/** How the index is kept. */
export interface ListingUrlIndexOptions {
  /** Listings read at most (the newest first): a chatbot with more finds only its newest by address. */
  cap: number;
  /** The index is rebuilt on demand when it is older than this. */
  refreshMs: number;
  now: () => number;
}

/**
 * A chatbot's listings by the address of their page, and the cities they are in. RealEstateList filters by MLS number but not by Url, so an
 * address that does not end in its MLS number is found here: the index is built by paging through the listings,
 * and rebuilt when asked for after it is `refreshMs` old — one build at a time, whoever asks meanwhile waits for it.
 * A failed build keeps the previous index and is tried again at the next question.
 */
export class ListingUrlIndex {
  #byUrl = new Map<string, ListingListItem>();
  #cities: string[] = [];
  #builtAt = Number.NEGATIVE_INFINITY;
  #building: Promise<void> | undefined;

  constructor(
    private readonly page: (pageNumber: number, pageSize: number) => Promise<ListingPage>,
    private readonly options: ListingUrlIndexOptions,
  ) {}

  /** The listing whose page is `url`, from an index at most `refreshMs` old; rejects when it cannot be built. */
  async find(url: string): Promise<ListingListItem | undefined> {
    await this.#fresh();
    return this.#byUrl.get(normalizeListingUrl(url));
  }

  /** The cities of the listings, as they write them, from the same index; rejects when it cannot be built. */
  async cities(): Promise<string[]> {
    await this.#fresh();
    return this.#cities;
  }

  async #fresh(): Promise<void> {
    if (this.options.now() - this.#builtAt < this.options.refreshMs) return;
    this.#building ??= this.#build().finally(() => {
      this.#building = undefined;
    });
    await this.#building;
  }

  async #build(): Promise<void> {
    const byUrl = new Map<string, ListingListItem>();
    const cities = new Set<string>();
    let read = 0;
    for (let pageNumber = 1; read < this.options.cap; pageNumber++) {
      const { List, VirtualCount } = await this.page(pageNumber, PAGE_SIZE);
      for (const item of List.slice(0, this.options.cap - read)) {
        if (typeof item.Url === "string") byUrl.set(normalizeListingUrl(item.Url), item);
        if (typeof item.City === "string" && item.City.trim() !== "") cities.add(item.City.trim());
      }
      read += List.length;
      if (List.length < PAGE_SIZE || read >= VirtualCount) break;
    }
    this.#byUrl = byUrl;
    this.#cities = [...cities];
    this.#builtAt = this.options.now();
  }
}
