import type { Logger } from "../common/log.js";
import type { Mailer } from "../mail/smtp-mailer.js";
import { DailyDigests } from "./services/daily-digests.js";
import type { ApiStore } from "./store/api-store.js";

/** What the digest scheduler needs. */
export interface DigestSchedulerOptions {
  store: ApiStore;
  mailer: Mailer;
  log: Logger;
  /** Default the system clock; tests pass a clock they move. */
  now?: () => Date;
  /** Time between passes; default one minute, so a digest goes out within a minute of its midnight. */
  intervalMs?: number;
}

/**
 * Runs the {@link DailyDigests} pass now and then every minute. Checking often, rather than sleeping until the
 * next midnight, needs no per-zone timers and stays right when the clock jumps (DST, a suspended machine).
 * The timer does not keep the process alive.
 */
export class DigestScheduler {
  readonly #digests: DailyDigests;
  readonly #log: Logger;
  readonly #intervalMs: number;
  readonly #stopping = new AbortController();
  #timer: NodeJS.Timeout | undefined;
  #pass: Promise<void> | undefined;

  constructor(options: DigestSchedulerOptions) {
    this.#digests = new DailyDigests({
      store: options.store,
      mailer: options.mailer,
      log: options.log,
      now: options.now ?? (() => new Date()),
    });
    this.#log = options.log;
    this.#intervalMs = options.intervalMs ?? 60_000;
  }

  /** Runs a pass at once (sending what a previous process missed), then one every interval. */
  start(): void {
    if (this.#timer || this.#stopping.signal.aborted) return;
    this.#timer = setInterval(() => this.#tickLogged(), this.#intervalMs);
    this.#timer.unref();
    this.#tickLogged();
  }

  /** One pass at the clock's time; joins the pass under way if there is one. */
  tick(): Promise<void> {
    this.#pass ??= this.#digests.run(this.#stopping.signal).finally(() => {
      this.#pass = undefined;
    });
    return this.#pass;
  }

  /** Stops the timer and waits for the mail being sent, if any; the digests left are for the next start. */
  async stop(): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    this.#stopping.abort();
    await this.#pass?.catch(() => {});
  }

  #tickLogged(): void {
    this.tick().catch((error: unknown) =>
      this.#log.error({ err: error }, "the daily digests could not be checked; trying again at the next pass"),
    );
  }
}
