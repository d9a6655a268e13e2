import type { RedisClientType } from "@keyv/redis";
import { KeptLease } from "./kept-lease.js";
import { REDIS_LEASE_PREFIX, REDIS_LEASE_TOKEN_PREFIX, REDIS_SET_PREFIX } from "./key-prefixes.js";
import { leaseDurationMs } from "./lease-keeper.js";
import type { Lease, Leases, MemberSets } from "./leases.js";
import { LEASE_ACQUIRE, LEASE_RELEASE, LEASE_RENEW } from "./redis-scripts.js";

/**
 * Named leases on Redis: `<namespace>:lease:<name>` holds "<token> <holder>" with an expiry (SET NX PX in a
 * script), `<namespace>:lease-token:<name>` the fencing counter, kept so tokens keep growing across holders.
 */
export class RedisLeases implements Leases {
  readonly #client: RedisClientType;
  readonly #ns: string;
  readonly #holder: string;
  readonly #onError: (error: unknown) => void;
  readonly #kept = new Set<KeptLease>();

  constructor(client: RedisClientType, namespace: string, holder: string, onError: (error: unknown) => void) {
    this.#client = client;
    this.#ns = namespace;
    this.#holder = holder;
    this.#onError = onError;
  }

  async acquire(name: string, ttlMs: number): Promise<Lease | undefined> {
    const length = leaseDurationMs(ttlMs);
    const key = `${this.#ns}:${REDIS_LEASE_PREFIX}${name}`;
    const takenAt = Date.now();
    const token = (await LEASE_ACQUIRE.run(
      this.#client,
      [key, `${this.#ns}:${REDIS_LEASE_TOKEN_PREFIX}${name}`],
      [this.#holder, length],
    )) as number | null;
    if (token === null) return undefined;
    const value = `${token} ${this.#holder}`;
    const lease = new KeptLease(
      {
        name,
        token,
        takenAt,
        ttlMs: length,
        renew: async () => (await LEASE_RENEW.run(this.#client, [key], [value, length])) === 1,
        release: async () => {
          await LEASE_RELEASE.run(this.#client, [key], [value]);
        },
      },
      (ended) => this.#kept.delete(ended),
      this.#onError,
    );
    this.#kept.add(lease);
    return lease;
  }

  /** Ends the leases held here (the store is closing): they expire in Redis. */
  close(): void {
    for (const lease of [...this.#kept]) lease.abandon();
  }
}

/** Member sets on Redis: `<namespace>:set:<name>`, changed with SADD and SREM (atomic per member). */
export class RedisSets implements MemberSets {
  readonly #client: RedisClientType;
  readonly #ns: string;

  constructor(client: RedisClientType, namespace: string) {
    this.#client = client;
    this.#ns = namespace;
  }

  async add(set: string, member: string): Promise<void> {
    await this.#client.sAdd(this.#key(set), member);
  }

  async remove(set: string, member: string): Promise<void> {
    await this.#client.sRem(this.#key(set), member);
  }

  async members(set: string): Promise<string[]> {
    return this.#client.sMembers(this.#key(set));
  }

  #key(set: string): string {
    return `${this.#ns}:${REDIS_SET_PREFIX}${set}`;
  }
}
