import type { BotState } from "../../bridge/bridge-parts.js";
import type { InboundMessage } from "../../bridge/inbound.js";
import { type CardLabels, cardLabels, similarHomesQuestion } from "./card-actions.js";
import { cardTapOf } from "./card-surface.js";
import { cardFacts } from "./card-text.js";
import type { ListingCard } from "./listing-card.js";
import type { ListingCards } from "./listing-cards.js";
import type { listingReferences } from "./listing-references.js";

/**
 * Longest time the listing cards of one answer may take to look up; the answer was delivered before, but the
 * conversation's next message waits for its turn.
 */
const CARDS_LOOKUP_MS = 10_000;

/** The cards of `references`, or none when the lookup takes longer than {@link CARDS_LOOKUP_MS}. */
export async function lookUpCards(
  listings: ListingCards,
  references: ReturnType<typeof listingReferences>,
  max: number,
): Promise<ListingCard[]> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<ListingCard[]>((resolve) => {
    timer = setTimeout(() => resolve([]), CARDS_LOOKUP_MS);
  });
  try {
    return await Promise.race([listings.cardsFor(references, max), late]);
  } finally {
    clearTimeout(timer);
  }
}

/** The batch's text with each tap on a card's button as the question it asks ("Similar homes": like that listing). */
export async function cardQuestions(batch: readonly InboundMessage[], listings: ListingCards): Promise<string> {
  const texts = await Promise.all(
    batch.map(async (message) => {
      const tap = cardTapOf(message);
      if (!tap) return message.text.trim();
      const item = await listings.listing(tap.mlsNumber);
      return item && tap.action === "similar" ? similarHomesQuestion(item) : message.text.trim();
    }),
  );
  return texts.filter(Boolean).join("\n");
}

/**
 * A listing's card as a message, for a channel without a card surface: named as an answer would name it (an MLS
 * number that starts with MLS once).
 */
export function cardAsText(card: ListingCard): string {
  const mls = /^MLS/i.test(card.mlsNumber) ? card.mlsNumber : `MLS ${card.mlsNumber}`;
  return [`${mls} · ${card.address}`, cardFacts(card), card.url].join("\n");
}

/** What a bot's cards' link and buttons say: in its chatbot's AIResponseLanguage (English when unreadable). */
export async function cardLabelsOf(bot: BotState): Promise<CardLabels> {
  return cardLabels((await bot.settings.read().catch(() => undefined))?.AIResponseLanguage);
}

/** Whether the batch has a tap on a card's "Book a viewing". */
export function tapsViewing(batch: readonly InboundMessage[]): boolean {
  return batch.some((message) => cardTapOf(message)?.action === "viewing");
}
