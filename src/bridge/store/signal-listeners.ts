import type { SignalListener } from "./signals.js";

/**
 * The listeners of signals in this process, by topic, which each backend feeds with the signals it learns of (a
 * publish of this process, a pub/sub message, a poll of the shared file).
 */
export class SignalListeners {
  readonly #byTopic = new Map<string, Set<SignalListener>>();
  readonly #onError: (error: unknown) => void;

  /** `onError` hears of listeners that throw. */
  constructor(onError: (error: unknown) => void) {
    this.#onError = onError;
  }

  /** Adds `listener` of `topic`; the function returned removes it (the same listener added twice hears twice). */
  add(topic: string, listener: SignalListener): () => void {
    const entry = (message: string) => listener(message);
    let listeners = this.#byTopic.get(topic);
    if (!listeners) {
      listeners = new Set();
      this.#byTopic.set(topic, listeners);
    }
    listeners.add(entry);
    return () => {
      const current = this.#byTopic.get(topic);
      if (!current?.delete(entry) || current.size > 0) return;
      this.#byTopic.delete(topic);
    };
  }

  /** Whether anyone in this process listens to any topic. */
  get empty(): boolean {
    return this.#byTopic.size === 0;
  }

  /** Hands `message` to every listener of `topic`; one that throws is reported and does not keep it from the others. */
  deliver(topic: string, message: string): void {
    const listeners = this.#byTopic.get(topic);
    if (!listeners) return;
    for (const listener of [...listeners]) {
      try {
        listener(message);
      } catch (error) {
        this.#onError(error);
      }
    }
  }

  /** Forgets every listener (the store closed). */
  clear(): void {
    this.#byTopic.clear();
  }
}
