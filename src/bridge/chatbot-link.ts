import type { ChatbotClient } from "../client/index.js";

/** The chatbot one bot of this deployment talks to. */
export interface ChatbotLink {
  botId: string;
  client: ChatbotClient;
  serialNumber: string;
  /** This bot's greeting when its chatbot's WelcomeMessage cannot be read; undefined = WELCOME_TEXT. */
  welcomeText?: string | undefined;
}
