import type { OutgoingText } from "../../bridge/channel.js";
import type { ReplyTarget } from "../../bridge/inbound.js";
import { alertRequestIn, type RequestLanguage } from "../../real-estate/alert-request.js";
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
  /**
   * The language bot `botId` speaks (its chatbot's AIResponseLanguage), for the guided flow and the commands'
   * replies; English when not given or unreadable. A sentence is answered in its own language.
   */
  language?: ((botId: string) => Promise<RequestLanguage>) | undefined;
  now?: (() => number) | undefined;
}

const plain = (text: string, quickReplies?: string[]): OutgoingText => ({ text, format: "plain", quickReplies });

/** What the desk says: to a sentence in the sentence's language, to the flow and the commands in the bot's. */
interface Said {
  saved(index: number, search: string): string;
  full: string;
  flowStart: string;
  notSaved: string;
  noSuch(index: number): string;
  removed(index: number, search: string): string;
  stopped: string;
  none: string;
  noneYet: string;
  list(lines: string): string;
}

const SAID: Record<RequestLanguage, Said> = {
  en: {
    saved: (index, search) => `Saved alert ${index}: ${search}. /alerts lists your alerts, /stop ends them.`,
    full: `You have ${MAX_SEARCHES} alerts, the most there can be. /alerts lists them to remove one.`,
    flowStart: "Let's set up an alert for new homes.",
    notSaved: "Alert not saved.",
    noSuch: (index) => `There is no alert ${index}. /alerts lists yours.`,
    removed: (index, search) => `Removed alert ${index}: ${search}.`,
    stopped: "All your alerts are stopped. /alert sets up a new one.",
    none: "You have no alerts.",
    noneYet: "You have no alerts. /alert sets one up.",
    list: (lines) => `Your alerts:\n${lines}\n\nRemove one with /alerts remove <number>; /stop ends them all.`,
  },
  es: {
    saved: (index, search) => `Alerta ${index} guardada: ${search}. /alerts muestra tus alertas, /stop las termina.`,
    full: `Ya tienes ${MAX_SEARCHES} alertas, el máximo. /alerts las muestra para quitar una.`,
    flowStart: "Creemos una alerta de casas nuevas.",
    notSaved: "Alerta no guardada.",
    noSuch: (index) => `No hay alerta ${index}. /alerts muestra las tuyas.`,
    removed: (index, search) => `Alerta ${index} eliminada: ${search}.`,
    stopped: "Todas tus alertas están detenidas. /alert crea una nueva.",
    none: "No tienes alertas.",
    noneYet: "No tienes alertas. /alert crea una.",
    list: (lines) => `Tus alertas:\n${lines}\n\nQuita una con /alerts remove <número>; /stop las termina todas.`,
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
  readonly #language: (botId: string) => Promise<RequestLanguage>;
  readonly #now: () => number;

  constructor(
    private readonly searches: SavedSearches,
    options: AlertDeskOptions = {},
  ) {
    this.#cities = options.cities ?? (async () => []);
    this.#language = options.language ?? (async () => "en");
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
    // A flow under way speaks the language it started in.
    const language = alerts.flow?.language ?? (await this.#language(origin.botId).catch(() => "en" as const));
    const said = SAID[language];
    switch (command.kind) {
      case "alert":
        return this.#startFlow(alerts, {}, language, save);
      case "list":
        return this.#list(alerts, language);
      case "remove": {
        const removed = alerts.searches[command.index - 1];
        if (!removed) return plain(said.noSuch(command.index));
        alerts.searches.splice(command.index - 1, 1);
        return save(plain(said.removed(command.index, describeCriteria(removed.criteria, language))));
      }
      case "stop": {
        const had = alerts.searches.length > 0 || alerts.flow !== undefined;
        alerts.searches = [];
        alerts.flow = undefined;
        alerts.pending = undefined;
        return save(plain(had ? said.stopped : said.none));
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
    if (Object.keys(rest).length === 0) {
      return this.#startFlow(alerts, propertyType ? { propertyType } : {}, language, save);
    }
    if (alerts.searches.length >= MAX_SEARCHES) return Promise.resolve(plain(SAID[language].full));
    alerts.flow = undefined;
    alerts.searches.push({ criteria, savedAt: this.#now() });
    return save(plain(SAID[language].saved(alerts.searches.length, describeCriteria(criteria, language))));
  }

  async #startFlow(
    alerts: ConversationAlerts,
    known: SearchCriteria,
    language: RequestLanguage,
    save: (reply: OutgoingText) => Promise<OutgoingText>,
  ): Promise<OutgoingText> {
    if (alerts.searches.length >= MAX_SEARCHES) return plain(SAID[language].full);
    alerts.flow = startFlow(known, language);
    const question = questionOf(alerts.flow.step, language);
    return save(plain(`${SAID[language].flowStart} ${question.text}`, question.quickReplies));
  }

  async #answer(
    alerts: ConversationAlerts,
    text: string,
    save: (reply: OutgoingText) => Promise<OutgoingText>,
  ): Promise<OutgoingText> {
    const flow = alerts.flow;
    if (!flow) throw new Error("no flow under way");
    const language = flow.language ?? "en";
    if (/^\/?(?:cancel|cancelar)$/i.test(text.trim())) {
      alerts.flow = undefined;
      return save(plain(SAID[language].notSaved));
    }
    const outcome = answerFlow(flow, text);
    if (outcome.kind === "invalid") {
      const question = questionOf(flow.step, language);
      return plain(`${outcome.hint} ${question.text}`, question.quickReplies);
    }
    if (outcome.kind === "next") {
      alerts.flow = outcome.state;
      const question = questionOf(outcome.state.step, language);
      return save(plain(question.text, question.quickReplies));
    }
    alerts.flow = undefined;
    alerts.searches.push({ criteria: outcome.criteria, savedAt: this.#now() });
    return save(plain(SAID[language].saved(alerts.searches.length, describeCriteria(outcome.criteria, language))));
  }

  #list(alerts: ConversationAlerts, language: RequestLanguage): OutgoingText {
    if (alerts.searches.length === 0) return plain(SAID[language].noneYet);
    const lines = alerts.searches.map(
      (search, index) => `${index + 1}. ${describeCriteria(search.criteria, language)}`,
    );
    const removals = alerts.searches.map((_search, index) => `/alerts remove ${index + 1}`);
    return plain(SAID[language].list(lines.join("\n")), removals);
  }
}
