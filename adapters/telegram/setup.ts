import type { ChannelStatus } from "../../src/plugin/channel-plugin.js";
import {
  type Channel,
  ConfigError,
  type InboundSink,
  type Leases,
  type Logger,
  type ReportMalformed,
} from "../../src/plugin/plugin-api.js";
import { TelegramInbound } from "./delivery.js";
import { toChannelError } from "./errors.js";
import { LeasedTelegramPolling } from "./leased-polling.js";
import { TelegramChannel } from "./outbound.js";
import { ALLOWED_UPDATES, TelegramPoller } from "./polling.js";
import { TELEGRAM_WEBHOOK_PATH, type TelegramWebhook } from "./routes.js";
import { type TelegramSettings, telegramOff } from "./settings.js";

/** What {@link startTelegram} needs: the bridge takes the messages and owns the channel's outbound side. */
export interface TelegramStartOptions {
  /** The bot of this deployment (`default` for the one the environment describes). */
  botId: string;
  telegram: TelegramSettings;
  /** PUBLIC_URL, which webhook mode registers with Telegram. */
  publicUrl: string | undefined;
  bridge: InboundSink & { attach(channel: Channel): void };
  /** The webhooks served by {@link telegramWebhookRoutes}; this bot's is added in webhook mode. */
  webhooks: Map<string, TelegramWebhook>;
  log: Logger;
  /** Where updates that do not fit what the bridge reads are reported, in both modes. */
  onMalformed?: ReportMalformed | undefined;
  /** The store's named leases: in polling mode only the holder of `telegram-polling:<botId>` polls. */
  leases: Leases;
  /**
   * false: the outbound side only (role worker): no webhook route, no setWebhook, no polling — other processes take
   * the updates; neither PUBLIC_URL nor the webhook secret is needed then. Default true.
   */
  receive?: boolean | undefined;
}

/** Telegram running: its channel (undefined when disabled), its banner line, and how to stop receiving. */
export interface RunningTelegram {
  channel: TelegramChannel | undefined;
  status: ChannelStatus;
  /** Stops long polling (webhook mode: nothing to stop; Telegram keeps updates until the next start). */
  stop(): Promise<void>;
}

/**
 * Starts one bot's Telegram channel when it has a token: attaches it to the bridge and, in webhook mode, serves
 * `POST /webhooks/telegram` (the bot `default`) or `/webhooks/telegram/<botId>` and registers that address under
 * PUBLIC_URL with setWebhook (secret, the update types the bridge reads, pending updates kept); in polling mode it
 * long-polls getUpdates instead, while it holds the polling lease (one process per token). Call it once the server
 * listens, so the first delivery finds it. With `receive: false` only the channel is attached, to answer.
 * @throws ConfigError in webhook mode without a webhook secret: the webhook would accept anyone's posts.
 */
export async function startTelegram(options: TelegramStartOptions): Promise<RunningTelegram> {
  const { botId, telegram, publicUrl, bridge, webhooks, log } = options;
  const { webhookSecret, apiRoot, mode } = telegram;
  const off = telegramOff(botId, telegram);
  if (off) return { channel: undefined, status: off, stop: async () => {} };
  // telegramOff said the bot has its token.
  const botToken = telegram.botToken as string;
  const named = botId !== "default";
  const name = named ? `Telegram (${botId})` : "Telegram";
  const disabled = (detail: string): RunningTelegram => ({
    channel: undefined,
    status: { name, enabled: false, detail },
    stop: async () => {},
  });
  const receive = options.receive ?? true;
  if (receive && mode === "webhook" && !webhookSecret) {
    const setting = named ? `telegram.webhookSecret of bot "${botId}" in BRIDGE_CONFIG` : "TELEGRAM_WEBHOOK_SECRET";
    throw new ConfigError([
      `${setting} is not set: in webhook mode it is what proves a request comes from Telegram. Set it to 1-256 characters of A-Z, a-z, 0-9, _ and - (or use polling mode).`,
    ]);
  }
  if (receive && mode === "webhook" && !publicUrl) {
    return disabled("set PUBLIC_URL (the https address Telegram posts to), or TELEGRAM_MODE=polling");
  }
  const channel = new TelegramChannel({ token: botToken, apiRoot, botId, log, draftRates: telegram.draftRates });
  const getMe = () => channel.api.getMe().then((me) => ({ id: me.id, username: me.username }));
  const inbound = new TelegramInbound({
    sink: bridge,
    bot: getMe,
    botId,
    log,
    onMalformed: options.onMalformed,
    answerTap: (id) => channel.api.answerCallbackQuery(id),
  });
  bridge.attach(channel);
  const handle = await inbound.identity().then(
    (bot) => `@${bot.username}`,
    (error: unknown) => {
      log.warn(
        { err: toChannelError(error), channel: "telegram", botId },
        "Telegram getMe failed; retried with the first update",
      );
      return "bot";
    },
  );
  if (!receive) {
    return {
      channel,
      status: { name, enabled: true, detail: `${handle}, answering only (role worker)` },
      stop: async () => {},
    };
  }
  if (mode === "polling") {
    const polling = new LeasedTelegramPolling({
      leases: options.leases,
      botId,
      poller: (until) =>
        new TelegramPoller({ api: channel.api, deliver: (update) => inbound.deliver(update), log, until }),
      log,
    });
    polling.start();
    return {
      channel,
      status: { name, enabled: true, detail: `${handle}, long polling ${apiRoot}` },
      stop: () => polling.stop(),
    };
  }
  const secret = webhookSecret as string;
  webhooks.set(botId, { secret, deliver: (update) => inbound.deliver(update) });
  const url = `${publicUrl}${TELEGRAM_WEBHOOK_PATH}${named ? `/${encodeURIComponent(botId)}` : ""}`;
  try {
    await channel.api.setWebhook(url, {
      secret_token: secret,
      allowed_updates: [...ALLOWED_UPDATES],
      // Updates that arrived while the bridge was down are still answered (Telegram keeps them 24 h).
      drop_pending_updates: false,
      // Telegram's default is 40. The bridge only queues each update before it answers 200, so a burst (a broadcast's
      // replies, a busy hour) is taken sooner with more at once, each post waiting a turn of a busy process rather
      // than for one of 40 connections (docs/channels.md).
      max_connections: telegram.webhookConnections,
    });
  } catch (error) {
    const failure = toChannelError(error);
    log.error({ err: failure, channel: "telegram", botId, url }, "Telegram setWebhook failed");
    return {
      channel,
      status: { name, enabled: false, detail: `setWebhook failed: ${failure.message}` },
      stop: async () => {},
    };
  }
  return {
    channel,
    status: { name, enabled: true, detail: `${handle}, webhook ${url}` },
    stop: async () => {},
  };
}
