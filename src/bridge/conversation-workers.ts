import { setMaxListeners } from "node:events";
import { setTimeout as sleep } from "node:timers/promises";
import type { Logger } from "../common/log.js";
import type { BridgeMetrics } from "./metrics.js";
import type { ConversationLease, WorkQueue } from "./store/work-queue.js";

/** Pause before taking again after the store failed, so a Redis outage is not a busy loop. */
const TAKE_RETRY_MS = 1_000;

/**
 * Takes waiting in the store at once. One at a time, a burst of 1,000 conversations on Redis was leased one round
 * trip (or two) after the other, each waiting its turn of a busy process: the last answers started seconds after
 * their messages were taken. With several waiting, one read of the store leases as many as it finds.
 */
const TAKES_AHEAD = 16;

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
  /** Takes waiting in the store now. */
  #taking = 0;
  /** Take loops waiting for room (a conversation to end). */
  readonly #waitingForRoom = new Set<() => void>();
  #loop: Promise<void> | undefined;

  constructor(options: ConversationWorkersOptions) {
    this.#options = options;
    // Each take loop listens to it while it takes, or waits to take again: expected, not a leak.
    setMaxListeners(2 * TAKES_AHEAD + 10, this.#stopping.signal);
    // Each conversation served listens to it, up to `concurrency` at once.
    setMaxListeners(0, this.#handover.signal);
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
    this.#makeRoom();
    await this.#loop;
    const timer = setTimeout(() => this.#handover.abort(), graceMs);
    await Promise.allSettled([...this.#serving]);
    clearTimeout(timer);
  }

  /** {@link TAKES_AHEAD} take loops (fewer when the concurrency is lower), sharing the concurrency. */
  async #takeLoop(): Promise<void> {
    const loops = Math.max(1, Math.min(TAKES_AHEAD, this.#options.concurrency));
    await Promise.all(Array.from({ length: loops }, () => this.#takeOneAfterAnother()));
  }

  async #takeOneAfterAnother(): Promise<void> {
    const { work, concurrency, leaseMs, holder, log } = this.#options;
    const stopping = this.#stopping.signal;
    while (!stopping.aborted) {
      if (this.#serving.size + this.#taking >= concurrency) {
        await new Promise<void>((resolve) => this.#waitingForRoom.add(resolve));
        continue;
      }
      let lease: ConversationLease | undefined;
      this.#taking += 1;
      try {
        lease = await work.take(stopping, { leaseMs, holder });
      } catch (error) {
        if (stopping.aborted) return;
        log.error({ err: error }, "could not take work from the store; trying again");
        await sleep(TAKE_RETRY_MS, undefined, { signal: stopping }).catch(() => undefined);
        continue;
      } finally {
        this.#taking -= 1;
      }
      if (!lease) continue;
      const serving = this.#serve(lease).finally(() => {
        this.#serving.delete(serving);
        this.#makeRoom();
      });
      this.#serving.add(serving);
    }
  }

  /** Wakes the take loops waiting for room (or for the stop). */
  #makeRoom(): void {
    const waiting = [...this.#waitingForRoom];
    this.#waitingForRoom.clear();
    for (const wake of waiting) wake();
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
