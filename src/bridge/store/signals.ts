/**
 * A broadcast that every process on the store hears: a short message on a topic, delivered to the subscribers of
 * that topic in every process that uses the same store and namespace (this one included), as it happens. Nothing is
 * kept for a process that was not listening when it was published, and a signal may be lost while a process's
 * connection to the store is down: it suits notices that only matter now — the user's stop of the answer under
 * way — never work that must not be lost (that is the work queue's).
 *
 * Redis publishes on one channel of the namespace; SQLite keeps the last minute of signals in a table that the
 * processes on the file poll; memory delivers in this process only.
 */
export interface Signals {
  /** Sends `message` to the subscribers of `topic` in every process on the store; resolves once the store took it. */
  publish(topic: string, message: string): Promise<void>;
  /** Delivers each message published on `topic` from now on, by any process, to `listener`. */
  subscribe(topic: string, listener: SignalListener): SignalSubscription;
}

/** Hears one signal; it should not throw (a listener that does is reported, and the others still hear it). */
export type SignalListener = (message: string) => void;

/** A listener of one topic. */
export interface SignalSubscription {
  /**
   * Resolves once signals published by other processes reach the listener (at once on SQLite and memory, when
   * Redis confirmed the subscription otherwise); rejects only when the store closed before that.
   */
  readonly live: Promise<void>;
  /** Stops the deliveries to this listener. */
  unsubscribe(): void;
}
