/** How often and how patiently a retryable call is repeated. */
export interface RetryPolicy {
  /** Total tries, the first included. */
  attempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

/** Three tries, 200 ms then 400 ms on average, never more than 5 s between tries. */
export const DEFAULT_RETRY: RetryPolicy = { attempts: 3, baseDelayMs: 200, maxDelayMs: 5_000 };

/**
 * Delay before try number `attempt + 1`: exponential with full jitter, so clients that failed together do
 * not come back together. A server's `Retry-After` wins when it is longer.
 */
export function retryDelay(policy: RetryPolicy, attempt: number, retryAfterMs?: number, random = Math.random): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt);
  const jittered = ceiling / 2 + random() * (ceiling / 2);
  return Math.max(jittered, retryAfterMs ?? 0);
}

/** `Retry-After` in milliseconds (seconds or an HTTP date), or undefined when absent or unreadable. */
export function parseRetryAfter(value: string | string[] | undefined, now = Date.now()): number | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  if (!text) return undefined;
  const seconds = Number(text);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
