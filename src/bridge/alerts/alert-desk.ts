import type { OutgoingText } from "../channel.js";
import type { ReplyTarget } from "../inbound.js";
import { alertCommandIn } from "./alert-commands.js";
import { answerFlow, questionOf, startFlow } from "./alert-flow.js";
import type { ConversationAlerts, SavedSearches } from "./saved-searches.js";
import { describeCriteria } from "./search-criteria.js";

/** Saved searches one conversation may have: each is matched against every listing change. */
export const MAX_SEARCHES = 10;

/** Where a conversation's alerts go. */
export interface AlertOrigin {
  channel: string;
  botId: string;
  target: ReplyTarget;
}

const plain = (text: string, quickReplies?: string[]): OutgoingText => ({ text, format: "plain", quickReplies });

/**
 * The user's side of alerts: `/alert`'s guided flow, `/alerts` with removal, and `/stop` (or "stop") ending them
 * all. Runs in the conversation's turn, so a flow's answer is never mistaken for a question to the chatbot.
 */
export class AlertDesk {
  constructor(
    private readonly searches: SavedSearches,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * The reply to a message that is about alerts (a command, or the answer to the flow's question), after recording
   * what it changed; undefined for any other message, which goes to the chatbot as usual.
   */
  async handle(conversation: string, origin: AlertOrigin, text: string): Promise<OutgoingText | undefined> {
    const command = alertCommandIn(text);
    const stored = await this.searches.read(conversation);
    if (!command && !stored?.flow) return undefined;
    // The latest address: a channel's target may carry what replying needs (a thread), kept fresh for alerts.
    const alerts: ConversationAlerts = { ...stored, ...origin, searches: stored?.searches ?? [] };
    const save = () => this.searches.write(conversation, alerts);
    if (!command) return this.#answer(alerts, text, save);
    switch (command.kind) {
      case "alert": {
        if (alerts.searches.length >= MAX_SEARCHES) {
          return plain(`You have ${MAX_SEARCHES} alerts, the most there can be. /alerts lists them to remove one.`);
        }
        alerts.flow = startFlow();
        await save();
        const question = questionOf(alerts.flow.step);
        return plain(`Let's set up an alert for new homes. ${question.text}`, question.quickReplies);
      }
      case "list":
        return this.#list(alerts);
      case "remove": {
        const removed = alerts.searches[command.index - 1];
        if (!removed) return plain(`There is no alert ${command.index}. /alerts lists yours.`);
        alerts.searches.splice(command.index - 1, 1);
        await save();
        return plain(`Removed alert ${command.index}: ${describeCriteria(removed.criteria)}.`);
      }
      case "stop": {
        const had = alerts.searches.length > 0 || alerts.flow !== undefined;
        alerts.searches = [];
        alerts.flow = undefined;
        alerts.pending = undefined;
        await save();
        return plain(had ? "All your alerts are stopped. /alert sets up a new one." : "You have no alerts.");
      }
    }
  }

  async #answer(alerts: ConversationAlerts, text: string, save: () => Promise<void>): Promise<OutgoingText> {
    const flow = alerts.flow;
    if (!flow) throw new Error("no flow under way");
    if (/^\/?cancel$/i.test(text.trim())) {
      alerts.flow = undefined;
      await save();
      return plain("Alert not saved.");
    }
    const outcome = answerFlow(flow, text);
    if (outcome.kind === "invalid") {
      const question = questionOf(flow.step);
      return plain(`${outcome.hint} ${question.text}`, question.quickReplies);
    }
    if (outcome.kind === "next") {
      alerts.flow = outcome.state;
      await save();
      const question = questionOf(outcome.state.step);
      return plain(question.text, question.quickReplies);
    }
    alerts.flow = undefined;
    alerts.searches.push({ criteria: outcome.criteria, savedAt: this.now() });
    await save();
    return plain(
      `Saved alert ${alerts.searches.length}: ${describeCriteria(outcome.criteria)}. /alerts lists your alerts, /stop ends them.`,
    );
  }

  #list(alerts: ConversationAlerts): OutgoingText {
    if (alerts.searches.length === 0) return plain("You have no alerts. /alert sets one up.");
    const lines = alerts.searches.map((search, index) => `${index + 1}. ${describeCriteria(search.criteria)}`);
    const removals = alerts.searches.map((_search, index) => `/alerts remove ${index + 1}`);
    return plain(
      `Your alerts:\n${lines.join("\n")}\n\nRemove one with /alerts remove <number>; /stop ends them all.`,
      removals,
    );
  }
}
