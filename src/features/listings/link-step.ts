import type { AnswerStep, Turn } from "../../bridge/answer-step.js";
import type { InboundMessage } from "../../bridge/inbound.js";
import type { HandoffApi } from "../handoff/index.js";
import { cardSurfaceOf } from "./card-surface.js";
import type { ListingCard } from "./listing-card.js";
import type { ListingCards } from "./listing-cards.js";
import { linkAsMessage, listingLinkIn } from "./listing-links.js";
import type { ListingMetrics } from "./listing-metrics.js";
import { cardAsText, cardLabelsOf, lookUpCards } from "./listing-steps.js";
import { recordListingVisit, viewingQuestion } from "./listing-visit.js";
import { sendCardsOnce } from "./send-cards.js";

/** The listing whose link opened the turn's message (`chatbridge links`), unless the message is /reset. */
export function visitedListing(turn: Turn): string | undefined {
  return turn.command === "reset" ? undefined : listingLinkIn(turn.text);
}

/**
 * A conversation opened from a listing's link (Telegram's /start <code> included) starts with that listing: its
 * card and "Would you like to book a viewing?", after the greeting on first contact; the visit counted once. While
 * a person has the conversation, the link is a message for them, naming the listing (the visit still counts).
 */
export function listingLinkStep(
  listings: (botId: string) => ListingCards,
  handoff: HandoffApi,
  metrics: ListingMetrics,
): AnswerStep {
  return {
    name: "listing-link",
    async handle(turn) {
      const visited = visitedListing(turn);
      if (visited === undefined) return "next";
      const cards = listings(turn.bot.link.botId);
      if (await turn.paused()) {
        const forwarded = namingListings(turn.batch);
        if (await handoff.forward(turn, linkAsMessage(turn.text, visited), forwarded)) {
          await visit(turn, cards, visited, metrics);
          return "handled";
        }
      }
      await turn.greetFirst();
      await listingVisit(turn, cards, visited, metrics);
      return "handled";
    },
  };
}

/**
 * The listing's card and the viewing question, each a step of the ledger; a listing that is gone gets the greeting.
 */
async function listingVisit(
  turn: Turn,
  listings: ListingCards,
  mlsNumber: string,
  metrics: ListingMetrics,
): Promise<void> {
  const found = await visit(turn, listings, mlsNumber, metrics);
  const card = found[0];
  if (!card) {
    await turn.sendOnce("greeting", turn.bot.greeter.greeting());
    return;
  }
  if (cardSurfaceOf(turn.attached.channel)) {
    const labels = await cardLabelsOf(turn.bot);
    await sendCardsOnce(turn.parts, turn.attached, turn.last.target, turn, "visit-card", async () => found, labels);
  } else await turn.sendOnce("visit-card", { text: cardAsText(card), format: "plain" });
  const question = viewingQuestion((await turn.bot.settings.read().catch(() => undefined))?.AIResponseLanguage);
  await turn.sendOnce("visit-question", { text: question, format: "plain" });
}

/** The visit of listing `mlsNumber`'s link, counted once with its lookup: the listing's card, when it still exists. */
function visit(turn: Turn, listings: ListingCards, mlsNumber: string, metrics: ListingMetrics): Promise<ListingCard[]> {
  const { log } = turn.parts;
  return turn.once("visit", async () => {
    const found = await lookUpCards(listings, [{ kind: "mls", mlsNumber }], 1);
    const visited = found[0]?.mlsNumber ?? mlsNumber;
    const { bot, conversation, fence } = turn;
    await recordListingVisit(
      { bot, conversation, channel: turn.last.channel, mlsNumber: visited, fence },
      metrics,
      log,
    );
    return found;
  });
}

/** The batch with each listing's link named as its listing, as a person reads it. */
function namingListings(batch: readonly InboundMessage[]): InboundMessage[] {
  return batch.map((message) => {
    const mlsNumber = listingLinkIn(message.text);
    return mlsNumber === undefined ? message : { ...message, text: linkAsMessage(message.text, mlsNumber) };
  });
}
