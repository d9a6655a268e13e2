import { KeptLease } from "./kept-lease.js";
import { leaseDurationMs } from "./lease-keeper.js";
import type { Lease, Leases, MemberSets } from "./leases.js";

/** Named leases of the memory store: one process, so they only order the tasks of this process. */
export class MemoryLeases implements Leases {
  readonly #held = new Map<string, { token: number; expires: number }>();
  /** Fencing counter per name, kept after a release so tokens keep growing. */
  readonly #tokens = new Map<string, number>();
  readonly #kept = new Set<KeptLease>();
  readonly #checkOpen: () => void;
  readonly #onError: (error: unknown) => void;

  constructor(checkOpen: () => void, onError: (error: unknown) => void) {
    this.#checkOpen = checkOpen;
    this.#onError = onError;
  }

  async acquire(name: string, ttlMs: number): Promise<Lease | undefined> {
    this.#checkOpen();
    const length = leaseDurationMs(ttlMs);
    const takenAt = Date.now();
    const current = this.#held.get(name);
    if (current && current.expires > takenAt) return undefined;
    const token = (this.#tokens.get(name) ?? 0) + 1;
    this.#tokens.set(name, token);
    this.#held.set(name, { token, expires: takenAt + length });
    const live = () => {
      const held = this.#held.get(name);
      return held?.token === token && held.expires > Date.now() ? held : undefined;
    };
    const lease = new KeptLease(
      {
        name,
        token,
        takenAt,
        ttlMs: length,
        renew: async () => {
          const held = live();
          if (held) held.expires = Date.now() + length;
          return held !== undefined;
        },
        release: async () => {
          if (live()) this.#held.delete(name);
        },
      },
      (ended) => this.#kept.delete(ended),
      this.#onError,
    );
    this.#kept.add(lease);
    return lease;
  }

  /** Ends the leases held here (the store is closing). */
  close(): void {
    for (const lease of [...this.#kept]) lease.abandon();
    this.#held.clear();
  }
}

/** Member sets of the memory store. */
export class MemorySets implements MemberSets {
  readonly #sets = new Map<string, Set<string>>();
  readonly #checkOpen: () => void;

  constructor(checkOpen: () => void) {
    this.#checkOpen = checkOpen;
  }

  async add(set: string, member: string): Promise<void> {
    this.#checkOpen();
    let members = this.#sets.get(set);
    if (!members) {
      members = new Set();
      this.#sets.set(set, members);
    }
    members.add(member);
  }

  async remove(set: string, member: string): Promise<void> {
    this.#checkOpen();
    const members = this.#sets.get(set);
    members?.delete(member);
    if (members?.size === 0) this.#sets.delete(set);
  }

  async members(set: string): Promise<string[]> {
    this.#checkOpen();
    return [...(this.#sets.get(set) ?? [])];
  }
}
