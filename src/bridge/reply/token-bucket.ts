import type { RateBudget } from "../channel.js";

/** Floating-point residue of refill sums, far below any real token. */
const EPSILON = 1e-9;

/**
 * A token bucket over a platform's {@link RateBudget}: `burst` calls at once, refilled at `perSecond`. A rate-limit
 * answer pauses it: no call until the platform's retry time, then one call, then the normal refill.
 */
export class TokenBucket {
  private tokens: number;
  private updatedAt: number;
  private pausedUntil = Number.NEGATIVE_INFINITY;

  constructor(
    readonly budget: RateBudget,
    now: number,
  ) {
    this.tokens = budget.burst;
    this.updatedAt = now;
  }

  /** Tokens usable at `now`; 0 while paused. */
  available(now: number): number {
    if (now < this.pausedUntil) return 0;
    this.refill(now);
    return this.tokens;
  }

  /** Milliseconds from `now` until `count` tokens are usable (0 when they already are). */
  waitFor(count: number, now: number): number {
    this.refill(now);
    // During a pause the bucket's state is that of the pause's end (see `pause`): nothing refills before it.
    const held = Math.max(0, this.updatedAt - now);
    const missing = count - this.tokens;
    return held + (missing <= EPSILON ? 0 : (missing / this.budget.perSecond) * 1000);
  }

  /** Spends one token; callers check {@link available} or {@link waitFor} first. */
  take(now: number): void {
    this.refill(now);
    this.tokens -= 1;
  }

  /** True while a rate-limit pause is in force. */
  isPaused(now: number): boolean {
    return now < this.pausedUntil;
  }

  /**
   * Stops calls until `until` (the platform said "retry after"), when at most one call may go, then refills
   * normally. A bucket that would hold less than one token by then keeps what it would hold.
   */
  pause(until: number): void {
    if (until <= this.pausedUntil) return;
    this.refill(until);
    this.pausedUntil = until;
    this.tokens = Math.min(1, this.tokens);
  }

  /** True when the bucket is full and idle, so forgetting it and starting a fresh one changes nothing. */
  isFull(now: number): boolean {
    return this.available(now) >= this.budget.burst;
  }

  private refill(now: number): void {
    if (now <= this.updatedAt) return;
    this.tokens = Math.min(this.budget.burst, this.tokens + ((now - this.updatedAt) * this.budget.perSecond) / 1000);
    this.updatedAt = now;
  }
}
