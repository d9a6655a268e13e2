import type { Request, Response } from "express";
import type { Counter } from "prom-client";
import { type RateLimiterAbstract, RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from "rate-limiter-flexible";
import type { PluginStore } from "../../src/plugin/channel-plugin.js";
import { clientAddress } from "./client-address.js";
import type { RateBudget, WebChatLimitSettings } from "./limit-settings.js";
import { REDIS_WEB_LIMIT_PREFIX } from "./store-keys.js";
import { StreamSlots } from "./stream-slots.js";

/** What the web chat limits by rate: messages posted, identities issued, files uploaded. */
export type LimitedKind = "message" | "identity" | "upload";

type Scope = "visitor" | "ip";

/** How each refusal reads: what was limited, for whom, and what can be done again. */
const REFUSALS: Record<LimitedKind, { what: string; again: string }> = {
  message: { what: "messages", again: "send again" },
  identity: { what: "new visitors", again: "start a chat again" },
  upload: { what: "uploads", again: "upload again" },
};

/**
 * The web chat's limits per visitor and per client address (see clientAddress): requests by rate, counted with
 * rate-limiter-flexible in fixed windows, and event streams open at once ({@link streams}). On a Redis store the counts
 * are kept in Redis (`<namespace>:webchat-limit:…`), so every instance on the store spends from one budget; should
 * Redis fail, each instance counts in its memory meanwhile (the library's insurance limiter) rather than refusing or
 * admitting everyone. On SQLite and memory stores the counts stay in the process: one process owns such a store in
 * practice (a SQLite deployment is one process per bot, as for the platforms' budgets), and a count lost at a restart
 * only gives a visitor one more window.
 */
export class VisitorLimits {
  /** The event streams open on this instance per visitor and per address. */
  readonly streams: StreamSlots;
  readonly #limiters: Record<LimitedKind, Partial<Record<Scope, RateLimiterAbstract>>>;
  readonly #refused: Counter<"kind" | "scope">;

  /** `refused` counts every refusal by kind and scope (chatbridge_web_limited_total). */
  constructor(store: PluginStore, settings: WebChatLimitSettings, refused: Counter<"kind" | "scope">) {
    const limiter = (kind: LimitedKind, scope: Scope, budget: RateBudget | undefined) =>
      budget === undefined ? {} : { [scope]: rateLimiter(store, `${kind}-${scope}`, budget) };
    this.#limiters = {
      message: {
        ...limiter("message", "visitor", settings.messages.visitor),
        ...limiter("message", "ip", settings.messages.ip),
      },
      identity: limiter("identity", "ip", settings.identities),
      upload: {
        ...limiter("upload", "visitor", settings.uploads.visitor),
        ...limiter("upload", "ip", settings.uploads.ip),
      },
    };
    this.streams = new StreamSlots(settings.streams, refused);
    this.#refused = refused;
  }

  /**
   * Spends one request of `kind` from the budget of `visitor` (when given: identities have no visitor yet) and from
   * that of `req`'s address. True when both had room; otherwise the refusal is answered — 429 with `Retry-After` and
   * `{"error": "<what was limited and when to try again>", "retryAfterSeconds": N}` — and the route must do nothing
   * more. A refused request still counts, so that hammering does not pay; the window does not move for it.
   *
   * A route calls it once the visitor is known and before it reads or keeps anything, e.g. the upload route (its
   * visitor from the query, so that the file is not read when the budget is spent):
   * ```ts
   * router.post("/webchat/uploads", async (req, res) => {
   *   const id = visitorOf(res, String(req.query.visitor ?? ""));
   *   if (id === undefined || !(await limits.admit(req, res, "upload", id))) return;
   *   // … read the file, within its size limit
   * });
   * ```
   * @throws Error only for a failure of the limiter itself (a Redis failure is counted in memory instead).
   */
  async admit(req: Request, res: Response, kind: LimitedKind, visitor?: string): Promise<boolean> {
    const { visitor: perVisitor, ip: perAddress } = this.#limiters[kind];
    const spends: { scope: Scope; spend: Promise<unknown> }[] = [];
    if (perVisitor && visitor !== undefined) spends.push({ scope: "visitor", spend: perVisitor.consume(visitor) });
    if (perAddress) spends.push({ scope: "ip", spend: perAddress.consume(clientAddress(req)) });
    const refusals = await Promise.all(
      spends.map(({ scope, spend }) =>
        spend.then(
          () => undefined,
          (rejection: unknown) => {
            if (rejection instanceof RateLimiterRes) return { scope, waitMs: rejection.msBeforeNext };
            throw rejection;
          },
        ),
      ),
    );
    // Over both budgets: the visitor may go again once the longer wait is over.
    const refusal = refusals.reduce<{ scope: Scope; waitMs: number } | undefined>(
      (longest, next) => (next && (!longest || next.waitMs > longest.waitMs) ? next : longest),
      undefined,
    );
    if (!refusal) return true;
    this.#refused.inc({ kind, scope: refusal.scope });
    const seconds = Math.max(1, Math.ceil(refusal.waitMs / 1000));
    const { what, again } = REFUSALS[kind];
    const who = refusal.scope === "visitor" ? "this visitor" : "this address";
    res
      .status(429)
      .set("retry-after", String(seconds))
      .json({
        error: `too many ${what} from ${who}: you can ${again} in ${inWords(seconds)}`,
        retryAfterSeconds: seconds,
      });
    return false;
  }
}

/** One budget's counts: in Redis for a Redis store (shared by its instances), in this process otherwise. */
function rateLimiter(store: PluginStore, name: string, budget: RateBudget): RateLimiterAbstract {
  const options = { points: budget.points, duration: budget.seconds, keyPrefix: `${REDIS_WEB_LIMIT_PREFIX}${name}` };
  const memory = new RateLimiterMemory(options);
  if (!store.redis) return memory;
  return new RateLimiterRedis({
    ...options,
    keyPrefix: `${store.redis.keyPrefix}${options.keyPrefix}`,
    storeClient: store.redis.client,
    useRedisPackage: true,
    // While Redis is away, count in memory at once instead of waiting for its errors.
    rejectIfRedisNotReady: true,
    insuranceLimiter: memory,
  });
}

/** `42 s` under two minutes, `5 min` beyond. */
function inWords(seconds: number): string {
  return seconds < 120 ? `${seconds} s` : `${Math.ceil(seconds / 60)} min`;
}
