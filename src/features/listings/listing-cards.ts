import type { ListingListItem } from "../../api/types.js";
import type { ChatbotClient } from "../../client/index.js";
import type { Logger } from "../../common/log.js";
import { cardFromListing } from "./card-from-listing.js";
import type { ListingCard } from "./listing-card.js";
import { type ListingReference, normalizeListingUrl } from "./listing-references.js";
import { ListingUrlIndex } from "./listing-url-index.js";

/** Turns the listings an answer names into cards; what any channel showing cards needs of the bridge. */
export interface ListingCardLookup {
  /**
   * The cards of the listings `references` name, in their order, each listing once, at most `max`. A reference no
   * listing answers to has no card; one that cannot be looked up (the API is down) has none either — it never
   * rejects, so cards can never stand in the way of an answer.
   */
  cardsFor(references: readonly ListingReference[], max: number): Promise<ListingCard[]>;
}

/** How long lookups are remembered and how much the address index may read. */
export interface ListingCardsOptions {
  /** A listing found or not found is remembered this long (default 60 s): answers name the same ones again. */
  cacheMs?: number;
  /** The address index is rebuilt at most this often (default 60 s). */
  indexRefreshMs?: number;
  /** Listings the address index reads at most (default 2,000). */
  indexCap?: number;
  now?: () => number;
}

/** References of one answer looked up at most: a text full of links is not a reason for a hundred requests. */
const MAX_REFERENCES = 20;
/** How often a failing RealEstateList is logged as a warning. */
const WARN_EVERY_MS = 60_000;
/** Lookups remembered at most, the oldest forgotten first. */
const MAX_REMEMBERED = 1_000;

/**
 * The MLS numbers a written one may be stored as, most likely first: upper-case (RealEstateList's filter is exact,
 * MLS numbers are mostly upper-case and addresses mostly lower-case), as written, and with or without an "MLS"
 * prefix ("MLS #100006" may be listing "100006" or "MLS100006").
 */
function mlsCandidates(written: string): string[] {
  const upper = written.toUpperCase();
  const bare = upper.replace(/^MLS[\s#-]*/, "");
  return [...new Set([upper, written, bare === upper ? `MLS${bare}` : bare])].filter((candidate) => candidate !== "");
}

/** The last segment of an address's path, decoded ("" when there is none or it does not decode). */
function lastSegment(url: string): string {
  try {
    return decodeURIComponent(new URL(url).pathname.split("/").at(-1) ?? "");
  } catch {
    return "";
  }
}

/**
 * One chatbot's listing cards, looked up over its RealEstateList. An MLS number is a filtered query; an address
 * whose last path segment is the listing's MLS number (as in `…/listing/mls240137`) is found the same way, any
 * other address through the chatbot's {@link ListingUrlIndex}. Results, found or not, are remembered for
 * `cacheMs`, and concurrent lookups of one key share one request; failures are logged and not remembered.
 */
export class ListingCards implements ListingCardLookup {
  readonly #remembered = new Map<string, { item: ListingListItem | undefined; until: number }>();
  readonly #pending = new Map<string, Promise<ListingListItem | undefined>>();
  readonly #index: ListingUrlIndex;
  readonly #cacheMs: number;
  readonly #now: () => number;
  #warnedAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly client: Pick<ChatbotClient, "listListings">,
    private readonly serialNumber: string,
    private readonly log: Logger,
    options: ListingCardsOptions = {},
  ) {
    this.#cacheMs = options.cacheMs ?? 60_000;
    this.#now = options.now ?? Date.now;
    this.#index = new ListingUrlIndex(
      (PageNumber, PageSize) => client.listListings({ SerialNumber: serialNumber, PageNumber, PageSize }),
      { cap: options.indexCap ?? 2_000, refreshMs: options.indexRefreshMs ?? 60_000, now: this.#now },
    );
  }

  async cardsFor(references: readonly ListingReference[], max: number): Promise<ListingCard[]> {
    if (max <= 0 || references.length === 0) return [];
    let failure: unknown;
    const items = await Promise.all(
      references.slice(0, MAX_REFERENCES).map((reference) =>
        this.#find(reference).catch((error: unknown) => {
          failure = error;
          return undefined;
        }),
      ),
    );
    if (failure !== undefined) this.#report(failure);
    const seen = new Set<string>();
    const cards: ListingCard[] = [];
    for (const item of items) {
      const mls = item ? String(item.MLSNumber).toUpperCase() : "";
      if (!item || seen.has(mls) || cards.length >= max) continue;
      seen.add(mls);
      cards.push(cardFromListing(item));
    }
    return cards;
  }

  /**
   * The listing with MLS number `mlsNumber` (as a card's tap names it), from the same remembered lookups; undefined
   * when there is none or it cannot be looked up now.
   */
  async listing(mlsNumber: string): Promise<ListingListItem | undefined> {
    try {
      return await this.#byMls(mlsNumber);
    } catch (error) {
      this.#report(error);
      return undefined;
    }
  }

  /** The cities of the chatbot's listings (from its address index); none when they cannot be read now. */
  async cities(): Promise<string[]> {
    try {
      return await this.#index.cities();
    } catch (error) {
      this.#report(error);
      return [];
    }
  }

  /** A warning a minute at most (an API that is down fails every answer's lookup), the others at debug level. */
  #report(failure: unknown): void {
    const reason = failure instanceof Error ? failure.message : String(failure);
    const now = this.#now();
    const level = now - this.#warnedAt >= WARN_EVERY_MS ? "warn" : "debug";
    if (level === "warn") this.#warnedAt = now;
    this.log[level]({ reason }, "listing cards: RealEstateList failed; the answer goes without some cards");
  }

  #find(reference: ListingReference): Promise<ListingListItem | undefined> {
    if (reference.kind === "mls") return this.#byMls(reference.mlsNumber);
    const url = normalizeListingUrl(reference.url);
    return this.#remember(`url:${url}`, async () => {
      const segment = lastSegment(url);
      if (/\d/.test(segment)) {
        const item = await this.#byMls(segment);
        if (item && normalizeListingUrl(String(item.Url)) === url) return item;
      }
      return this.#index.find(url);
    });
  }

  async #byMls(written: string): Promise<ListingListItem | undefined> {
    for (const candidate of mlsCandidates(written)) {
      const item = await this.#remember(`mls:${candidate}`, async () => {
        const page = await this.client.listListings({ SerialNumber: this.serialNumber, MLSNumber: candidate });
        return page.List.find((listed) => String(listed.MLSNumber).toUpperCase() === candidate.toUpperCase());
      });
      if (item) return item;
    }
    return undefined;
  }

  /** `look`'s result for `key`: remembered for a while, shared while under way, forgotten when it failed. */
  #remember(key: string, look: () => Promise<ListingListItem | undefined>): Promise<ListingListItem | undefined> {
    const known = this.#remembered.get(key);
    if (known && known.until > this.#now()) return Promise.resolve(known.item);
    let pending = this.#pending.get(key);
    if (!pending) {
      pending = look()
        .then((item) => {
          this.#remembered.delete(key);
          this.#remembered.set(key, { item, until: this.#now() + this.#cacheMs });
          for (const oldest of this.#remembered.keys()) {
            if (this.#remembered.size <= MAX_REMEMBERED) break;
            this.#remembered.delete(oldest);
          }
          return item;
        })
        .finally(() => this.#pending.delete(key));
      this.#pending.set(key, pending);
    }
    return pending;
  }
}
