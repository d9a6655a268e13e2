import type { Feature } from "../../bridge/feature.js";
import { handoff } from "../handoff/index.js";
import { cardQuestionsStep, cardsStep } from "./card-steps.js";
import { listingLinkStep } from "./link-step.js";
import { ListingCards } from "./listing-cards.js";
import { listingMetrics } from "./listing-metrics.js";

/** What other features use of the listings feature. */
export interface ListingsApi {
  /** The listing cards of bot `botId`'s chatbot (looked up over its RealEstateList, remembered a while). */
  cardsOf(botId: string): ListingCards;
}

/**
 * Listings in the conversation: the listings an answer names shown as cards with "Similar homes" and "Book a
 * viewing" (after-answer step `cards`, where the channel has a CardSurface), a card's tap asked as the question
 * it stands for (`card-questions`), and a conversation opened from a listing's link starting with its card
 * (`listing-link`).
 */
export const listings: Feature<ListingsApi> = {
  name: "listings",
  open(context) {
    const byBot = new Map(
      context.chatbots.map((link) => [link.botId, new ListingCards(link.client, link.serialNumber, context.log)]),
    );
    const cardsOf = (botId: string) => {
      const cards = byBot.get(botId);
      if (!cards) throw new Error(`no chatbot for bot ${botId}`);
      return cards;
    };
    return {
      api: { cardsOf },
      steps: {
        "listing-link": listingLinkStep(cardsOf, context.use(handoff), listingMetrics(context.metrics.registry)),
        "card-questions": cardQuestionsStep(cardsOf),
      },
      afterAnswer: { cards: cardsStep(cardsOf, context.config.listingCardsMax) },
    };
  },
};
