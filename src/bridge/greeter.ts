import type Keyv from "keyv";
import type { Logger } from "../log.js";
import type { ChatbotLink } from "./bridge.js";
import type { OutgoingText } from "./channel.js";

/** How long a chatbot's WelcomeMessage is reused before it is read again. */
const SETTINGS_TTL_MS = 60_000;

/**
 * The chatbot's greeting: its WelcomeMessage with its SuggestedMessage entries (one per line) as quick
 * replies, read from the server's chatbot settings (`Get`, an extension of the embedded server). The hosted
 * platform has no such operation, so there the configured WELCOME_TEXT is used.
 */
export class Greeter {
  #cached: { text: OutgoingText; until: number } | undefined;

  constructor(
    private readonly keyv: Keyv,
    private readonly link: ChatbotLink,
    private readonly fallback: string,
    private readonly log: Logger,
  ) {}

  async greeting(): Promise<OutgoingText> {
    if (this.#cached && this.#cached.until > Date.now()) return this.#cached.text;
    let text: OutgoingText = { text: this.fallback, format: "plain" };
    try {
      const settings = await this.link.client.getChatbot(this.link.serialNumber);
      const suggestions = (settings.SuggestedMessage ?? "")
        .split(/\r?\n/)
        .map((line) => line.trim())
        .filter(Boolean);
      if (settings.WelcomeMessage)
        text = { text: settings.WelcomeMessage, format: "markdown", quickReplies: suggestions };
    } catch (error) {
      this.log.debug({ err: error }, "chatbot settings unavailable; using WELCOME_TEXT");
    }
    this.#cached = { text, until: Date.now() + SETTINGS_TTL_MS };
    return text;
  }

  /** True the first time a conversation is seen (ever), so it gets the greeting before its first answer. */
  async firstContact(conversation: string): Promise<boolean> {
    const key = `greeted:${conversation}`;
    if (await this.keyv.get(key)) return false;
    await this.keyv.set(key, true);
    return true;
  }
}
