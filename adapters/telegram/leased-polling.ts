import { type Leases, type Logger, runWhileLeased } from "../../src/plugin/plugin-api.js";
import type { TelegramPoller } from "./polling.js";

/**
 * How long the polling lease lasts without a renewal (it is renewed every third of it). It need not outlast a long
 * poll (25 s): a holder that loses the lease cuts its long poll at once, before the lease can end in the store.
 * After a crash another process polls within this time plus {@link POLLING_RETRY_MS}; meanwhile Telegram keeps the
 * updates.
 */
export const POLLING_LEASE_MS = 10_000;

/** How often a process that does not poll tries to take the lease. */
export const POLLING_RETRY_MS = 2_000;

/** What {@link LeasedTelegramPolling} needs. */
export interface LeasedPollingOptions {
  leases: Leases;
  /** The bot whose token is polled: the lease is `telegram-polling:<botId>`. */
  botId: string;
  /** A new poller for one turn; it must stop polling as soon as `until` aborts (the lease was lost). */
  poller(until: AbortSignal): TelegramPoller;
  log: Logger;
  leaseMs?: number;
  retryMs?: number;
}

/**
 * Telegram long polling with several instances: Telegram serves one getUpdates consumer per token (a second one
 * ends the first with 409 Conflict), so every process tries to take the named lease `telegram-polling:<botId>` and
 * only its holder polls. A holder that loses the lease (it stalled past it, or the store could not renew it in
 * time) aborts its long poll at once and sends nothing more, and the lease keeper tells it so before the lease ends
 * in the store, so a new holder never overlaps it (barring a clock or event loop that stood still; then the two
 * meet one 409 each, logged once, until the old one notices). A holder that dies leaves the lease to expire and
 * another process takes it over within {@link POLLING_LEASE_MS} + {@link POLLING_RETRY_MS}. The new poller starts
 * without an offset: Telegram hands it every update not yet confirmed, and those the dead one had already handed
 * to the bridge are dropped there as duplicates.
 */
export class LeasedTelegramPolling {
  readonly #options: LeasedPollingOptions;
  readonly #stopping = new AbortController();
  #loop: Promise<void> | undefined;

  constructor(options: LeasedPollingOptions) {
    this.#options = options;
  }

  /** The lease's name. */
  get leaseName(): string {
    return `telegram-polling:${this.#options.botId}`;
  }

  /** Starts trying to take the lease, and polling while it is held. */
  start(): void {
    this.#loop ??= this.#run();
  }

  /** Stops polling, confirms what was handed to the bridge, and lets the lease go so another process polls at once. */
  async stop(): Promise<void> {
    this.#stopping.abort();
    await this.#loop;
  }

  #run(): Promise<void> {
    const { botId } = this.#options;
    return runWhileLeased({
      leases: this.#options.leases,
      name: this.leaseName,
      ttlMs: this.#options.leaseMs ?? POLLING_LEASE_MS,
      retryMs: this.#options.retryMs ?? POLLING_RETRY_MS,
      // The poller confirms what the bridge took when stopped while the lease is still held (not once it is lost).
      run: (lost) => this.#options.poller(lost),
      log: this.#options.log,
      context: { channel: "telegram", botId },
      says: {
        taken: "polling Telegram in this process",
        lost: "lost the Telegram polling lease: another process polls now",
      },
      stopping: this.#stopping.signal,
    });
  }
}
