/** What the channel benchmarks share: the scripted answer, percentiles and polling. */

/** Fragments per answer, the time they stream over, and the answer's length, as the benchmarks specify. */
export const FRAGMENTS = 50;
export const STREAM_MS = 5_000;
export const ANSWER_CHARS = 1_000;

/** The value below which `p` percent of `values` lie (nearest rank). */
export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

/** A 1,000-character answer naming its conversation, in 50 fragments of 20 characters. */
export function answerFor(question: string): string[] {
  const text = `${question}: ${"Bright flat near the park, 3 rooms. ".repeat(40)}`.slice(0, ANSWER_CHARS);
  return Array.from({ length: FRAGMENTS }, (_, i) => text.slice(i * 20, (i + 1) * 20));
}

/** Polls `done` every 25 ms; false when `timeoutMs` passed first. */
export async function waitFor(done: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = performance.now() + timeoutMs;
  while (!done()) {
    if (performance.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return true;
}
