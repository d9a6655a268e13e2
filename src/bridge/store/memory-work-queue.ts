import { jsonText, KeptConversationLease, type StoredWorkItem } from "./kept-conversation-lease.js";
import { type Taker, Takers, takerOf } from "./takers.js";
import { ConversationWatchers, wakeUp } from "./wake-up.js";
import type { ConversationLease, NewWorkItem, TakeOptions, WorkQueue, WorkStats } from "./work-queue.js";

interface MemoryConversation {
  items: StoredWorkItem[];
  lease: { token: number; expires: number } | undefined;
  /** The marker of a lease taken and not released: the next lease is `resumed` when it is still there. */
  held: boolean;
  ledger: Map<string, string>;
}

/**
 * The work queue of the memory store: one process, no persistence (tests). Every step runs to completion before
 * the next, so each is atomic; a lease's expiry is still checked against the clock, as on the shared backends.
 */
export class MemoryWorkQueue implements WorkQueue {
  readonly #claim: (key: string, ttlMs: number) => boolean;
  readonly #holder: string;
  readonly #onError: (error: unknown) => void;
  readonly #conversations = new Map<string, MemoryConversation>();
  /** Ids of the items waiting, so a re-recorded id is refused like a live claim. */
  readonly #itemIds = new Set<string>();
  readonly #takers = new Takers();
  readonly #watchers = new ConversationWatchers();
  readonly #leases = new Set<KeptConversationLease>();
  #fence = 0;
  #expiryTimer: NodeJS.Timeout | undefined;
  #closed = false;

  /**
   * @param claim the store's own claim (so `enqueue` and `claimOnce` agree on every id)
   * @param holder the default holder name of this store's leases
   */
  constructor(claim: (key: string, ttlMs: number) => boolean, holder: string, onError: (error: unknown) => void) {
    this.#claim = claim;
    this.#holder = holder;
    this.#onError = onError;
  }

