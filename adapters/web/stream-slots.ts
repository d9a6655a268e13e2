import type { Request, Response } from "express";
import type { Counter } from "prom-client";
import { clientAddress } from "./client-address.js";

/**
 * The event streams (`GET /webchat/events`) open on this instance, at most so many per visitor and per client
 * address (undefined: no cap). They are counted in this process, not in the store: what the caps protect is this
 * instance's sockets and memory, which a stream holds for as long as it is open, and a count kept in the store would
 * outlive an instance that dies with streams open, since nothing would give their slots back. A visitor's tabs that
 * a load balancer spreads over several instances therefore get the cap on each.
 */
export class StreamSlots {
  readonly #visitors = new Map<string, number>();
  readonly #addresses = new Map<string, number>();

  constructor(
    private readonly caps: { visitor: number | undefined; ip: number | undefined },
    private readonly refused: Counter<"kind" | "scope">,
  ) {}

  /**
   * Takes a slot for `visitor`'s stream from `req`'s address, given back when `res` closes; false when the visitor
   * or the address has all its streams open, the refusal (429, in words) then answered.
   */
  take(req: Request, res: Response, visitor: string): boolean {
    const address = clientAddress(req);
    const full = this.#full(this.#visitors, visitor, this.caps.visitor)
      ? "visitor"
      : this.#full(this.#addresses, address, this.caps.ip)
        ? "ip"
        : undefined;
    if (full) {
      this.refused.inc({ kind: "stream", scope: full });
      const who = full === "visitor" ? "this visitor" : "this address";
      res.status(429).json({
        error: `${who} already has ${full === "visitor" ? this.caps.visitor : this.caps.ip} chat streams open: close another tab of this chat and reload`,
      });
      return false;
    }
    this.#add(this.#visitors, visitor, 1);
    this.#add(this.#addresses, address, 1);
    res.once("close", () => {
      this.#add(this.#visitors, visitor, -1);
      this.#add(this.#addresses, address, -1);
    });
    return true;
  }

  #full(open: Map<string, number>, key: string, cap: number | undefined): boolean {
    return cap !== undefined && (open.get(key) ?? 0) >= cap;
  }

  /** Keeps only keys with streams open, so the maps hold no more than the streams. */
  #add(open: Map<string, number>, key: string, change: number): void {
    const count = (open.get(key) ?? 0) + change;
    if (count > 0) open.set(key, count);
    else open.delete(key);
  }
}
