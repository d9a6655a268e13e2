/**
 * The durable work of the bridge: every platform event it acknowledged, kept per conversation until answered.
 *
 * An event is recorded in the same atomic step as its de-duplication claim ({@link WorkQueue.enqueue}), before the
 * platform is acknowledged, so a crash after the acknowledgement loses nothing and a re-delivery records nothing.
 * A conversation's work is done by one holder at a time, in arrival order: {@link WorkQueue.take} leases a
 * conversation that has work and no live lease; the holder reads its items, answers them, removes them, and lets it
 * go. A lease expires unless renewed, so the work of a holder that died is taken over by another; every write of a
 * holder is fenced by its lease's token, so one that stalled past its lease cannot write after another took over.
 * The answer ledger ({@link ConversationLease.writeLedger}) records how far each answer got, so the next holder
 * continues from there instead of answering twice.
 */

/** One piece of work for a conversation, as stored. */
export interface WorkItem {
  /** Unique id: the claim key of the platform event (a re-delivery has the same id), or of a control item. */
  id: string;
  /** The conversation key (`conversationKey`): the unit of order and of leasing. */
  conversation: string;
  /** What to do, as JSON (the bridge's own shape, e.g. an InboundMessage with its date as an ISO string). */
  payload: unknown;
  /** Epoch milliseconds when it was recorded. */
  enqueuedAt: number;
}

/** What {@link WorkQueue.enqueue} records. */
export interface NewWorkItem {
  id: string;
  conversation: string;
  payload: unknown;
}

/** Work waiting, for metrics and /readyz. */
export interface WorkStats {
  /** Items recorded and not yet completed, leased or not. */
  items: number;
  /** Conversations with at least one such item. */
  conversations: number;
  /** Epoch milliseconds of the oldest such item; undefined when there is none. */
  oldestEnqueuedAt: number | undefined;
}

/** Thrown by a fenced operation of a lease that is no longer held (expired and taken over, or released). */
export class LeaseLostError extends Error {
  override readonly name = "LeaseLostError";
}

/** How leases are taken. */
export interface TakeOptions {
  /** How long a lease lasts without renewal, above 0; the holder renews it every third of that (default 15 s). */
  leaseMs?: number;
  /** Who takes it (instance id), for logs and for telling a crash from a release; default a random id per store. */
  holder?: string;
}

/** The durable, per-conversation work queue of one store (SQLite, Redis or memory). */
export interface WorkQueue {
  /**
   * Records `item` as work for its conversation, after everything recorded before it for that conversation, and
   * claims `item.id` for `dedupTtlMs`, in one atomic step. Resolves false, recording nothing, when the id is
   * already claimed (a re-delivery, or a claim made with `BridgeStore.claimOnce`) or still waits as an item. Rejects
   * when the store fails, or with a TypeError when the payload is not JSON: then nothing was recorded and the
   * platform must not be acknowledged.
   */
  enqueue(item: NewWorkItem, dedupTtlMs: number): Promise<boolean>;
  /**
   * Leases a conversation that has work and no live lease, waiting for one (across every process on the store)
   * until `signal` aborts, which resolves undefined. Conversations are offered about in the order their waiting
   * work arrived; a conversation whose holder died is offered once its lease has expired. Rejects only when the store
   * is closed (also while waiting): a store failure while it waits is retried and emitted as `keyv`'s "error".
   */
  take(signal: AbortSignal, options?: TakeOptions): Promise<ConversationLease | undefined>;
  /** What is waiting. */
  stats(): Promise<WorkStats>;
}

/**
 * A conversation held by one holder. It renews itself in the background until {@link release}; when a renewal finds
 * it taken over or cannot reach the store before the lease ends, {@link lost} aborts and every fenced operation
 * rejects with {@link LeaseLostError}: the holder must stop writing to the platform at once.
 */
export interface ConversationLease {
  readonly conversation: string;
  /** Fencing token: larger than that of every earlier lease of this conversation. */
  readonly token: number;
  /**
   * True when the previous lease of this conversation ended without a release (its holder crashed or stalled): the
   * work found is resumed work, and the ledger may show answers under way.
   */
  readonly resumed: boolean;
  /** Aborts when the lease is lost. */
  readonly lost: AbortSignal;
  /** The conversation's items, oldest first, at most `limit` (default all). */
  pending(limit?: number): Promise<WorkItem[]>;
  /**
   * Resolves when an item is recorded for this conversation after the call (or `signal` aborts, or `timeoutMs`
   * passes): lets a holder wait for the rest of an album without polling.
   */
  waitForMore(timeoutMs: number, signal: AbortSignal): Promise<void>;
  /** The ledger record of job `jobId` of this conversation, as last written under any lease; undefined if none. */
  readLedger(jobId: string): Promise<unknown>;
  /** Writes the ledger record of job `jobId` (JSON). Fenced. */
  writeLedger(jobId: string, record: unknown): Promise<void>;
  /** Removes finished items and the ledger records of `jobIds` (default the items' ids). Fenced. */
  complete(itemIds: string[], jobIds?: string[]): Promise<void>;
  /**
   * Lets the conversation go. Its remaining items, if any, are offered again at once — to this process or another
   * (a graceful handover needs no lease expiry). Never rejects; releasing a lost lease does nothing.
   */
  release(): Promise<void>;
}
