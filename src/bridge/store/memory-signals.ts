import { SignalListeners } from "./signal-listeners.js";
import type { SignalListener, SignalSubscription, Signals } from "./signals.js";

/** Signals in this process only (STORE_URL=memory://), delivered during the publish. */
export class MemorySignals implements Signals {
  readonly #listeners: SignalListeners;
  #closed = false;

  /** `onError` hears of listeners that throw. */
  constructor(onError: (error: unknown) => void) {
    this.#listeners = new SignalListeners(onError);
  }

  async publish(topic: string, message: string): Promise<void> {
    this.#checkOpen();
    this.#listeners.deliver(topic, message);
  }

  subscribe(topic: string, listener: SignalListener): SignalSubscription {
    this.#checkOpen();
    return { live: Promise.resolve(), unsubscribe: this.#listeners.add(topic, listener) };
  }

  /** Forgets every listener; publishing or subscribing afterwards throws. */
  close(): void {
    this.#closed = true;
    this.#listeners.clear();
  }

  #checkOpen(): void {
    if (this.#closed) throw new Error("the memory store is closed");
  }
}
