/**
 * When the alerts' next pass runs: `intervalMs` after the last one ended (the poll), or sooner when one is asked
 * for (a listing changed), though an asked one never within `minGapMs` of the last one's start. Requests coalesce: a burst of
 * changes, or changes while a pass runs, make one more pass, after the one under way. The first pass runs at once.
 */
export class PassSchedule {
  readonly #intervalMs: number;
  readonly #minGapMs: number;
  #asked = true;
  #wake: (() => void) | undefined;
  #lastStart = Number.NEGATIVE_INFINITY;

  constructor(intervalMs: number, minGapMs: number) {
    this.#intervalMs = intervalMs;
    this.#minGapMs = minGapMs;
  }

  /** Asks for a pass soon. */
  ask(): void {
    this.#asked = true;
    this.#wake?.();
  }

  /** Resolves when the next pass is to start, or when `signal` aborts. */
  async next(signal: AbortSignal): Promise<void> {
    if (!this.#asked) await this.#pause(this.#intervalMs, signal, true);
    // The interval's own passes keep their pace, however short it is configured; asked ones are spaced.
    const gap = this.#asked ? this.#lastStart + this.#minGapMs - performance.now() : 0;
    if (gap > 0) await this.#pause(gap, signal, false);
    // Asked meanwhile, during the pass or the gap: this pass answers it.
    this.#asked = false;
    this.#lastStart = performance.now();
  }

  /** Waits `ms`, or until `signal` aborts, or, when `wakeable`, until a pass is asked for. */
  #pause(ms: number, signal: AbortSignal, wakeable: boolean): Promise<void> {
    if (signal.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener("abort", done);
        if (this.#wake === done) this.#wake = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      if (wakeable) this.#wake = done;
      signal.addEventListener("abort", done, { once: true });
    });
  }
}
