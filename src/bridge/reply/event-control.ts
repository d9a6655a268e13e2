import { sleep } from "../../client/retry.js";

/** What {@link nextOrAbort} yields when the stop signal won. */
export const ABORTED = Symbol("aborted");

/** The next event, or {@link ABORTED} as soon as `signal` fires (the pending `next` is left to settle). */
export function nextOrAbort<T>(
  iterator: AsyncIterator<T>,
  signal: AbortSignal | undefined,
): Promise<IteratorResult<T> | typeof ABORTED> {
  if (signal?.aborted) return Promise.resolve(ABORTED);
  const next = iterator.next();
  if (!signal) return next;
  return new Promise((resolve, reject) => {
    const onAbort = () => resolve(ABORTED);
    signal.addEventListener("abort", onAbort, { once: true });
    next.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}

/** Ends the source without waiting for it (it may be blocked on the network), so it can cancel upstream work. */
export function closeQuietly(iterator: AsyncIterator<unknown>): void {
  try {
    iterator.return?.().catch(() => undefined);
  } catch {
    // The source is gone either way.
  }
}

/** Waits `ms`; false when `signal` cut the wait short. */
export function nap(ms: number, signal: AbortSignal): Promise<boolean> {
  return sleep(ms, signal).then(
    () => true,
    () => false,
  );
}
