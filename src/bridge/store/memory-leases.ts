import { KeptLeases } from "./kept-lease.js";
import type { MemberSets } from "./leases.js";

/** Named leases of the memory store: one process, so they only order the tasks of this process. */
export class MemoryLeases extends KeptLeases {
  readonly #held = new Map<string, { token: number; expires: number }>();
  /** Fencing counter per name, kept after a release so tokens keep growing. */
  readonly #tokens = new Map<string, number>();
  readonly #checkOpen: () => void;

  constructor(checkOpen: () => void, onError: (error: unknown) => void) {
    super(onError);
    this.#checkOpen = checkOpen;
  }

  async tryTake(name: string, now: number, ttlMs: number): Promise<number | undefined> {
    this.#checkOpen();
    const current = this.#held.get(name);
    if (current && current.expires > now) return undefined;
    const token = (this.#tokens.get(name) ?? 0) + 1;
    this.#tokens.set(name, token);
    this.#held.set(name, { token, expires: now + ttlMs });
    return token;
  }

  async renewHeld(name: string, token: number, ttlMs: number): Promise<boolean> {
    const held = this.#live(name, token);
    if (held) held.expires = Date.now() + ttlMs;
    return held !== undefined;
  }

  async releaseHeld(name: string, token: number): Promise<void> {
    if (this.#live(name, token)) this.#held.delete(name);
  }

  /** Ends the leases held here (the store is closing). */
  override close(): void {
    super.close();
    this.#held.clear();
  }

  /** The lease of `name` when it is still the one of `token` and has not expired. */
  #live(name: string, token: number): { token: number; expires: number } | undefined {
    const held = this.#held.get(name);
    return held?.token === token && held.expires > Date.now() ? held : undefined;
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
