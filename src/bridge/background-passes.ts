import type { Logger } from "../common/log.js";
import type { Leases } from "./store/leases.js";
import { runWhileLeased } from "./store/while-leased.js";

/** Something that runs in the background while started: a sweep on a timer, a retry pass. */
export interface BackgroundDuty {
  start(): void;
  stop(): Promise<void>;
}

/** What {@link BackgroundPasses} works with. */
export interface BackgroundPassesOptions {
  leases: Leases;
  duties: BackgroundDuty[];
  log: Logger;
  /** The lease's length (default 15 s): another process takes over within it after this one dies. */
  ttlMs?: number;
  /** How often a process without the lease tries to take it (default 5 s). */
  retryMs?: number;
}

const LEASE_NAME = "background";

/**
 * The passes that must run in one process at a time, whatever the number of instances: the handoff desk's sweep
 * (a handoff's timeout and due follow-ups, queued as events of their conversations), the mail outbox's retries and
 * the alerts' poll of the listings.
 * Every process tries now and then to take the named lease `background`; the one that holds it runs them, and when
 * it stops (letting the lease go) or dies (the lease expires) another takes over.
 */
export class BackgroundPasses {
  readonly #options: BackgroundPassesOptions;
  readonly #stopping = new AbortController();
  #loop: Promise<void> | undefined;

  constructor(options: BackgroundPassesOptions) {
    this.#options = options;
  }

  start(): void {
    this.#loop ??= this.#run();
  }

  /** Stops the passes and lets the lease go, so another process takes over at once. */
  async stop(): Promise<void> {
    this.#stopping.abort();
    await this.#loop;
  }

  #run(): Promise<void> {
    const { duties } = this.#options;
    return runWhileLeased({
      leases: this.#options.leases,
      name: LEASE_NAME,
      ttlMs: this.#options.ttlMs ?? 15_000,
      retryMs: this.#options.retryMs ?? 5_000,
      run: () => ({
        start: () => {
          for (const duty of duties) duty.start();
        },
        stop: async () => {
          await Promise.all(duties.map((duty) => duty.stop()));
        },
      }),
      log: this.#options.log,
      context: {},
      says: {
        taken: "running the background passes (handoff timeouts and follow-ups, mail retries, alerts) in this process",
        lost: "lost the background lease: another process runs the passes now",
      },
      stopping: this.#stopping.signal,
    });
  }
}
