import { z } from "zod";
import type { ChannelStatus } from "../../src/plugin/channel-plugin.js";
import { baseUrl } from "../../src/plugin/plugin-api.js";

/** A Telegram bot token as @BotFather gives it. */
const botToken = z
  .string()
  .trim()
  .regex(/^\d+:[\w-]{20,}$/, "must look like 123456789:AA… (from @BotFather)");

/** Telegram's rules for setWebhook's `secret_token`. */
const webhookSecret = z.string().regex(/^[A-Za-z0-9_-]{1,256}$/, "must be 1-256 letters, digits, _ or -");

const mode = z.enum(["webhook", "polling"]);

/** One bot's Telegram settings: TELEGRAM_* for the bot `default`, its `telegram` entry in BRIDGE_CONFIG otherwise. */
export interface TelegramSettings {
  /** Undefined = Telegram is off for this bot. */
  botToken: string | undefined;
  webhookSecret: string | undefined;
  apiRoot: string;
  mode: "webhook" | "polling";
  /** Drafts a second to one chat, and of the whole bot (see `telegramDraftLimits`); the same for every bot. */
  draftRates: { chat: number; bot: number };
  /** setWebhook's `max_connections`: how many updates Telegram posts at once; the same for every bot. */
  webhookConnections: number;
}

/** The variables of the bot `default`. */
export const TELEGRAM_VARIABLES = {
  TELEGRAM_BOT_TOKEN: {
    schema: botToken.optional(),
    fix: "the bot token from @BotFather, or leave it unset to disable Telegram",
    secret: true,
  },
  TELEGRAM_WEBHOOK_SECRET: {
    schema: webhookSecret.optional(),
    fix: "1-256 characters of A-Z, a-z, 0-9, _ and - (Telegram's secret_token rules)",
    secret: true,
  },
  TELEGRAM_API_ROOT: {
    schema: baseUrl.default("https://api.telegram.org"),
    fix: "the Bot API root, https://api.telegram.org by default (a local Bot API server or an emulator otherwise)",
  },
  TELEGRAM_MODE: {
    schema: mode.default("webhook"),
    fix: "webhook (the default; needs PUBLIC_URL) or polling (for local use without a public URL)",
  },
  TELEGRAM_DRAFT_CHAT_RATE: {
    schema: z.coerce.number().min(0.1).max(20).default(2),
    fix: "drafts a second to one chat, from 0.1 to 20 (default 2: an answer's draft grows every 500 ms)",
  },
  TELEGRAM_WEBHOOK_MAX_CONNECTIONS: {
    schema: z.coerce.number().int().min(1).max(100).default(100),
    fix: "how many updates Telegram may post at once (setWebhook's max_connections), from 1 to 100 (default 100)",
  },
  TELEGRAM_DRAFT_BOT_RATE: {
    schema: z.coerce.number().int().min(1).max(10_000).default(300),
    fix: "drafts a second of the whole bot, from 1 to 10000 (default 300)",
  },
};

/** A bot's `telegram` entry in BRIDGE_CONFIG; what it leaves out is the bot `default`'s (TELEGRAM_API_ROOT, TELEGRAM_MODE). */
export const telegramEntry = z.strictObject({
  botToken,
  webhookSecret: webhookSecret.optional(),
  /** A bot may have its own local Bot API server. */
  apiRoot: baseUrl.optional(),
  mode: mode.optional(),
});
export type TelegramEntry = z.output<typeof telegramEntry>;

/** A named bot's settings: its own token and secret (never the default bot's), the root and mode it inherits. */
export function telegramSettingsForBot(entry: TelegramEntry, defaults: TelegramSettings): TelegramSettings {
  return {
    botToken: entry.botToken,
    webhookSecret: entry.webhookSecret,
    apiRoot: entry.apiRoot ?? defaults.apiRoot,
    mode: entry.mode ?? defaults.mode,
    draftRates: defaults.draftRates,
    webhookConnections: defaults.webhookConnections,
  };
}

/** The banner line of a bot without a Telegram token (Telegram is off for it), or undefined when it has one. */
export function telegramOff(botId: string, settings: TelegramSettings): ChannelStatus | undefined {
  if (settings.botToken) return undefined;
  const name = botId === "default" ? "Telegram" : `Telegram (${botId})`;
  return { name, enabled: false, detail: "set TELEGRAM_BOT_TOKEN to enable" };
}
