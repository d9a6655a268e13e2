import { type ChannelContext, type RunningChannel, startEach } from "../../src/plugin/channel-plugin.js";
import { type TelegramWebhook, telegramWebhookRoutes } from "./routes.js";
import type { TelegramSettings } from "./settings.js";
import { startTelegram } from "./setup.js";

export { telegramConversationLink } from "./conversation-link.js";

/**
 * The Telegram plugin's half over grammY, imported on first use (src/common/lazy-parts.ts): starting its bots, and the
 * conversation links, which ask the Bot API for the bot's username.
 */
export async function startTelegramChannel({
  bots,
  bridge,
  routes,
  store,
  log,
  onMalformed,
  receive,
  deployment,
}: ChannelContext<TelegramSettings>): Promise<RunningChannel> {
  // One route for every bot's webhook; each bot in webhook mode adds itself once its secret is known.
  const webhooks = new Map<string, TelegramWebhook>();
  if (receive) routes.mount(telegramWebhookRoutes(webhooks, { log, onMalformed }));
  return startEach(bots, ({ botId, settings }) =>
    startTelegram({
      botId,
      telegram: settings,
      publicUrl: deployment.publicUrl,
      bridge,
      webhooks,
      log,
      onMalformed,
      leases: store.leases,
      receive,
    }),
  );
}
