import { defineChannelPlugin, startEach } from "../../src/channel-plugin.js";
import { telegramConversationLink } from "./conversation-link.js";
import { type TelegramWebhook, telegramWebhookRoutes } from "./routes.js";
import {
  TELEGRAM_VARIABLES,
  type TelegramEntry,
  type TelegramSettings,
  telegramEntry,
  telegramSettingsForBot,
} from "./settings.js";
import { startTelegram } from "./setup.js";

/** Telegram: each bot's webhook (`/webhooks/telegram[/<botId>]`) or long polling, answers as native drafts. */
export const telegramPlugin = defineChannelPlugin<typeof TELEGRAM_VARIABLES, TelegramSettings, TelegramEntry>({
  name: "telegram",
  variables: TELEGRAM_VARIABLES,
  settingsFromVariables: (values) => ({
    botToken: values.TELEGRAM_BOT_TOKEN,
    webhookSecret: values.TELEGRAM_WEBHOOK_SECRET,
    apiRoot: values.TELEGRAM_API_ROOT,
    mode: values.TELEGRAM_MODE,
    draftRates: { chat: values.TELEGRAM_DRAFT_CHAT_RATE, bot: values.TELEGRAM_DRAFT_BOT_RATE },
  }),
  botEntry: telegramEntry,
  settingsForBot: telegramSettingsForBot,
  distinct: {
    of: (entry) => entry.botToken,
    problem: () => "two bots share one Telegram bot token; each Telegram bot belongs to one entry.",
  },
  warnings: (bots, { publicUrl }) => {
    const webhooks = bots.some(({ settings }) => settings.botToken && settings.mode === "webhook");
    if (!publicUrl?.startsWith("http://") || !webhooks) return [];
    return [
      `PUBLIC_URL=${publicUrl} is not https: Telegram posts webhooks only to https:// addresses (except a local Bot API server); set PUBLIC_URL to the https address of this server, or TELEGRAM_MODE=polling.`,
    ];
  },
  conversationLink: (settings, start) => telegramConversationLink(settings, start),
  start: async ({ bots, bridge, http, store, log, onMalformed, receive, deployment }) => {
    // One route for every bot's webhook; each bot in webhook mode adds itself once its secret is known.
    const webhooks = new Map<string, TelegramWebhook>();
    if (receive) http.use(telegramWebhookRoutes(webhooks, { log, onMalformed }));
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
  },
});
