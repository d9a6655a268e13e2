import type { AnswerStep } from "../../bridge/answer-step.js";
import { handoffIntent } from "../handoff/handoff-request.js";
import { visitedListing } from "../listings/link-step.js";
import type { ListingCards } from "../listings/listing-cards.js";
import { tapsViewing } from "../listings/listing-steps.js";
import type { ViewingDesk } from "./viewing-desk.js";

/**
 * A tap on "Book a viewing" and the messages that answer its questions are the viewing flow's, recorded as step
 * `viewing` (the flow keeps its own state with the event each turn answered, so its work is not redone either); its
 * replies are sent once each and its lead recorded once. A command, a listing's link or a request for a person
 * ("talk to a human" is no preferred time) leaves the flow and is handled as usual; while a person has the
 * conversation, a tap or a link is a message for them, not the flow's.
 */
export function viewingStep(
  desk: ViewingDesk,
  listings: (botId: string) => ListingCards,
  keywords: string[],
): AnswerStep {
  return {
    name: "viewing",
    async handle(turn) {
      const visited = visitedListing(turn);
      if ((visited !== undefined || tapsViewing(turn.batch)) && (await turn.paused())) return "next";
      const leaves =
        turn.command !== undefined ||
        turn.text.startsWith("/") ||
        visited !== undefined ||
        handoffIntent(turn.text, keywords) !== undefined;
      const bot = { settings: turn.bot.settings, listings: listings(turn.bot.link.botId) };
      // Not a turn of the viewing flow: nothing changed, and asking again after a crash answers the same.
      const flow = await turn.once(
        "viewing",
        async () => (await desk.handle(turn.conversation, [...turn.batch], leaves, bot)) ?? null,
        (found) => found !== null,
      );
      if (!flow) return "next";
      await turn.greetFirst();
      for (const [index, text] of flow.replies.entries()) {
        await turn.sendOnce(`viewing-send:${index}`, { text, format: "plain" });
      }
      const lead = flow.lead;
      if (lead) await turn.once("viewing-lead", () => turn.recordLead(lead).then(() => true));
      return "handled";
    },
  };
}
