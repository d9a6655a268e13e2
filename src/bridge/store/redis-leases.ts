import type { RedisClientType } from "@keyv/redis";
import { KeptLeases } from "./kept-lease.js";
import { REDIS_LEASE_PREFIX, REDIS_LEASE_TOKEN_PREFIX, REDIS_SET_PREFIX } from "./key-prefixes.js";
import type { MemberSets } from "./leases.js";
import { LEASE_ACQUIRE, LEASE_RELEASE, LEASE_RENEW } from "./redis-scripts.js";

/**
 * Named leases on Redis: `<namespace>:lease:<name>` holds "<token> <holder>" with an expiry (SET NX PX in a
 * script), `<namespace>:lease-token:<name>` the fencing counter, kept so tokens keep growing across holders.
 */
export class RedisLeases extends KeptLeases {
  readonly #client: RedisClientType;
  readonly #ns: string;
  readonly #holder: string;

  constructor(client: RedisClientType, namespace: string, holder: string, onError: (error: unknown) => void) {
    super(onError);
    this.#client = client;
    this.#ns = namespace;
    this.#holder = holder;
  }

  async tryTake(name: string, _now: number, ttlMs: number): Promise<number | undefined> {
    const token = (await LEASE_ACQUIRE.run(
      this.#client,
      [this.#key(name), `${this.#ns}:${REDIS_LEASE_TOKEN_PREFIX}${name}`],
      [this.#holder, ttlMs],
    )) as number | null;
    return token ?? undefined;
  }

  async renewHeld(name: string, token: number, ttlMs: number): Promise<boolean> {
    return (await LEASE_RENEW.run(this.#client, [this.#key(name)], [this.#value(token), ttlMs])) === 1;
  }

  async releaseHeld(name: string, token: number): Promise<void> {
    await LEASE_RELEASE.run(this.#client, [this.#key(name)], [this.#value(token)]);
  }

  #key(name: string): string {
    return `${this.#ns}:${REDIS_LEASE_PREFIX}${name}`;
  }

  /** What the lease's key holds while this holder has it with `token`: the scripts compare it to fence. */
  #value(token: number): string {
    return `${token} ${this.#holder}`;
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
