import type { ChatbotClient, ChatbotPicture, ChatbotSettings, PictureKind } from "../client/index.js";

/** The chatbot one bot of this deployment talks to. */
export interface ChatbotLink {
  botId: string;
  client: ChatbotClient;
  serialNumber: string;
  /** This bot's greeting when its chatbot's WelcomeMessage cannot be read; undefined = WELCOME_TEXT. */
  welcomeText?: string | undefined;
}

/** A bot's chatbot as channels may see it (the web widget takes its looks from its settings). */
export interface ChatbotView {
  serialNumber: string;
  /** Its settings as `Get` reads them, no older than `maxAgeMs`; undefined where the API has no such operation. */
  settings(maxAgeMs?: number): Promise<ChatbotSettings | undefined>;
  /**
   * Its avatar (`profile`) or launcher picture (`icon`) when its settings name an image file (ChatProfilePicture,
   * ChatIcon) the API serves: the self-hosted server does, the hosted platform does not (undefined there).
   */
  picture?(kind: PictureKind): Promise<ChatbotPicture | undefined>;
}