  async enqueue(item: NewWorkItem, dedupTtlMs: number): Promise<boolean> {
    this.#checkOpen();
    const payload = jsonText(item.payload, "a work item's payload");
    if (!this.#claim(item.id, dedupTtlMs) || this.#itemIds.has(item.id)) return false;
    this.#itemIds.add(item.id);
    this.#conversation(item.conversation).items.push({
      id: item.id,
      conversation: item.conversation,
      payload,
      enqueuedAt: Date.now(),
    });
    this.#watchers.notify(item.conversation);
    this.#offer();
    return true;
  }

  async take(signal: AbortSignal, options?: TakeOptions): Promise<ConversationLease | undefined> {
    this.#checkOpen();
    const waiting = this.#takers.wait(signal, takerOf(options, this.#holder));
    this.#offer();
    return waiting;
  }

  async stats(): Promise<WorkStats> {
    this.#checkOpen();
    let items = 0;
    let conversations = 0;
    let oldestEnqueuedAt: number | undefined;
    for (const conversation of this.#conversations.values()) {
      const head = conversation.items[0];
      if (!head) continue;
      items += conversation.items.length;
      conversations++;
      if (oldestEnqueuedAt === undefined || head.enqueuedAt < oldestEnqueuedAt) oldestEnqueuedAt = head.enqueuedAt;
    }
    return { items, conversations, oldestEnqueuedAt };
  }

  /** Rejects the waiting takers and ends the leases held here (they would expire anyway). */
  close(): void {
    this.#closed = true;
    clearTimeout(this.#expiryTimer);
    this.#takers.failAll(new Error("the memory store is closed"));
    for (const lease of [...this.#leases]) lease.abandon();
    this.#conversations.clear();
    this.#itemIds.clear();
  }

  /** Leases available conversations to the waiting takers, oldest waiting work first. */
  #offer(): void {
    clearTimeout(this.#expiryTimer);
    for (let taker = this.#takers.first; taker; taker = this.#takers.first) {
      const available = this.#oldestAvailable();
      if (!available) break;
      this.#takers.serve(taker, this.#lease(available, taker));
    }
    this.#armExpiryTimer();
  }

  #oldestAvailable(): string | undefined {
    const now = Date.now();
    let oldest: { key: string; at: number } | undefined;
    for (const [key, conversation] of this.#conversations) {
      const head = conversation.items[0];
      if (!head || (conversation.lease && conversation.lease.expires > now)) continue;
      if (!oldest || head.enqueuedAt < oldest.at) oldest = { key, at: head.enqueuedAt };
    }
    return oldest?.key;
  }

  /** While takers wait, wakes them when the first lease over waiting work expires. */
  #armExpiryTimer(): void {
    if (this.#takers.size === 0) return;
    let next: number | undefined;
    for (const conversation of this.#conversations.values()) {
      if (conversation.items.length === 0 || !conversation.lease) continue;
      if (next === undefined || conversation.lease.expires < next) next = conversation.lease.expires;
    }
    if (next !== undefined) this.#expiryTimer = setTimeout(() => this.#offer(), Math.max(0, next - Date.now()) + 1);
  }

  #lease(key: string, taker: Taker): KeptConversationLease {
    const conversation = this.#conversation(key);
    const takenAt = Date.now();
    const token = ++this.#fence;
    const resumed = conversation.held;
    conversation.held = true;
    conversation.lease = { token, expires: takenAt + taker.leaseMs };
    const live = () => {
      const current = this.#conversations.get(key);
      return current?.lease?.token === token && current.lease.expires > Date.now() ? current : undefined;
    };
    const lease = new KeptConversationLease(
      {
        conversation: key,
        token,
        resumed,
        takenAt,
        leaseMs: taker.leaseMs,
        renew: async () => {
          const current = live();
          if (current?.lease) current.lease.expires = Date.now() + taker.leaseMs;
          return current !== undefined;
        },
        pending: async (limit) => {
          this.#checkOpen();
          const items = this.#conversations.get(key)?.items ?? [];
          return items.slice(0, limit).map((item) => ({ ...item }));
        },
        waitForMore: (timeoutMs, signal) => wakeUp(timeoutMs, signal, (wake) => this.#watchers.watch(key, wake)),
        readLedger: async (jobId) => {
          this.#checkOpen();
          return this.#conversations.get(key)?.ledger.get(jobId);
        },
        writeLedger: async (jobId, json) => {
          this.#checkOpen();
          const current = live();
          current?.ledger.set(jobId, json);
          return current !== undefined;
        },
        complete: async (itemIds, jobIds) => {
          this.#checkOpen();
          const current = live();
          if (!current) return false;
          const done = new Set(itemIds);
          current.items = current.items.filter((item) => !done.has(item.id));
          for (const id of itemIds) this.#itemIds.delete(id);
          for (const jobId of jobIds) current.ledger.delete(jobId);
          return true;
        },
        release: async (keepResumed) => {
          this.#checkOpen();
          const current = live();
          if (!current) return;
          current.lease = undefined;
          if (!keepResumed) current.held = false;
          this.#forgetIfIdle(key, current);
          this.#offer();
        },
      },
      (ended) => this.#leases.delete(ended),
      this.#onError,
    );
    this.#leases.add(lease);
    return lease;
  }

  #conversation(key: string): MemoryConversation {
    let conversation = this.#conversations.get(key);
    if (!conversation) {
      conversation = { items: [], lease: undefined, held: false, ledger: new Map() };
      this.#conversations.set(key, conversation);
    }
    return conversation;
  }

  #forgetIfIdle(key: string, conversation: MemoryConversation): void {
    if (conversation.items.length === 0 && !conversation.held && conversation.ledger.size === 0) {
      this.#conversations.delete(key);
    }
  }

  #checkOpen(): void {
    if (this.#closed) throw new Error("the memory store is closed");
  }
}
