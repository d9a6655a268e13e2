import type { Config } from "./config.js";

/**
 * Settings that are valid but will likely not work as meant, one line each with the fix, for the start banner: each
 * channel plugin's warnings about its bots, and the bots whose listing cards cannot appear. A warning, not an error:
 * a local Bot API server (TELEGRAM_API_ROOT) accepts http:// webhooks, for instance.
 */
export function configWarnings(config: Config): string[] {
  const deployment = { publicUrl: config.bridge.publicUrl };
  return [
    ...config.channels.flatMap(({ plugin, bots }) => plugin.warnings?.(bots, deployment) ?? []),
    ...listingCardsWarnings(config),
  ];
}

/**
 * Listing cards (and "Similar homes", "Book a viewing", listing links) look listings up with RealEstateList, which
 * needs the workspace's session key: on an external chatbot API without one, every lookup is refused before it is
 * sent and the cards silently never appear. The embedded server's demo brings its own key, so a bot on it is fine.
 */
function listingCardsWarnings(config: Config): string[] {
  if (config.bridge.listingCardsMax <= 0) return [];
  const api = config.chatbotApi;
  const bots = [{ id: "default", chatbot: {} as Partial<Config["bots"][number]["chatbot"]> }, ...config.bots];
  const without = bots.filter((bot) => (bot.chatbot.apiUrl ?? api.url) && !(bot.chatbot.sessionKey ?? api.sessionKey));
  if (without.length === 0) return [];
  const which =
    without.length === 1 && without[0]?.id === "default" ? "" : ` (bots: ${without.map((bot) => bot.id).join(", ")})`;
  return [
    `CHATBOT_SESSION_KEY is not set${which}: listing cards under answers, "Similar homes", "Book a viewing" and listing links need it to look listings up — set CHATBOT_SESSION_KEY (or chatbot.sessionKey in BRIDGE_CONFIG) to the workspace's session key, or LISTING_CARDS_MAX=0 to turn the cards off.`,
  ];
}
