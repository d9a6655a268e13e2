import { defineChannelPlugin } from "../../src/plugin/channel-plugin.js";
import { lazyPart } from "../../src/plugin/plugin-api.js";
import {
  TELEGRAM_VARIABLES,
  type TelegramEntry,
  type TelegramSettings,
  telegramEntry,
  telegramOff,
  telegramSettingsForBot,
} from "./settings.js";

/** The plugin's half over grammY: imported when a bot has Telegram on, or a link is asked for. */
const loadRuntime = lazyPart("telegram", () => import("./runtime.js"));

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
    webhookConnections: values.TELEGRAM_WEBHOOK_MAX_CONNECTIONS,
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
  conversationLink: async (settings, start) => (await loadRuntime()).telegramConversationLink(settings, start),
  off: ({ botId, settings }) => telegramOff(botId, settings),
  start: async (context) => (await loadRuntime()).startTelegramChannel(context),
});
