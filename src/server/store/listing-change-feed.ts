import { EventEmitter } from "node:events";
import type { ListingChange } from "../../api/listing-changes.js";

/** What a subscriber of {@link ListingChangeFeed} hears. */
export interface ListingChangeListener {
  /** A change of the chatbot's listings, committed. */
  change(change: ListingChange): void;
  /**
   * The feed can no longer tell this subscriber about changes (its connection to the database broke): changes may
   * be missed from now on, so the subscriber should end and subscribe again, then read the listings anew.
   */
  lost(): void;
}

/**
 * Announces committed changes of listings to the subscribers of their chatbot, in this process and — when the
 * database is shared — in every other process of the server. Notifications only, never the source of truth: one
 * lost (a crash between the commit and the announcement, a broken connection) is found by reading the listings.
 */
export interface ListingChangeFeed {
  /**
   * Announces a committed change. Rejects when the announcement cannot be sent; the change itself stays committed,
   * so the caller logs that and carries on.
   */
  publish(change: ListingChange): Promise<void>;
  /**
   * Calls `listener` for each change of the chatbot from the moment this resolves; resolves to the function that
   * ends the subscription. Rejects when the feed cannot listen (PostgreSQL unreachable).
   */
  subscribe(serialNumber: string, listener: ListingChangeListener): Promise<() => void>;
  close(): Promise<void>;
}

/**
 * The subscribers of each chatbot in this process, which every kind of feed hands its changes to. Unbounded
 * listeners on purpose: one per open feed connection.
 */
export class ChangeSubscribers {
  readonly #emitter = new EventEmitter().setMaxListeners(0);
  readonly #all = new Set<ListingChangeListener>();

  add(serialNumber: string, listener: ListingChangeListener): () => void {
    const onChange = (change: ListingChange) => listener.change(change);
    this.#emitter.on(serialNumber, onChange);
    this.#all.add(listener);
    return () => {
      this.#emitter.off(serialNumber, onChange);
      this.#all.delete(listener);
    };
  }

  deliver(change: ListingChange): void {
    this.#emitter.emit(change.SerialNumber, change);
  }

  /** Tells every subscriber that changes may be missed from now on. */
  loseAll(): void {
    for (const listener of [...this.#all]) listener.lost();
  }
}

/**
 * The feed of a SQLite store: an in-process emitter, enough because one process owns the file. Another process
 * writing the same file (a second server on one DATA_DIR) is not heard; its changes are found by the next poll.
 */
export function inProcessChangeFeed(): ListingChangeFeed {
  const subscribers = new ChangeSubscribers();
  return {
    async publish(change) {
      subscribers.deliver(change);
    },
    async subscribe(serialNumber, listener) {
      return subscribers.add(serialNumber, listener);
    },
    async close() {
      subscribers.loseAll();
    },
  };
}
