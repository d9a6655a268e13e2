/**
 * Resolves when `watch` calls its wake-up, `timeoutMs` passes or `signal` aborts, whichever comes first. `watch`
 * starts watching and returns how to stop; it is stopped in every case.
 */
export function wakeUp(timeoutMs: number, signal: AbortSignal, watch: (wake: () => void) => () => void): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    let unwatch: (() => void) | undefined;
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      signal.removeEventListener("abort", finish);
      unwatch?.();
      resolve();
    };
    const timer = setTimeout(finish, Math.max(0, timeoutMs));
    signal.addEventListener("abort", finish, { once: true });
    unwatch = watch(finish);
    if (done) unwatch();
  });
}

/** Callbacks per conversation, for waking the holders waiting for more of its work. */
export class ConversationWatchers {
  readonly #watchers = new Map<string, Set<() => void>>();

  /** Calls `wake` at the next {@link notify} of `conversation`; returns how to stop. */
  watch(conversation: string, wake: () => void): () => void {
    let set = this.#watchers.get(conversation);
    if (!set) {
      set = new Set();
      this.#watchers.set(conversation, set);
    }
    set.add(wake);
    return () => {
      set.delete(wake);
      if (set.size === 0 && this.#watchers.get(conversation) === set) this.#watchers.delete(conversation);
    };
  }

  /** Wakes every watcher of `conversation`. */
  notify(conversation: string): void {
    const set = this.#watchers.get(conversation);
    if (set) for (const wake of [...set]) wake();
  }
}
