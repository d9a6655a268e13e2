import { setTimeout as sleep } from "node:timers/promises";
import type { Logger } from "../../common/log.js";
import type { Leases } from "./leases.js";

/** Something that runs only while its process holds a named lease. */
export interface LeasedRun {
  start(): void;
  /** Stops it; called when the lease is lost or the process stops, before the lease is let go. */
  stop(): Promise<void>;
}

/** What {@link runWhileLeased} needs. */
export interface WhileLeasedOptions {
  leases: Leases;
  /** The lease's name, shared by every process on the store. */
  name: string;
  /** The lease's length: after a holder dies another process takes over within it plus `retryMs`. */
  ttlMs: number;
  /** How often a process without the lease tries to take it. */
  retryMs: number;
  /** A new run for one holding of the lease; it must stop writing at once when `lost` aborts. */
  run(lost: AbortSignal): LeasedRun;
  log: Logger;
  /** Fields of every log line (what the lease is for). */
  context: Record<string, unknown>;
  /** The log lines: when this process takes the lease, and when it loses it to another. */
  says: { taken: string; lost: string };
  /** Ends the loop: the run is stopped and the lease let go, so another process takes over at once. */
  stopping: AbortSignal;
}

/**
 * Runs something in one process at a time, whatever the number of instances: every process tries now and then to
 * take the named lease; the holder runs it until it stops (letting the lease go) or loses the lease (it stalled past
 * it, or the store could not renew it in time), and when it dies the lease expires and another takes over. Resolves
 * once `stopping` aborted and the lease is let go.
 */
export async function runWhileLeased(options: WhileLeasedOptions): Promise<void> {
  const { leases, name, log, context, stopping } = options;
  let storeFailing = false;
  while (!stopping.aborted) {
    const lease = await leases.acquire(name, options.ttlMs).then(
      (taken) => {
        storeFailing = false;
        return taken;
      },
      (error: unknown) => {
        // Logged once per outage: every process retries every few seconds.
        if (!storeFailing)
          log.warn({ ...context, lease: name, err: error }, `could not ask the store for lease ${name}`);
        storeFailing = true;
        return undefined;
      },
    );
    if (lease) {
      // Stopped while asking: nothing to run.
      if (stopping.aborted) return lease.release();
      log.info({ ...context, lease: name }, options.says.taken);
      const run = options.run(lease.lost);
      run.start();
      await firstAbort(stopping, lease.lost);
      await run.stop();
      await lease.release();
      if (stopping.aborted) return;
      // Stepping back for a retry: whoever took the lease keeps it; after a mere store hiccup this one retakes it.
      log.warn({ ...context, lease: name }, options.says.lost);
    }
    await sleep(options.retryMs, undefined, { signal: stopping }).catch(() => undefined);
  }
}

/** Resolves when the first of `signals` aborts, leaving no listener behind on the others. */
function firstAbort(...signals: AbortSignal[]): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      for (const signal of signals) signal.removeEventListener("abort", done);
      resolve();
    };
    for (const signal of signals) {
      if (signal.aborted) return done();
      signal.addEventListener("abort", done, { once: true });
    }
  });
}
