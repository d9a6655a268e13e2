/**
 * The web chat's event log, shared by every process on the store: what each visitor's page is shown (messages as
 * they grow, typing), so that an answer written by any instance reaches the page whichever instance holds its event
 * stream, and a page that reconnects — to any instance — catches up from the last event it saw.
 *
 * Ids increase per visitor across all processes and never restart: each is the larger of the previous id + 1 and
 * the current time in milliseconds, so after the log of an idle visitor expired (or a memory store restarted) new
 * ids are still above every id a page may remember. The replay keeps the latest state of each message only (the
 * page replaces a message by its id) and at most {@link VisitorEventRetention.messages} messages; transient events
 * (typing) are delivered live and never replayed.
 */

/** An event for a visitor's page, as appended. */
export interface VisitorEvent {
  /**
   * The message whose state this event shows: a later event of the same message replaces it in the replay.
   * Undefined for a transient event (typing), which is delivered live only.
   */
  message?: string | undefined;
  /** What the page receives, as JSON. */
  data: unknown;
}

/** An event as the log keeps and delivers it. */
export interface LoggedVisitorEvent extends VisitorEvent {
  /** Larger than the id of every earlier event of the same visitor; the page's Last-Event-ID. */
  id: number;
}

/** How much of a visitor's log is kept. */
export interface VisitorEventRetention {
  /** Messages kept for the replay (their latest states); older ones are dropped. */
  messages: number;
  /** The whole log of a visitor is forgotten this long after its last event. */
  idleMs: number;
}

/**
 * A live delivery of one visitor's events to this process. Every event appended after {@link VisitorEvents.subscribe}
 * resolved is delivered, in id order, until {@link close} or until {@link lost} aborts.
 */
export interface VisitorSubscription {
  /**
   * Aborts when events may have been missed (the connection to the store dropped) or the store closed: the
   * subscriber should start again and catch up with {@link VisitorEvents.since} from the last id it saw.
   */
  readonly lost: AbortSignal;
  /** Ends the delivery. */
  close(): void;
}

/** The web chat's event log of one store (SQLite, Redis or memory). */
export interface VisitorEvents {
  /** Appends `event` to the visitor's log, delivers it to every subscriber of the visitor, and resolves its id. */
  append(visitor: string, event: VisitorEvent, retention: VisitorEventRetention): Promise<number>;
  /** The latest state of each kept message whose latest event came after `afterId` (all when undefined), by id. */
  since(visitor: string, afterId: number | undefined): Promise<LoggedVisitorEvent[]>;
  /** Delivers the visitor's new events, from any process on the store, to `listener`; resolves once live. */
  subscribe(visitor: string, listener: (event: LoggedVisitorEvent) => void): Promise<VisitorSubscription>;
}

/** The id of the next event: above the previous one, and at least the time now, so ids never restart. */
export function nextVisitorEventId(previous: number | undefined, now: number): number {
  return Math.max((previous ?? 0) + 1, now);
}

/** Refuses a retention that would keep nothing or never expire. */
export function checkRetention(retention: VisitorEventRetention): void {
  const { messages, idleMs } = retention;
  if (!Number.isSafeInteger(messages) || messages < 1 || !Number.isFinite(idleMs) || idleMs <= 0) {
    throw new RangeError(`a visitor's log needs messages ≥ 1 and idleMs > 0, got ${messages} and ${idleMs}`);
  }
}
