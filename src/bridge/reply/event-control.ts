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

/**
 * Resolves after `ms`, or at once with false when `signal` fires (true otherwise). On the global setTimeout, not
 * `node:timers/promises`: the streaming tests drive time with fake timers, which fake only the global one.
 */
export function nap(ms: number, signal?: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve(false);
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve(true);
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
