import type { ChatbotSettings } from "../client/index.js";
import type { Logger } from "../common/log.js";
import type { ChatbotLink } from "./chatbot-link.js";

/** How long a chatbot's settings are reused before they are read again (a failed read too). */
const SETTINGS_TTL_MS = 60_000;

/**
 * The settings of one bot's chatbot (WelcomeMessage, SuggestedMessage, TalkToHumanEmail…), read through `Get`, an
 * extension of the embedded server, and kept for a minute. The hosted platform has no such operation: there the
 * read fails, `undefined` is returned, and callers use the configured fallbacks.
 */
export class ChatbotSettingsReader {
  #cached: { settings: ChatbotSettings | undefined; readAt: number } | undefined;

  constructor(
    private readonly link: ChatbotLink,
    private readonly log: Logger,
  ) {}

  /**
   * The settings, read again when the copy kept is older than `maxAgeMs` (default a minute): the web widget asks for
   * a few seconds, so that an `Edit` shows on the visitor's next page load.
   */
  async read(maxAgeMs = SETTINGS_TTL_MS): Promise<ChatbotSettings | undefined> {
    if (this.#cached && this.#cached.readAt + maxAgeMs > Date.now()) return this.#cached.settings;
    let settings: ChatbotSettings | undefined;
    try {
      settings = await this.link.client.getChatbot(this.link.serialNumber);
    } catch (error) {
      this.log.debug({ err: error, botId: this.link.botId }, "chatbot settings unavailable; using the fallbacks");
    }
    this.#cached = { settings, readAt: Date.now() };
    return settings;
  }
}
