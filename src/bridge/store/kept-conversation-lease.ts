import { HeldLease } from "./lease-keeper.js";
import { type ConversationLease, LeaseLostError, type WorkItem } from "./work-queue.js";

/**
 * What one backend does for a conversation it leased; {@link KeptConversationLease} adds the renewal, `lost`, the
 * JSON encoding and the rules every backend shares. Fenced writes resolve false when the store no longer shows
 * this lease as live (the check and the write being one atomic step in the store).
 */
export interface LeasedConversation {
  readonly conversation: string;
  readonly token: number;
  readonly resumed: boolean;
  /** When the request that took the lease was sent (epoch ms). */
  readonly takenAt: number;
  readonly leaseMs: number;
  renew(): Promise<boolean>;
  /** Items oldest first, payloads as stored JSON. */
  pending(limit: number | undefined): Promise<StoredWorkItem[]>;
  waitForMore(timeoutMs: number, signal: AbortSignal): Promise<void>;
  readLedger(jobId: string): Promise<string | undefined>;
  writeLedger(jobId: string, json: string): Promise<boolean>;
  complete(itemIds: string[], jobIds: string[]): Promise<boolean>;
  /**
   * Deletes the lease if it is still this one and offers the remaining items again; `keepResumed` leaves the
   * marker of an unreleased lease (for a lease handed back unused, so the next holder still sees `resumed`).
   */
  release(keepResumed: boolean): Promise<void>;
}

/** A work item with its payload still as the JSON text the store keeps. */
export interface StoredWorkItem {
  id: string;
  conversation: string;
  payload: string;
  enqueuedAt: number;
}

/** The {@link ConversationLease} of every backend, over that backend's {@link LeasedConversation}. */
export class KeptConversationLease extends HeldLease implements ConversationLease {
  readonly conversation: string;
  readonly resumed: boolean;
  readonly #leased: LeasedConversation;
  readonly #onEnd: (lease: KeptConversationLease) => void;

  /**
   * @param onEnd called once when the lease ends here (released or lost), so the store stops tracking it
   * @param onError receives renewal failures that are retried
   */
  constructor(
    leased: LeasedConversation,
    onEnd: (lease: KeptConversationLease) => void,
    onError: (error: unknown) => void,
  ) {
    super(leased.token, leased.leaseMs, leased.takenAt, onError);
    this.conversation = leased.conversation;
    this.resumed = leased.resumed;
    this.#leased = leased;
    this.#onEnd = onEnd;
  }

  async pending(limit?: number): Promise<WorkItem[]> {
    if (limit !== undefined && limit < 1) return [];
    const stored = await this.#leased.pending(limit);
    return stored.map((item) => ({ ...item, payload: JSON.parse(item.payload) as unknown }));
  }

  waitForMore(timeoutMs: number, signal: AbortSignal): Promise<void> {
    return this.#leased.waitForMore(timeoutMs, signal);
  }

  async readLedger(jobId: string): Promise<unknown> {
    const json = await this.#leased.readLedger(jobId);
    return json === undefined ? undefined : JSON.parse(json);
  }

  async writeLedger(jobId: string, record: unknown): Promise<void> {
    this.#checkHeld();
    if (!(await this.#leased.writeLedger(jobId, jsonText(record, "a ledger record")))) this.#fail();
  }

  async complete(itemIds: string[], jobIds: string[] = itemIds): Promise<void> {
    this.#checkHeld();
    if (!(await this.#leased.complete(itemIds, jobIds))) this.#fail();
  }

  release(): Promise<void> {
    return this.letGo(() => this.#leased.release(false));
  }

  /** Lets an unused lease go, keeping `resumed` for the next holder (a taker that gave up while it was taken). */
  handBack(): Promise<void> {
    return this.letGo(() => this.#leased.release(true));
  }

  protected override renewInStore(): Promise<boolean> {
    return this.#leased.renew();
  }

  protected override ended(): void {
    this.#onEnd(this);
  }

  /** A lease known to be lost or released fails at once, without asking the store. */
  #checkHeld(): void {
    if (this.lost.aborted) throw new LeaseLostError(`the lease of ${this.conversation} was lost`);
    if (this.releasing) throw new LeaseLostError(`the lease of ${this.conversation} was released`);
  }

  #fail(): never {
    // The store no longer shows this lease: it expired (and perhaps another took over); renewing is pointless.
    this.lose("a fenced write found the lease expired or taken over");
    throw new LeaseLostError(`the lease of ${this.conversation} (token ${this.token}) is no longer held`);
  }
}

/** The JSON text of a payload or ledger record; refuses what JSON cannot hold (undefined, a function). */
export function jsonText(value: unknown, what: string): string {
  const text = JSON.stringify(value) as string | undefined;
  if (text === undefined) throw new TypeError(`${what} must be a JSON value, got ${typeof value}`);
  return text;
}
