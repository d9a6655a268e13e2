import { setTimeout as sleep } from "node:timers/promises";
import type { Logger } from "../log.js";
import type { BridgeMetrics } from "./metrics.js";
import type { ConversationLease, WorkQueue } from "./store/work-queue.js";

/** Pause before taking again after the store failed, so a Redis outage is not a busy loop. */
const TAKE_RETRY_MS = 1_000;

/** What {@link ConversationWorkers} works with. */
export interface ConversationWorkersOptions {
  work: WorkQueue;
  /** The most conversations held at once by this process. */
  concurrency: number;
  leaseMs: number;
  /** This process, as leases name their holder. */
  holder: string;
  /**
   * Answers a leased conversation's waiting work and resolves when it is done or must stop; `handover` aborts when
   * this process stops taking work and the grace period is over: stop writing at once, the ledger keeps the rest.
   */
  serve(lease: ConversationLease, handover: AbortSignal): Promise<void>;
  log: Logger;
  metrics: BridgeMetrics;
}

/**
 * This process's share of the durable work: it leases conversations that have work (from any instance's
 * webhooks, or left by an instance that died), up to `concurrency` at once, serves each, and releases it — so
 * whatever arrived meanwhile is taken at once by whoever is free. Stopping stops taking, lets the conversations
 * under way finish for a grace period, then hands the rest over: their leases are released with the work and the
 * ledger in place, for another instance (or this one's next start) to resume at once.
 */
export class ConversationWorkers {
  readonly #options: ConversationWorkersOptions;
  readonly #stopping = new AbortController();
  readonly #handover = new AbortController();
  readonly #serving = new Set<Promise<void>>();
  #freed: (() => void) | undefined;
  #loop: Promise<void> | undefined;

  constructor(options: ConversationWorkersOptions) {
    this.#options = options;
  }

  /** Conversations held now. */
  get active(): number {
    return this.#serving.size;
  }

  /** Starts taking work. */
  start(): void {
    this.#loop ??= this.#takeLoop();
  }

  /**
   * Stops taking work, waits up to `graceMs` for the conversations under way, then hands the rest over and waits
   * until every lease is released.
   */
  async stop(graceMs: number): Promise<void> {
    this.#stopping.abort();
    this.#freed?.();
    await this.#loop;
    const timer = setTimeout(() => this.#handover.abort(), graceMs);
    await Promise.allSettled([...this.#serving]);
    clearTimeout(timer);
  }

  async #takeLoop(): Promise<void> {
    const { work, concurrency, leaseMs, holder, log } = this.#options;
    const stopping = this.#stopping.signal;
    while (!stopping.aborted) {
      if (this.#serving.size >= concurrency) {
        await new Promise<void>((resolve) => {
          this.#freed = resolve;
        });
        continue;
      }
      let lease: ConversationLease | undefined;
      try {
        lease = await work.take(stopping, { leaseMs, holder });
      } catch (error) {
        if (stopping.aborted) return;
        log.error({ err: error }, "could not take work from the store; trying again");
        await sleep(TAKE_RETRY_MS, undefined, { signal: stopping }).catch(() => undefined);
        continue;
      }
      if (!lease) continue;
      const serving = this.#serve(lease).finally(() => {
        this.#serving.delete(serving);
        const freed = this.#freed;
        this.#freed = undefined;
        freed?.();
      });
      this.#serving.add(serving);
    }
    this.#freed?.();
  }

  async #serve(lease: ConversationLease): Promise<void> {
    const { log, metrics } = this.#options;
    if (lease.resumed) {
      metrics.workResumed.inc();
      log.info({ conversation: lease.conversation }, "resuming a conversation whose holder stopped without letting go");
    }
    try {
      await this.#options.serve(lease, this.#handover.signal);
    } catch (error) {
      log.error({ err: error, conversation: lease.conversation }, "a conversation's work failed");
    } finally {
      if (lease.lost.aborted) {
        metrics.leaseLost.inc();
        log.warn({ conversation: lease.conversation }, "lost the lease of a conversation: another holder has it now");
      }
      await lease.release();
    }
  }
}
