import { alertRequestIn, type RequestLanguage } from "../../real-estate/alert-request.js";
import type { OutgoingText } from "../channel.js";
import type { ReplyTarget } from "../inbound.js";
import { alertCommandIn } from "./alert-commands.js";
import { answerFlow, questionOf, startFlow } from "./alert-flow.js";
import { alertSentenceIn } from "./alert-sentence.js";
import type { ConversationAlerts, SavedSearches } from "./saved-searches.js";
import { describeCriteria, type SearchCriteria } from "./search-criteria.js";

/** Saved searches one conversation may have: each is matched against every listing change. */
export const MAX_SEARCHES = 10;

/** Where a conversation's alerts go. */
export interface AlertOrigin {
  channel: string;
  botId: string;
  target: ReplyTarget;
}

/** What an {@link AlertDesk} works with. */
export interface AlertDeskOptions {
  /**
   * The cities of bot `botId`'s listings, so that a sentence's city is the listings' own ("austin" saved as
   * "Austin"); empty when they cannot be read. Asked only for a sentence that asks for an alert.
   */
  cities?: ((botId: string) => Promise<readonly string[]>) | undefined;
  now?: (() => number) | undefined;
}

const plain = (text: string, quickReplies?: string[]): OutgoingText => ({ text, format: "plain", quickReplies });

/** The replies a sentence may get, in its language; the guided flow and the commands speak English. */
const SAID: Record<RequestLanguage, { saved(index: number, search: string): string; full: string }> = {
  en: {
    saved: (index, search) => `Saved alert ${index}: ${search}. /alerts lists your alerts, /stop ends them.`,
    full: `You have ${MAX_SEARCHES} alerts, the most there can be. /alerts lists them to remove one.`,
  },
  es: {
    saved: (index, search) => `Alerta ${index} guardada: ${search}. /alerts muestra tus alertas, /stop las termina.`,
    full: `Ya tienes ${MAX_SEARCHES} alertas, el máximo. /alerts las muestra para quitar una.`,
  },
};

/**
 * The user's side of alerts: a sentence asking for one ("notify me about new 3-bedroom homes in Austin under 600k",
 * "avísame cuando haya casas en Austin"), `/alert`'s guided flow, `/alerts` with removal, and `/stop` (or "stop")
 * ending them all. Runs in the conversation's turn, before the chatbot is asked, so a flow's answer is never mistaken
 * for a question and a sentence works whatever the chatbot (the hosted platform and LLM answers have no alerts).
 *
 * Every change is written with the event id of the message that made it and its reply: the same message handled
 * again (a job resumed after a crash that came between the write and the job's ledger) gets that reply, and
 * changes nothing twice.
 */
export class AlertDesk {
  readonly #cities: (botId: string) => Promise<readonly string[]>;
  readonly #now: () => number;

  constructor(
    private readonly searches: SavedSearches,
    options: AlertDeskOptions = {},
  ) {
    this.#cities = options.cities ?? (async () => []);
    this.#now = options.now ?? Date.now;
  }

  /**
   * The reply to message `eventId` when it is about alerts (a command, a sentence asking for one, or the answer to
   * the flow's question), after recording what it changed; undefined for any other message, which goes to the
   * chatbot as usual.
   */
  async handle(
    conversation: string,
    origin: AlertOrigin,
    text: string,
    eventId: string,
  ): Promise<OutgoingText | undefined> {
    const stored = await this.searches.read(conversation);
    if (stored?.last?.eventId === eventId) return stored.last.reply;
    const command = alertCommandIn(text);
    const sentence = command ? undefined : alertSentenceIn(text, await this.#citiesIfAsked(origin.botId, text));
    if (!command && !sentence && !stored?.flow) return undefined;
    // The latest address: a channel's target may carry what replying needs (a thread), kept fresh for alerts.
    const alerts: ConversationAlerts = { ...stored, ...origin, searches: stored?.searches ?? [] };
    const save = async (reply: OutgoingText) => {
      alerts.last = { eventId, reply };
      await this.searches.write(conversation, alerts);
      return reply;
    };
    if (sentence) return this.#sentence(alerts, sentence.criteria, sentence.language, save);
    if (!command) return this.#answer(alerts, text, save);
    switch (command.kind) {
      case "alert":
        return this.#startFlow(alerts, {}, save);
      case "list":
        return this.#list(alerts);
      case "remove": {
        const removed = alerts.searches[command.index - 1];
        if (!removed) return plain(`There is no alert ${command.index}. /alerts lists yours.`);
        alerts.searches.splice(command.index - 1, 1);
        return save(plain(`Removed alert ${command.index}: ${describeCriteria(removed.criteria)}.`));
      }
      case "stop": {
        const had = alerts.searches.length > 0 || alerts.flow !== undefined;
        alerts.searches = [];
        alerts.flow = undefined;
        alerts.pending = undefined;
        return save(plain(had ? "All your alerts are stopped. /alert sets up a new one." : "You have no alerts."));
      }
    }
  }

  /** The bot's cities, looked up only when the text asks for an alert at all (most messages cost nothing). */
  async #citiesIfAsked(botId: string, text: string): Promise<readonly string[]> {
    if (!alertRequestIn(text)) return [];
    return this.#cities(botId).catch(() => []);
  }

  /** A sentence: saved at once when it names a criterion besides the type; otherwise the flow asks for the rest. */
  #sentence(
    alerts: ConversationAlerts,
    criteria: SearchCriteria,
    language: RequestLanguage,
    save: (reply: OutgoingText) => Promise<OutgoingText>,
  ): Promise<OutgoingText> {
    const { propertyType, ...rest } = criteria;
    if (Object.keys(rest).length === 0) return this.#startFlow(alerts, propertyType ? { propertyType } : {}, save);
    if (alerts.searches.length >= MAX_SEARCHES) return Promise.resolve(plain(SAID[language].full));
    alerts.flow = undefined;
    alerts.searches.push({ criteria, savedAt: this.#now() });
    return save(plain(SAID[language].saved(alerts.searches.length, describeCriteria(criteria, language))));
  }

  async #startFlow(
    alerts: ConversationAlerts,
    known: SearchCriteria,
    save: (reply: OutgoingText) => Promise<OutgoingText>,
  ): Promise<OutgoingText> {
    if (alerts.searches.length >= MAX_SEARCHES) return plain(SAID.en.full);
    alerts.flow = startFlow(known);
    const question = questionOf(alerts.flow.step);
    return save(plain(`Let's set up an alert for new homes. ${question.text}`, question.quickReplies));
  }

  async #answer(
    alerts: ConversationAlerts,
    text: string,
    save: (reply: OutgoingText) => Promise<OutgoingText>,
  ): Promise<OutgoingText> {
    const flow = alerts.flow;
    if (!flow) throw new Error("no flow under way");
    if (/^\/?cancel$/i.test(text.trim())) {
      alerts.flow = undefined;
      return save(plain("Alert not saved."));
    }
    const outcome = answerFlow(flow, text);
    if (outcome.kind === "invalid") {
      const question = questionOf(flow.step);
      return plain(`${outcome.hint} ${question.text}`, question.quickReplies);
    }
    if (outcome.kind === "next") {
      alerts.flow = outcome.state;
      const question = questionOf(outcome.state.step);
      return save(plain(question.text, question.quickReplies));
    }
    alerts.flow = undefined;
    alerts.searches.push({ criteria: outcome.criteria, savedAt: this.#now() });
    return save(plain(SAID.en.saved(alerts.searches.length, describeCriteria(outcome.criteria))));
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
