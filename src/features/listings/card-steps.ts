import type { AfterAnswerStep, AnswerStep } from "../../bridge/answer-step.js";
import { cardTapOf } from "./card-surface.js";
import type { ListingCards } from "./listing-cards.js";
import { listingReferences } from "./listing-references.js";
import { cardLabelsOf, cardQuestions, lookUpCards } from "./listing-steps.js";
import { sendCardsOnce } from "./send-cards.js";

/** A tap on a listing card's button asks the question it stands for, built once from the listing. */
export function cardQuestionsStep(listings: (botId: string) => ListingCards): AnswerStep {
  return {
    name: "card-questions",
    async handle(turn) {
      if (turn.batch.some((message) => cardTapOf(message) !== undefined)) {
        const cards = listings(turn.bot.link.botId);
        turn.text = await turn.once("card-questions", () => cardQuestions(turn.batch, cards));
      }
      return "next";
    },
  };
}

/**
 * After an answer, the listings it names (by MLS number or address) as cards, up to LISTING_CARDS_MAX, where the
 * channel shows cards; none after an answer the user stopped.
 */
export function cardsStep(listings: (botId: string) => ListingCards, max: number): AfterAnswerStep {
  return {
    name: "cards",
    async handle(turn, answer, step) {
      if (answer.stopped || max <= 0) return;
      const cards = listings(turn.bot.link.botId);
      const lookUp = async () => {
        const references = listingReferences(answer.text);
        return references.length === 0 ? [] : lookUpCards(cards, references, max);
      };
      const labels = await cardLabelsOf(turn.bot);
      await sendCardsOnce(turn.parts, turn.attached, turn.last.target, turn, step, lookUp, labels);
    },
  };
}
