import {
  checkRetention,
  type LoggedVisitorEvent,
  nextVisitorEventId,
  type VisitorEvent,
  type VisitorEventRetention,
  type VisitorEvents,
  type VisitorSubscription,
} from "./visitor-events.js";
import { VisitorListeners } from "./visitor-listeners.js";

/** New visitors' logs between two sweeps of the expired ones; reading one already ignores its expiry having passed. */
const LOGS_PER_SWEEP = 1_000;

interface VisitorLog {
  lastId: number;
  /** Epoch milliseconds after which the log is forgotten. */
  expires: number;
  /** Message → its latest event, oldest first (an update moves the message to the end). */
  messages: Map<string, LoggedVisitorEvent>;
}

/** The web chat's event log in this process only (STORE_URL=memory://): delivered at once, lost on exit. */
export class MemoryVisitorEvents implements VisitorEvents {
  readonly #logs = new Map<string, VisitorLog>();
  readonly #listeners = new VisitorListeners();
  #logsSinceSweep = 0;
  #closed = false;

  async append(visitor: string, event: VisitorEvent, retention: VisitorEventRetention): Promise<number> {
    this.#checkOpen();
    checkRetention(retention);
    const now = Date.now();
    let log = this.#live(visitor, now);
    if (!log) {
      if (++this.#logsSinceSweep >= LOGS_PER_SWEEP) this.#sweep(now);
      log = { lastId: 0, expires: 0, messages: new Map() };
      this.#logs.set(visitor, log);
    }
    const logged: LoggedVisitorEvent = { id: nextVisitorEventId(log.lastId, now), ...event };
    log.lastId = logged.id;
    log.expires = now + retention.idleMs;
    if (event.message !== undefined) {
      log.messages.delete(event.message);
      log.messages.set(event.message, logged);
      for (const oldest of log.messages.keys()) {
        if (log.messages.size <= retention.messages) break;
        log.messages.delete(oldest);
      }
    }
    this.#listeners.deliver(visitor, logged);
    return logged.id;
  }

  async since(visitor: string, afterId: number | undefined): Promise<LoggedVisitorEvent[]> {
    this.#checkOpen();
    const log = this.#live(visitor, Date.now());
    if (!log) return [];
    return [...log.messages.values()].filter((event) => afterId === undefined || event.id > afterId);
  }

  async subscribe(visitor: string, listener: (event: LoggedVisitorEvent) => void): Promise<VisitorSubscription> {
    this.#checkOpen();
    return this.#listeners.add(visitor, listener, () => {});
  }

  /** Ends every subscription and forgets every log. */
  close(): void {
    this.#closed = true;
    this.#logs.clear();
    this.#listeners.loseAll(new Error("the store closed"));
  }

  #live(visitor: string, now: number): VisitorLog | undefined {
    const log = this.#logs.get(visitor);
    if (log && log.expires <= now) {
      this.#logs.delete(visitor);
      return undefined;
    }
    return log;
  }

  #sweep(now: number): void {
    this.#logsSinceSweep = 0;
    for (const [visitor, log] of this.#logs) if (log.expires <= now) this.#logs.delete(visitor);
  }

  #checkOpen(): void {
    if (this.#closed) throw new Error("the memory store is closed");
  }
}
