import { setTimeout as sleep } from "node:timers/promises";
import type { RedisClientType } from "@keyv/redis";
import { claimTtlMs } from "./claim-ttl.js";
import { jsonText, KeptConversationLease, type StoredWorkItem } from "./kept-conversation-lease.js";
import { REDIS_WORK_PREFIX } from "./key-prefixes.js";
import {
  ACQUIRE,
  COMPLETE,
  ENQUEUE,
  FORGET_CONSUMER,
  HAND_BACK,
  PENDING,
  PRUNE_CONSUMERS,
  RELEASE,
  RENEW,
  STATS,
  WRITE_LEDGER,
} from "./redis-scripts.js";
import { type Taker, Takers, takerOf } from "./takers.js";
import { ConversationWatchers, wakeUp } from "./wake-up.js";
import type { ConversationLease, NewWorkItem, TakeOptions, WorkQueue, WorkStats } from "./work-queue.js";

/** The consumer group of the "work available" stream: every process taking work is a consumer in it. */
const GROUP = "workers";
/** Longest blocking read: how late a process notices that a notice's consumer died, at the most. */
const MAX_BLOCK_MS = 5_000;
/** First pause before trying again after Redis failed (a reconnect under way); doubled up to MAX_BLOCK_MS. */
const RETRY_MS = 250;
/** How often a process deletes the consumers killed processes left behind, and after how long idle. */
const PRUNE_INTERVAL_MS = 10 * 60_000;
const PRUNE_IDLE_MS = 60 * 60_000;

/** A "work available" notice as node-redis returns it. */
interface Notice {
  id: string;
  message: Record<string, string>;
}

interface Connections {
  /** Blocks in XREADGROUP, so it needs its own connection. */
  reader: RedisClientType;
  /** Subscribed to the channel of recorded items, for `waitForMore`. */
  notices: RedisClientType;
}

/**
 * The work queue on Redis, shared by every process on the same Redis and namespace (keys under
 * `<namespace>:work:`, see key-prefixes.ts), built from Redis' own parts rather than a broker of ours: a Redis
 * Stream with a consumer group carries the "work available" notices, per-conversation lists and hashes hold the
 * items, a key with an expiry is each conversation's lease, and every step that touches several keys is one Lua
 * script (redis-scripts.ts), so it is atomic.
 *
 * The protocol: recording the first item of an empty inbox adds a notice {conversation}. A process reads notices
 * with XREADGROUP (blocking, so without polling) and tries the lease. Getting it, it keeps that notice pending as
 * long as it holds the conversation, claiming it back to itself at each renewal (so its idle time never reaches a
 * lease length while the holder lives), and spends it when it lets go; the release adds a new notice in the same
 * step when items remain, so another process gets the conversation at once, and nothing recorded between the
 * holder's last read and its release is stranded. A notice for a conversation someone else holds is spent: that
 * holder's release or death brings it back. A holder that dies leaves its notice pending: once idle for a lease
 * length, any process reclaims it with XAUTOCLAIM and takes the conversation, `resumed`. Spent notices are
 * deleted, so the stream holds about one entry per conversation with work.
 *
 * Each store opens two more connections when it first takes work: one for the blocking reads and one subscribed
 * to new items (`waitForMore`); both close with the store. Needs Redis 7 (XAUTOCLAIM reporting deleted entries);
 * not Redis Cluster (a script touches keys of several conversations' slots).
 */
export class RedisWorkQueue implements WorkQueue {
  readonly #client: RedisClientType;
  readonly #ns: string;
  readonly #claimKey: (key: string) => string;
  /** The consumer name of this store in the group, and the default holder name of its leases. */
  readonly #consumer: string;
  readonly #onError: (error: unknown) => void;
  readonly #takers = new Takers();
  readonly #watchers = new ConversationWatchers();
  readonly #leases = new Set<KeptConversationLease>();
  #connections: Promise<Connections> | undefined;
  #serving: Promise<void> | undefined;
  #reclaimCursor = "0-0";
  #nextReclaim = 0;
  /** After a reclaim that found notices, new notices are read before the next reclaim. */
  #readFirst = false;
  #nextPrune = 0;
  #closed = false;
  /** Aborted at close, to end the pause between retries at once. */
  readonly #closing = new AbortController();

