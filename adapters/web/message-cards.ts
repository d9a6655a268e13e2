import type { ListingCardLookup } from "../../src/bridge/listings/listing-cards.js";
import {
  type ListingReference,
  listingReferences,
  referenceKey,
} from "../../src/bridge/listings/listing-references.js";
import type { Logger } from "../../src/log.js";
import type { WebChatEvent } from "./widget/protocol.js";

/** What the web chat needs to show listing cards under its answers. */
export interface WebChatCards {
  lookup: ListingCardLookup;
  /** Cards under one answer at most (LISTING_CARDS_MAX); 0 shows none. */
  max: number;
  log: Logger;
}

/** How long a message's text must stay as it is before a reference at its very end is taken as complete. */
export const SETTLE_MS = 300;
/** Messages whose cards are followed at once; the oldest is forgotten first (its cards stay as they were shown). */
const FOLLOWED = 500;

interface Followed {
  /** The reference lists looked up last, as keys: the same list again is not looked up again. */
  asked: string;
  /** The card list written last (JSON): the same list again is not written again. */
  shown: string;
  /** When the message was first shown, for the bubble the widget draws when a replay brings the cards first. */
  at: string;
  /** Lookups of this message, one after the other, so that its cards events keep the order of its texts. */
  queue: Promise<void>;
  settle: ReturnType<typeof setTimeout> | undefined;
}

const keys = (references: ListingReference[]) => references.map(referenceKey).join(" ");

/**
 * Follows the bot's messages as they are sent and edited, and writes the cards of the listings each names as a
 * `cards` event of its own (`cards:<id>` in the replay), after the text and only when the list changed. Nothing here
 * is awaited by a send or an edit: the text is written first, cards come when the lookup answers — or never.
 *
 * A streamed answer grows: a reference at the very end of the text may be an address still being written
 * ("…/listing/mls24"), so only the references followed by more text are looked up at once, and the whole list once
 * the text has not changed for {@link SETTLE_MS}. What was followed lives in this process: an edit by another
 * instance (one resuming an answer) looks the references up again, and writes the same cards once more at worst.
 */
export class MessageCards {
  readonly #followed = new Map<string, Followed>();

  constructor(
    private readonly cards: WebChatCards,
    private readonly append: (visitorId: string, key: string, event: WebChatEvent) => Promise<void>,
  ) {}

  /** Called after the message `id`'s text was written to the visitor's log. */
  follow(visitorId: string, id: string, text: string): void {
    if (this.cards.max <= 0) return;
    let followed = this.#followed.get(id);
    // A message that names no listing costs nothing (the greeting, most answers).
    if (!followed && !/https?:\/\/|MLS/i.test(text)) return;
    if (!followed) {
      followed = { asked: "", shown: "[]", at: new Date().toISOString(), queue: Promise.resolve(), settle: undefined };
      this.#followed.set(id, followed);
      for (const oldest of this.#followed.keys()) {
        if (this.#followed.size <= FOLLOWED) break;
        clearTimeout(this.#followed.get(oldest)?.settle);
        this.#followed.delete(oldest);
      }
    }
    const state = followed;
    this.#lookUp(visitorId, id, state, listingReferences(text.replace(/\S+$/, "")));
    clearTimeout(state.settle);
    state.settle = setTimeout(() => this.#lookUp(visitorId, id, state, listingReferences(text)), SETTLE_MS);
    state.settle.unref?.();
  }

  #lookUp(visitorId: string, id: string, state: Followed, references: ListingReference[]): void {
    const asked = keys(references);
    if (asked === state.asked) return;
    state.asked = asked;
    state.queue = state.queue
      .then(async () => {
        const cards = await this.cards.lookup.cardsFor(references, this.cards.max);
        const shown = JSON.stringify(cards);
        if (shown === state.shown) return;
        state.shown = shown;
        await this.append(visitorId, `cards:${id}`, { type: "cards", id, cards, at: state.at });
      })
      .catch((error: unknown) => {
        this.cards.log.debug({ err: error, message: id }, "web chat: the listing cards could not be written");
      });
  }
}
