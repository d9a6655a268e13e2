import { LISTING_VISIT, listingVisitContent } from "../../api/listing-visit.js";
import type { BotState } from "../../bridge/bridge-parts.js";
import { type PhraseLanguage, phraseLanguage } from "../../bridge/phrase-language.js";
import type { Logger } from "../../common/log.js";
import type { ListingMetrics } from "./listing-metrics.js";

/** What the bridge asks under the card of a listing whose link opened the conversation, per phrase language. */
const VIEWING_QUESTIONS: Record<PhraseLanguage, string> = {
  en: "Would you like to book a viewing?",
  es: "¿Te gustaría reservar una visita?",
};

/** The viewing question in the chatbot's AIResponseLanguage (Spanish, or English for any other language). */
export function viewingQuestion(language: string | undefined): string {
  return VIEWING_QUESTIONS[phraseLanguage(language)];
}

/** One visit from a listing's link: who, where, and what to count it with. */
export interface ListingVisit {
  bot: BotState;
  conversation: string;
  channel: string;
  mlsNumber: string;
  fence: AbortSignal;
}

/**
 * Counts a visit: the metric by channel, and a ListingVisit lead in the conversation's session, which the daily
 * leads digest of the self-hosted server counts per listing and channel — the API store already keeps each
 * chatbot's dated leads and mails them, so visits need no second store. A chatbot API without LeadAdd (the hosted
 * platform) keeps only the metric; a failure never stands in the way of the conversation.
 */
export async function recordListingVisit(visit: ListingVisit, metrics: ListingMetrics, log: Logger): Promise<void> {
  const { bot, conversation, channel, mlsNumber, fence } = visit;
  metrics.listingLinkVisits.inc({ channel });
  try {
    const session = await bot.sessions.current(conversation, fence);
    await bot.link.client.addLead({
      serialNumber: bot.link.serialNumber,
      sessionID: session.id,
      Type: LISTING_VISIT,
      Content: listingVisitContent(mlsNumber, channel),
    });
  } catch (error) {
    log.debug({ err: error, conversation }, "the listing link's visit was not recorded as a lead");
  }
}
