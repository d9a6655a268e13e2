import type { InboundSink, Logger, ReportMalformed } from "../../src/plugin/plugin-api.js";
import { type BotIdentity, parseUpdate } from "./inbound.js";
import { readUpdate } from "./schema.js";

/** What became of one update; `malformed` when it does not fit what the bridge reads (nothing of it is used). */
export type DeliveryOutcome = "accepted" | "duplicate" | "stopping" | "cancelled" | "ignored" | "malformed";

/** What a {@link TelegramInbound} needs. */
export interface TelegramInboundOptions {
  sink: InboundSink;
  /** The bot as Telegram knows it, or a function resolving it (getMe) before the first update is read. */
  bot: BotIdentity | (() => Promise<BotIdentity>);
  /** The bot of this deployment (`default` unless several are configured). */
  botId: string;
  log?: Logger | undefined;
  /** Where updates that do not fit the schema are reported (counted and logged once). */
  onMalformed?: ReportMalformed | undefined;
  /**
   * Answers a tap on an inline button (answerCallbackQuery), so the button stops showing its progress; called once
   * the tap was taken, without waiting for it.
   */
  answerTap?: ((callbackQueryId: string) => Promise<unknown>) | undefined;
}

/**
 * Hands updates to the bridge, the same way for webhooks and long polling: parsed into messages (or a stop
 * request), updates that mean nothing to the bridge dropped. An update that does not fit the schema of the fields
 * the bridge reads (schema.ts) is `malformed`: reported, never handed on, and acknowledged like any other,
 * since it came with the right secret (or from getUpdates) and refusing it would only make Telegram send it again.
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
    // Checked before getMe, which a malformed update should not wait for.
    const read = readUpdate(update);
    if (!read.ok) {
      this.#options.onMalformed?.({
        channel: "telegram",
        botId,
        reason: read.reason,
        body: update,
        issues: read.issues,
      });
      return "malformed";
    }
    const parsed = parseUpdate(read.update, { bot: await this.identity(), botId });
    switch (parsed.kind) {
      case "message": {
        const outcome = await sink.accept(parsed.message);
        if (parsed.callbackQueryId !== undefined) this.#answerTap(parsed.callbackQueryId);
        return outcome;
      }
      case "tap":
        this.#answerTap(parsed.callbackQueryId);
        return "ignored";
      case "cancel":
        sink.cancel(parsed.request);
        return "cancelled";
      case "ignored":
        log?.debug(
          { channel: "telegram", botId, updateId: read.update.update_id, reason: parsed.reason },
          "update ignored",
        );
        return "ignored";
      case "malformed":
        // readUpdate passed it above: parseUpdate checks the same schema.
        return "malformed";
    }
  }

  #answerTap(callbackQueryId: string): void {
    const { answerTap, log, botId } = this.#options;
    answerTap?.(callbackQueryId).catch((error: unknown) => {
      // A tap answered late (over Telegram's 15 s or so) is refused; the answer comes all the same.
      log?.debug({ err: error, channel: "telegram", botId }, "answerCallbackQuery failed");
    });
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
