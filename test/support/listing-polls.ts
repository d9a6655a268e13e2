import type { ScriptedChatbot } from "../upstream/scripted-chatbot.js";
import { until } from "./waiting.js";

/** The alerts' polls of the chatbot's listings so far (the answers' card lookups name an MLS number, polls do not). */
export function listingPolls(chatbot: ScriptedChatbot): number {
  return chatbot.listingQueries.filter((query) => query.MLSNumber === undefined).length;
}

/** Waits for `count` more polls: whatever they queue is on its way by then, give or take a moment. */
export async function morePolls(chatbot: ScriptedChatbot, count = 3): Promise<void> {
  const from = listingPolls(chatbot);
  await until(() => (listingPolls(chatbot) >= from + count ? true : undefined), 20_000);
  await new Promise((resolve) => setTimeout(resolve, 300));
}
