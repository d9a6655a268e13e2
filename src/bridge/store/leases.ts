/**
 * Named leases for what must run in one process at a time whatever the number of instances: the background
 * passes (handoff timeouts and follow-ups, the mail outbox's retries) and Telegram's long polling (one getUpdates
 * consumer per token). A lease expires unless renewed, so when its holder dies another process takes it over.
 */
export interface Leases {
  /**
   * Takes lease `name` when nobody holds it (or its holder's lease expired); undefined when someone else holds it.
   * The lease renews itself every third of `ttlMs` until released or lost.
   */
  acquire(name: string, ttlMs: number): Promise<Lease | undefined>;
}

/** A named lease held by this process. */
export interface Lease {
  readonly name: string;
  /** Fencing token: larger than that of every earlier holder of this name. */
  readonly token: number;
  /** Aborts when a renewal finds the lease taken over, or cannot reach the store before it ends. */
  readonly lost: AbortSignal;
  /** Lets it go at once, so another process may take it without waiting for the expiry. Never rejects. */
  release(): Promise<void>;
}

/**
 * Named sets of strings shared by every process on the store (the conversations handed to a person, the mails
 * waiting for a retry), changed one member at a time atomically: two processes adding at once both land.
 */
export interface MemberSets {
  add(set: string, member: string): Promise<void>;
  remove(set: string, member: string): Promise<void>;
  members(set: string): Promise<string[]>;
}