  /**
   * @param claimKey the key `claimOnce` uses for a claim, so `enqueue` and `claimOnce` agree on every id
   * @param consumer this store's name in the consumer group (unique per store instance)
   */
  constructor(
    client: RedisClientType,
    namespace: string,
    claimKey: (key: string) => string,
    consumer: string,
    onError: (error: unknown) => void,
  ) {
    this.#client = client;
    this.#ns = namespace;
    this.#claimKey = claimKey;
    this.#consumer = consumer;
    this.#onError = onError;
  }

  async enqueue(item: NewWorkItem, dedupTtlMs: number): Promise<boolean> {
    const payload = jsonText(item.payload, "a work item's payload");
    const recorded = await ENQUEUE.run(
      this.#client,
      [
        this.#claimKey(item.id),
        this.#key("inbox", item.conversation),
        this.#key("items", item.conversation),
        this.#key("available"),
        this.#key("waiting"),
        this.#key("count"),
      ],
      [claimTtlMs(dedupTtlMs), item.id, payload, item.conversation, this.#key("recorded")],
    );
    return recorded !== null;
  }

  async take(signal: AbortSignal, options?: TakeOptions): Promise<ConversationLease | undefined> {
    if (this.#closed) throw new Error("the Redis store is closed");
    const waiting = this.#takers.wait(signal, takerOf(options, this.#consumer));
    this.#serve();
    return waiting;
  }

  async stats(): Promise<WorkStats> {
    const [items, conversations, oldest] = (await STATS.run(
      this.#client,
      [this.#key("count"), this.#key("waiting")],
      [],
    )) as [number, number, string | null];
    return { items, conversations, oldestEnqueuedAt: oldest === null ? undefined : Number(oldest) };
  }

  /**
   * Rejects the waiting takers, ends the leases held here (they expire in Redis, and their notices are reclaimed)
   * and closes the extra connections; call before the main connection closes.
   */
  async close(): Promise<void> {
    this.#closed = true;
    this.#closing.abort();
    this.#takers.failAll(new Error("the Redis store is closed"));
    for (const lease of [...this.#leases]) lease.abandon();
    const connections = await this.#connections?.catch(() => undefined);
    this.#connections = undefined;
    connections?.reader.destroy();
    connections?.notices.destroy();
    await this.#serving;
    if (connections && this.#client.isOpen) {
      await FORGET_CONSUMER.run(this.#client, [this.#key("available")], [GROUP, this.#consumer]).catch(this.#onError);
    }
  }

  /** Runs one loop per store while takers wait, handing each leased conversation to the one waiting longest. */
  #serve(): void {
    if (this.#serving || this.#closed) return;
    this.#serving = this.#serveWhileWaited().finally(() => {
      this.#serving = undefined;
      // A taker that came while the loop was ending starts the next one.
      if (this.#takers.size > 0) this.#serve();
    });
  }

  async #serveWhileWaited(): Promise<void> {
    let retryMs = RETRY_MS;
    for (let taker = this.#takers.first; taker && !this.#closed; taker = this.#takers.first) {
      try {
        const { reader } = await this.#connect();
        const blockMs = Math.max(1, Math.min(Math.floor(taker.leaseMs / 3), MAX_BLOCK_MS));
        if (Date.now() >= this.#nextReclaim && !this.#readFirst) {
          const more = await this.#reclaim(taker.leaseMs);
          // A dead holder's notices are taken back as fast as takers come for them (a crash may leave hundreds),
          // taking turns with new notices; once none is left, the next look is a block's length away.
          this.#nextReclaim = more ? 0 : Date.now() + blockMs;
          this.#readFirst = more;
          continue;
        }
        this.#readFirst = false;
        // While reclaims are pending the read does not block: they get the next turn at once.
        const block = this.#nextReclaim === 0 ? {} : { BLOCK: blockMs };
        const reply = (await reader.xReadGroup(
          GROUP,
          this.#consumer,
          { key: this.#key("available"), id: ">" },
          { COUNT: this.#takers.size, ...block },
        )) as Array<{ messages: Notice[] }> | null;
        // Each notice read is leased at once, all of them together: one round trip for the lot, not one each.
        await Promise.all((reply?.[0]?.messages ?? []).map((notice) => this.#offer(notice)));
        retryMs = RETRY_MS;
      } catch (error) {
        if (this.#closed) return;
        this.#onError(error);
        // The stream (with its group) was deleted, e.g. by someone clearing the namespace: create it again.
        if (error instanceof Error && error.message.startsWith("NOGROUP")) {
          await this.#createGroup().catch(this.#onError);
        }
        await sleep(retryMs, undefined, { signal: this.#closing.signal }).catch(() => {});
        retryMs = Math.min(retryMs * 2, MAX_BLOCK_MS);
      }
    }
  }

  /**
   * Takes the notices of consumers that stopped (idle for a lease length), as many as takers wait; true when it
   * found some, or more may remain past the cursor.
   */
  async #reclaim(leaseMs: number): Promise<boolean> {
    let found = false;
    let more = false;
    for (let round = 0; round < 10 && this.#takers.size > 0; round++) {
      const reply = await this.#client.xAutoClaim(
        this.#key("available"),
        GROUP,
        this.#consumer,
        leaseMs,
        this.#reclaimCursor,
        { COUNT: this.#takers.size },
      );
      this.#reclaimCursor = reply.nextId;
      for (const notice of reply.messages) {
        if (!notice) continue;
        found = true;
        await this.#offer(notice as Notice);
      }
      more = reply.nextId !== "0-0";
      if (!more) break;
    }
    if (Date.now() >= this.#nextPrune) {
      this.#nextPrune = Date.now() + PRUNE_INTERVAL_MS;
      await PRUNE_CONSUMERS.run(this.#client, [this.#key("available")], [GROUP, PRUNE_IDLE_MS]);
    }
    return found || more;
  }

  /**
   * Tries the lease of a notice's conversation for the taker waiting longest. Several offers run at once: each
   * leases for the holder and lease length of the first taker, and hands the lease to whichever taker of those
   * is first when the script answers (another offer may have served the first meanwhile), or back when none is.
   */
  async #offer(notice: Notice): Promise<void> {
    const conversation = notice.message.conversation ?? "";
    const wanted = this.#takers.first;
    if (!wanted) {
      await HAND_BACK.run(
        this.#client,
        [this.#key("available"), this.#key("lease", conversation)],
        [GROUP, notice.id, conversation],
      );
      return;
    }
    const takenAt = Date.now();
    const acquired = (await ACQUIRE.run(
      this.#client,
      [
        this.#key("available"),
        this.#key("lease", conversation),
        this.#key("inbox", conversation),
        this.#key("held", conversation),
        this.#key("fence"),
      ],
      [GROUP, notice.id, wanted.holder, wanted.leaseMs],
    )) as [number, number, string] | null;
    if (!acquired) return;
    const [token, resumed, value] = acquired;
    const taker = this.#takers.firstLike(wanted) ?? wanted;
    const lease = this.#lease(conversation, token, resumed === 1, value, notice.id, wanted, takenAt);
    // Every taker may have given up, or been served, while the script ran: the conversation goes back at once.
    if (!this.#takers.serve(taker, lease)) await lease.handBack();
  }

  #lease(
    conversation: string,
    token: number,
    resumed: boolean,
    value: string,
    entry: string,
    taker: Taker,
    takenAt: number,
  ): KeptConversationLease {
    const client = this.#client;
    const leaseKey = this.#key("lease", conversation);
    const inbox = this.#key("inbox", conversation);
    const items = this.#key("items", conversation);
    const ledger = this.#key("ledger", conversation);
    const lease = new KeptConversationLease(
      {
        conversation,
        token,
        resumed,
        takenAt,
        leaseMs: taker.leaseMs,
        renew: async () =>
          (await RENEW.run(
            client,
            [leaseKey, this.#key("available")],
            [value, taker.leaseMs, GROUP, this.#consumer, entry],
          )) === 1,
        pending: async (limit) => {
          const flat = (await PENDING.run(client, [inbox, items], [limit === undefined ? -1 : limit - 1])) as string[];
          const found: StoredWorkItem[] = [];
          for (let i = 0; i + 1 < flat.length; i += 2) {
            const stored = flat[i + 1] as string;
            const space = stored.indexOf(" ");
            found.push({
              id: flat[i] as string,
              conversation,
              payload: stored.slice(space + 1),
              enqueuedAt: Number(stored.slice(0, space)),
            });
          }
          return found;
        },
        waitForMore: (timeoutMs, signal) =>
          wakeUp(timeoutMs, signal, (wake) => this.#watchers.watch(conversation, wake)),
        readLedger: async (job) => (await client.hGet(ledger, job)) ?? undefined,
        writeLedger: async (job, record) =>
          (await WRITE_LEDGER.run(client, [leaseKey, ledger], [value, job, record])) === 1,
        complete: async (itemIds, jobIds) =>
          ((await COMPLETE.run(
            client,
            [leaseKey, inbox, items, ledger, this.#key("waiting"), this.#key("count")],
            [value, conversation, itemIds.length, ...itemIds, ...jobIds],
          )) as number) >= 0,
        release: async (keepResumed) => {
          await RELEASE.run(
            client,
            [leaseKey, this.#key("available"), inbox, this.#key("held", conversation)],
            [value, GROUP, entry, conversation, keepResumed ? 1 : 0],
          );
        },
      },
      (ended) => this.#leases.delete(ended),
      this.#onError,
    );
    this.#leases.add(lease);
    return lease;
  }

  /**
   * Opens the reader and the subscriber and makes sure the group exists, once; before the first lease is handed
   * out, so `waitForMore` never misses an item for want of a subscription.
   */
  #connect(): Promise<Connections> {
    this.#connections ??= this.#open().catch((error: unknown) => {
      this.#connections = undefined;
      throw error;
    });
    return this.#connections;
  }

  async #open(): Promise<Connections> {
    const opened: RedisClientType[] = [];
    const open = async (role: string) => {
      // Named so CLIENT LIST tells them apart from the store's main connection.
      const client = this.#client.duplicate({ name: `${this.#ns}-work-${role}` }) as RedisClientType;
      client.on("error", this.#onError);
      opened.push(client);
      await client.connect();
      return client;
    };
    try {
      const reader = await open("reader");
      const notices = await open("notices");
      await notices.subscribe(this.#key("recorded"), (conversation) => this.#watchers.notify(conversation));
      await this.#createGroup();
      if (this.#closed) throw new Error("the Redis store is closed");
      return { reader, notices };
    } catch (error) {
      for (const client of opened) client.destroy();
      throw error;
    }
  }

  async #createGroup(): Promise<void> {
    try {
      // From the stream's start: notices added before any process created the group are read too.
      await this.#client.xGroupCreate(this.#key("available"), GROUP, "0", { MKSTREAM: true });
    } catch (error) {
      if (!(error instanceof Error && error.message.startsWith("BUSYGROUP"))) throw error;
    }
  }

  #key(kind: string, conversation?: string): string {
    const key = `${this.#ns}:${REDIS_WORK_PREFIX}${kind}`;
    return conversation === undefined ? key : `${key}:${conversation}`;
  }
}
