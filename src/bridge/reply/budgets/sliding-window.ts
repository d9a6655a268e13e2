import type { WindowBudget } from "../../channel.js";

/**
 * A sliding-window log over a {@link WindowBudget}: at most `max` calls in any `windowMs`. Only the latest `max`
 * call times can matter, so they are kept in a ring and every operation is O(1). A call at `t` counts until
 * `t + windowMs` (excluded), as a platform counting calls "in any second" does.
 */
export class SlidingWindow {
  /** The latest calls' times, newest at `newest`. */
  private readonly times: number[];
  private newest = -1;
  private recorded = 0;
  private pausedUntil = Number.NEGATIVE_INFINITY;

  constructor(readonly budget: WindowBudget) {
    this.times = new Array<number>(budget.max).fill(0);
  }

  /** Milliseconds from `now` until `count` calls fit (0 when they do now). */
  waitFor(count: number, now: number): number {
    const { max, windowMs } = this.budget;
    if (count > max) return Number.POSITIVE_INFINITY;
    // `count` calls fit once the (max - count + 1)-th latest call has left the window.
    const oldest = this.recent(max - count);
    const wait = Math.max(oldest === undefined ? 0 : oldest + windowMs - now, this.pausedUntil - now);
    return wait > 0 ? wait : 0;
  }

  /** Records a call at `now`; callers check {@link waitFor} first. */
  take(now: number): void {
    const latest = this.recent(0);
    if (latest !== undefined && latest > now) {
      // A call moved later (see `move`) is the latest: keep the calls in time order.
      this.rewrite([...this.calls(), now]);
      return;
    }
    this.newest = (this.newest + 1) % this.times.length;
    this.times[this.newest] = now;
    this.recorded = Math.min(this.recorded + 1, this.times.length);
  }

  /**
   * Moves the call recorded at `at` to `to` (later: the call may have reached the platform then), keeping the
   * calls in time order. O(max), for the rare late call; a call no longer among the latest is left alone.
   */
  move(at: number, to: number): void {
    const calls = this.calls();
    const found = calls.indexOf(at);
    if (found < 0) return;
    calls[found] = to;
    this.rewrite(calls);
  }

  /** Refuses calls until `until` (the platform said "retry after"); then the window's own rule applies. */
  pause(until: number): void {
    this.pausedUntil = Math.max(this.pausedUntil, until);
  }

  isPaused(now: number): boolean {
    return now < this.pausedUntil;
  }

  /** True once no call recorded limits anything, so forgetting the window changes nothing. */
  isIdle(now: number): boolean {
    const latest = this.recent(0);
    return !this.isPaused(now) && (latest === undefined || latest + this.budget.windowMs <= now);
  }

  /** The calls recorded, oldest first. */
  private calls(): number[] {
    return Array.from({ length: this.recorded }, (_, k) => this.recent(this.recorded - 1 - k) as number);
  }

  /** Keeps the latest `max` of `calls`, in time order. */
  private rewrite(calls: number[]): void {
    const kept = calls.sort((a, b) => a - b).slice(-this.times.length);
    for (const [k, time] of kept.entries()) this.times[k] = time;
    this.recorded = kept.length;
    this.newest = kept.length - 1;
  }

  /** The time of the `k`-th latest call (0: the newest), if there was one. */
  private recent(k: number): number | undefined {
    if (k >= this.recorded) return undefined;
    const size = this.times.length;
    return this.times[(this.newest - k + size) % size];
  }
}
