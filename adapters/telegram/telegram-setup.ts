import type { Router } from "express";
import type { Channel } from "../../src/bridge/channel.js";
import type { InboundSink } from "../../src/bridge/inbound.js";
import { type BridgeConfig, type Config, ConfigError } from "../../src/config.js";
import type { Logger } from "../../src/log.js";
import { TelegramChannel } from "./telegram-channel.js";
import { toChannelError } from "./telegram-errors.js";
import { TelegramInbound } from "./telegram-inbound.js";
import { ALLOWED_UPDATES, TelegramPoller } from "./telegram-polling.js";
import { TELEGRAM_WEBHOOK_PATH, telegramWebhookRoutes } from "./telegram-routes.js";

/** One line of the start banner: Telegram enabled (and how it receives), or what is missing. */
export interface TelegramStatus {
  name: "Telegram";
  enabled: boolean;
  detail: string;
}

/** What {@link startTelegram} needs: the bridge takes the messages and owns the channel's outbound side. */
export interface TelegramStartOptions {
  config: { telegram: Config["telegram"]; bridge: Pick<BridgeConfig, "publicUrl"> };
  bridge: InboundSink & { attach(channel: Channel): void };
  /** The express app (or a router) the webhook routes are mounted on. */
  app: { use(router: Router): unknown };
  log: Logger;
  /** The bot of this deployment (default `default`). */
  botId?: string;
}

/** Telegram running: its channel (undefined when disabled), its banner line, and how to stop receiving. */
export interface RunningTelegram {
  channel: TelegramChannel | undefined;
  status: TelegramStatus;
  /** Stops long polling (webhook mode: nothing to stop; Telegram keeps updates until the next start). */
  stop(): Promise<void>;
}

/**
 * Starts the Telegram channel when TELEGRAM_BOT_TOKEN is set: attaches it to the bridge, mounts
 * `POST /webhooks/telegram` and, in webhook mode, registers `${PUBLIC_URL}/webhooks/telegram` with setWebhook
 * (secret, the update types the bridge reads, pending updates kept); in polling mode it long-polls getUpdates
 * instead. Call it once the server listens, so the first delivery finds it.
 * @throws ConfigError in webhook mode without TELEGRAM_WEBHOOK_SECRET: the webhook would accept anyone's posts.
 */
export async function startTelegram(options: TelegramStartOptions): Promise<RunningTelegram> {
  const { config, bridge, app, log } = options;
  const { botToken, webhookSecret, apiRoot, mode } = config.telegram;
  const publicUrl = config.bridge.publicUrl;
  const disabled = (detail: string): RunningTelegram => ({
    channel: undefined,
    status: { name: "Telegram", enabled: false, detail },
    stop: async () => {},
  });
  if (!botToken) return disabled("set TELEGRAM_BOT_TOKEN to enable");
  if (mode === "webhook" && !webhookSecret) {
    throw new ConfigError([
      "TELEGRAM_WEBHOOK_SECRET is not set: in webhook mode it is what proves a request comes from Telegram. Set TELEGRAM_WEBHOOK_SECRET to 1-256 characters of A-Z, a-z, 0-9, _ and - (or set TELEGRAM_MODE=polling).",
    ]);
  }
  if (mode === "webhook" && !publicUrl) {
    return disabled("set PUBLIC_URL (the https address Telegram posts to), or TELEGRAM_MODE=polling");
  }
  const botId = options.botId ?? "default";
  const channel = new TelegramChannel({ token: botToken, apiRoot, botId, log });
  const getMe = () => channel.api.getMe().then((me) => ({ id: me.id, username: me.username }));
  const inbound = new TelegramInbound({ sink: bridge, bot: getMe, botId, log });
  bridge.attach(channel);
  const named = await inbound.identity().then(
    (bot) => `@${bot.username}`,
    (error: unknown) => {
      log.warn(
        { err: toChannelError(error), channel: "telegram" },
        "Telegram getMe failed; retried with the first update",
      );
      return "bot";
    },
  );
  if (mode === "polling") {
    const poller = new TelegramPoller({ api: channel.api, deliver: (update) => inbound.deliver(update), log });
    poller.start();
    return {
      channel,
      status: { name: "Telegram", enabled: true, detail: `${named}, long polling ${apiRoot}` },
      stop: () => poller.stop(),
    };
  }
  const secret = webhookSecret as string;
  app.use(telegramWebhookRoutes(new Map([[botId, { secret, deliver: (update) => inbound.deliver(update) }]]), { log }));
  const url = `${publicUrl}${TELEGRAM_WEBHOOK_PATH}${botId === "default" ? "" : `/${encodeURIComponent(botId)}`}`;
  try {
    await channel.api.setWebhook(url, {
      secret_token: secret,
      allowed_updates: [...ALLOWED_UPDATES],
      // Updates that arrived while the bridge was down are still answered (Telegram keeps them 24 h).
      drop_pending_updates: false,
    });
  } catch (error) {
    const failure = toChannelError(error);
    log.error({ err: failure, channel: "telegram", url }, "Telegram setWebhook failed");
    return {
      channel,
      status: { name: "Telegram", enabled: false, detail: `setWebhook failed: ${failure.message}` },
      stop: async () => {},
    };
  }
  return {
    channel,
    status: { name: "Telegram", enabled: true, detail: `${named}, webhook ${url}` },
    stop: async () => {},
  };
}
