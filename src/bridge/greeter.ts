import type Keyv from "keyv";
import type { OutgoingText } from "./channel.js";
import type { ChatbotSettingsReader } from "./chatbot-settings.js";
import { GREETED_PREFIX } from "./store/key-prefixes.js";

/**
 * The chatbot's greeting: its WelcomeMessage with its SuggestedMessage entries (one per line) as quick
 * replies, from the chatbot's settings; where they cannot be read (the hosted platform) the configured
 * WELCOME_TEXT.
 */
export class Greeter {
  constructor(
    private readonly keyv: Keyv,
    private readonly settings: ChatbotSettingsReader,
    private readonly fallback: string,
  ) {}

  async greeting(): Promise<OutgoingText> {
    const settings = await this.settings.read();
    if (!settings?.WelcomeMessage) return { text: this.fallback, format: "plain" };
    const suggestions = (settings.SuggestedMessage ?? "")
      .split(/\r?\n/)
      .map((line) => line.trim())
      .filter(Boolean);
    return { text: settings.WelcomeMessage, format: "markdown", quickReplies: suggestions };
  }
  /** True the first time a conversation is seen (ever), so it gets the greeting before its first answer. */
  async firstContact(conversation: string): Promise<boolean> {
    const key = `${GREETED_PREFIX}${conversation}`;
    if (await this.keyv.get(key)) return false;
    await this.keyv.set(key, true);
    return true;
  }
}
