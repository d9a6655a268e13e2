import type { Update } from "grammy/types";
import type { InboundSink } from "../../src/bridge/inbound.js";
import type { Logger } from "../../src/log.js";
import { type BotIdentity, parseUpdate } from "./telegram-updates.js";

/** What became of one update. */
export type DeliveryOutcome = "accepted" | "duplicate" | "stopping" | "cancelled" | "ignored";

/** What a {@link TelegramInbound} needs. */
export interface TelegramInboundOptions {
  sink: InboundSink;
  /** The bot as Telegram knows it, or a function resolving it (getMe) before the first update is read. */
  bot: BotIdentity | (() => Promise<BotIdentity>);
  /** The bot of this deployment (`default` unless several are configured). */
  botId: string;
  log?: Logger | undefined;
}

/**
 * Hands updates to the bridge, the same way for webhooks and long polling: parsed into messages (or a stop
 * request), updates that mean nothing to the bridge dropped. Anything that is not an Update (no numeric
 * update_id) is ignored: it came with the right secret, and refusing it would only make Telegram retry it.
 */
export class TelegramInbound {
  readonly #options: TelegramInboundOptions;
  #bot: Promise<BotIdentity> | undefined;

  constructor(options: TelegramInboundOptions) {
    this.#options = options;
  }

  /**
   * Delivers one update. Resolves once the bridge has queued it (never after the answer); rejects when the
   * bridge could not take it (its store is unreachable), so the caller lets Telegram deliver it again.
   */
  async deliver(update: unknown): Promise<DeliveryOutcome> {
    const { sink, botId, log } = this.#options;
    if (!isUpdate(update)) {
      log?.warn({ channel: "telegram", botId }, "ignored a webhook body that is not a Telegram update");
      return "ignored";
    }
    const parsed = parseUpdate(update, { bot: await this.identity(), botId });
    switch (parsed.kind) {
      case "message":
        return sink.accept(parsed.message);
      case "cancel":
        sink.cancel(parsed.request);
        return "cancelled";
      case "ignored":
        log?.debug({ channel: "telegram", botId, updateId: update.update_id, reason: parsed.reason }, "update ignored");
        return "ignored";
    }
  }

  /** The bot's identity: getMe once, remembered on success; a failure is retried with the next update. */
  identity(): Promise<BotIdentity> {
    const { bot } = this.#options;
    if (typeof bot !== "function") return Promise.resolve(bot);
    this.#bot ??= bot().catch((error: unknown) => {
      this.#bot = undefined;
      throw error;
    });
    return this.#bot;
  }
}

function isUpdate(body: unknown): body is Update {
  return typeof body === "object" && body !== null && Number.isSafeInteger((body as { update_id?: unknown }).update_id);
}
