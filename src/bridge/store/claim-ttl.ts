/**
 * Checks a claim's time to live and rounds it up to whole milliseconds (Redis `PX` takes an integer). A claim
 * without a positive TTL would either never expire or expire at once, so both are refused.
 */
export function claimTtlMs(ttlMs: number): number {
  if (!Number.isFinite(ttlMs) || ttlMs <= 0) {
    throw new RangeError(`claimOnce needs a TTL above 0 ms, got ${ttlMs}`);
  }
  return Math.ceil(ttlMs);
}
