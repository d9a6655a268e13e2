import { timingSafeEqual } from "node:crypto";

/**
 * Compares a secret with what a request brought in constant time (a plain `===` stops at the first different byte,
 * which would let an attacker find the secret byte by byte); only the length can be learnt.
 */
export function sameSecret(expected: string, received: string): boolean {
  const a = Buffer.from(expected, "utf8");
  const b = Buffer.from(received, "utf8");
  return a.length === b.length && timingSafeEqual(a, b);
}
