import type { LoggedVisitorEvent, VisitorSubscription } from "./visitor-events.js";

type Listener = (event: LoggedVisitorEvent) => void;

interface Entry {
  listener: Listener;
  lost: AbortController;
}

/**
 * The subscribers to visitors' events in this process, which each backend of the event log feeds with the events it
 * learns of (its own appends, a pub/sub message, a poll of the shared file). A listener must not throw: it is called
 * from the backend's delivery loop.
 */
export class VisitorListeners {
  readonly #byVisitor = new Map<string, Set<Entry>>();

  /**
   * Adds a listener of `visitor`. `onLastGone` runs when the last listener of that visitor closes its subscription
   * (not when they are lost: {@link loseAll} forgets them all at once).
   */
  add(visitor: string, listener: Listener, onLastGone: () => void): VisitorSubscription {
    let entries = this.#byVisitor.get(visitor);
    if (!entries) {
      entries = new Set();
      this.#byVisitor.set(visitor, entries);
    }
    const entry: Entry = { listener, lost: new AbortController() };
    entries.add(entry);
    const visitorEntries = entries;
    return {
      lost: entry.lost.signal,
      close: () => {
        if (!visitorEntries.delete(entry) || visitorEntries.size > 0) return;
        // Only the set still registered for the visitor is removed: after loseAll a new one may have taken its place.
        if (this.#byVisitor.get(visitor) === visitorEntries) this.#byVisitor.delete(visitor);
        onLastGone();
      },
    };
  }

  /** Whether anyone in this process listens to `visitor`. */
  has(visitor: string): boolean {
    return this.#byVisitor.has(visitor);
  }

  /** The visitors someone in this process listens to. */
  visitors(): string[] {
    return [...this.#byVisitor.keys()];
  }

  deliver(visitor: string, event: LoggedVisitorEvent): void {
    const entries = this.#byVisitor.get(visitor);
    if (entries) for (const { listener } of entries) listener(event);
  }

  /** Ends every subscription with its `lost` signal (events may have been missed, or the store closed). */
  loseAll(reason: Error): void {
    const all = [...this.#byVisitor.values()];
    this.#byVisitor.clear();
    for (const entries of all) {
      for (const entry of entries) entry.lost.abort(reason);
      // A later close() of these subscriptions finds nothing to remove and calls no onLastGone.
      entries.clear();
    }
  }
}
