import { setTimeout as sleep } from "node:timers/promises";
import type { Api } from "grammy/web";
import { OperatorProblems } from "../../src/plugin/channel-errors.js";
import type { Logger } from "../../src/plugin/plugin-api.js";
import type { DeliveryOutcome } from "./delivery.js";
import { operatorProblem } from "./errors.js";

/** grammY's Node build types signals with the `abort-controller` polyfill; Node's own signal works the same. */
type GrammySignal = Parameters<Api["getUpdates"]>[1];

/**
 * The updates the bridge reads; `stopped_message_generation` must be asked for explicitly once a list is given.
 * `callback_query` carries the taps on a listing card's buttons.
 */
export const ALLOWED_UPDATES = ["message", "stopped_message_generation", "callback_query"] as const;

/** Options of {@link TelegramPoller}. */
export interface TelegramPollerOptions {
  api: Api;
  /** Takes any update, malformed ones included (they are acknowledged like the others). */
  deliver(update: unknown): Promise<DeliveryOutcome>;
  log?: Logger | undefined;
  /** Long-poll duration in seconds (default 25; below common 30 s proxy timeouts). */
  timeoutSeconds?: number;
  /** First pause after a failure, doubled up to `maxBackoffMs` (defaults 1 s and 30 s). */
  backoffMs?: number;
  maxBackoffMs?: number;
  /**
   * This process's right to poll (the lease of {@link LeasedTelegramPolling}): when it aborts, another process may
   * poll already, so the long poll under way is cut at once and nothing more is sent to Telegram — not even the
   * confirmation {@link TelegramPoller.stop} sends otherwise, which would end the other process's long poll.
   */
  until?: AbortSignal | undefined;
}

/**
 * Long polling for local use without a public URL: deleteWebhook (Telegram refuses getUpdates while a webhook
 * is set), then getUpdates in a loop. An update is confirmed — by asking for the next offset — only after the
 * bridge took it, so a failure of the bridge's store makes the loop back off and read the same update again.
 * "Updates are stored on the server until the bot receives them … not … longer than 24 hours"
 * (https://core.telegram.org/bots/api#getting-updates).
 */
export class TelegramPoller {
  readonly #options: TelegramPollerOptions;
  readonly #stop = new AbortController();
  /** Aborts on stop() or when the right to poll ends. */
  readonly #signal: AbortSignal;
  #offset: number | undefined;
  #loop: Promise<void> | undefined;
  readonly #problems: OperatorProblems;

  constructor(options: TelegramPollerOptions) {
    this.#options = options;
    this.#problems = new OperatorProblems(options.log, { channel: "telegram" });
    this.#signal = options.until ? AbortSignal.any([this.#stop.signal, options.until]) : this.#stop.signal;
  }

  /** Starts polling in the background. */
  start(): void {
    this.#loop ??= this.#run();
  }

  /**
   * Ends the long poll under way and confirms the updates already handed over, so a restart does not read them again
   * (unless the right to poll ended: the next poller reads them again and the bridge drops them as duplicates).
   */
  async stop(): Promise<void> {
    this.#stop.abort();
    await this.#loop;
    if (this.#offset === undefined || this.#options.until?.aborted) return;
    // getUpdates confirms every update below `offset`; limit 1 with no wait fetches at most one, left unconfirmed.
    await this.#options.api
      .getUpdates({ offset: this.#offset, limit: 1, timeout: 0 }, AbortSignal.timeout(5_000) as GrammySignal)
      .catch(() => undefined);
  }

  async #run(): Promise<void> {
    const signal = this.#signal;
    let failures = 0;
    let webhookDeleted = false;
    while (!signal.aborted) {
      try {
        if (!webhookDeleted) {
          await this.#options.api.deleteWebhook({ drop_pending_updates: false }, signal as GrammySignal);
          webhookDeleted = true;
        }
        const updates = await this.#options.api.getUpdates(
          { offset: this.#offset, timeout: this.#options.timeoutSeconds ?? 25, allowed_updates: [...ALLOWED_UPDATES] },
          signal as GrammySignal,
        );
        this.#problems.clear();
        const handed = await this.#hand(updates as unknown[]);
        if (handed === "stopping") return;
        failures = handed === "ok" ? 0 : failures + 1;
        if (handed === "ok") continue;
      } catch (error) {
        if (signal.aborted) return;
        failures += 1;
        this.#report(error);
      }
      await this.#pause(failures);
    }
  }

  /**
   * Hands updates over in order; an update the bridge did not take stays unconfirmed, to be read again. A malformed
   * update is confirmed like the others (the bridge reported it), through its own id when it has a usable one, else
   * through the next update's. A batch that confirms nothing at all counts as a failure: reading it again at once
   * would only return it again, so the loop backs off.
   */
  async #hand(updates: unknown[]): Promise<"ok" | "failed" | "stopping"> {
    const before = this.#offset;
    for (const update of updates) {
      // The rest stays unconfirmed, for the next poller.
      if (this.#signal.aborted) return "stopping";
      try {
        // Stopping: the update stays on Telegram's side for the next start.
        if ((await this.#options.deliver(update)) === "stopping") return "stopping";
      } catch (error) {
        this.#options.log?.warn({ err: error, channel: "telegram" }, "update not taken; reading it again");
        return "failed";
      }
      const id = (update as { update_id?: unknown } | null)?.update_id;
      if (typeof id === "number" && Number.isSafeInteger(id)) this.#offset = Math.max(this.#offset ?? 0, id + 1);
    }
    return updates.length > 0 && this.#offset === before ? "failed" : "ok";
  }

  /** Each kind of failure is logged once until a poll succeeds again, not at every retry. */
  #report(error: unknown): void {
    const problem = operatorProblem(error);
    if (problem) this.#problems.report(problem);
    else if (this.#problems.isNew("other")) {
      this.#options.log?.warn({ err: error, channel: "telegram" }, "Telegram getUpdates failed; retrying with backoff");
    }
  }

  async #pause(failures: number): Promise<void> {
    const base = this.#options.backoffMs ?? 1_000;
    const ms = Math.min(this.#options.maxBackoffMs ?? 30_000, base * 2 ** Math.max(0, failures - 1));
    // Ends early (rejecting, which is ignored) when polling stops.
    await sleep(ms, undefined, { signal: this.#signal }).catch(() => undefined);
  }
}
