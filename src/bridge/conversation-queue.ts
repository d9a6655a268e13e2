/**
 * Runs the work of each conversation strictly one batch at a time, in arrival order, while different
 * conversations run in parallel. Items that arrive while a batch runs wait; in `merge` mode everything that
 * waited is handed over as one batch (asked as one question), in `queue` mode one item per batch. Nothing
 * is dropped.
 */
export class ConversationQueue<T> {
  readonly #pending = new Map<string, T[]>();
  readonly #running = new Map<string, Promise<void>>();
  readonly #idleWaiters = new Set<() => void>();

  constructor(
    private readonly mode: "queue" | "merge",
    private readonly work: (key: string, batch: T[]) => Promise<void>,
  ) {}

  /** Conversations with an answer under way. */
  get active(): number {
    return this.#running.size;
  }

  /** Adds an item for `key`; its batch runs after everything queued before it for that key. */
  push(key: string, item: T): void {
    const waiting = this.#pending.get(key);
    if (waiting) waiting.push(item);
    else this.#pending.set(key, [item]);
    if (!this.#running.has(key)) this.#running.set(key, this.#drain(key));
  }

  /** Resolves when no conversation has work left. */
  idle(): Promise<void> {
    if (this.#running.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.add(resolve));
  }

  async #drain(key: string): Promise<void> {
    for (;;) {
      const waiting = this.#pending.get(key);
      if (!waiting || waiting.length === 0) break;
      const batch = this.mode === "merge" ? waiting.splice(0) : waiting.splice(0, 1);
      if (waiting.length === 0) this.#pending.delete(key);
      // The work reports its own failures; one failed answer must not stop the conversation's next message.
      await this.work(key, batch).catch(() => undefined);
    }
    this.#running.delete(key);
    if (this.#running.size === 0) {
      for (const resolve of this.#idleWaiters) resolve();
      this.#idleWaiters.clear();
    }
  }
}
