import { ChannelError, type ChannelLimits, type Operation, type RateBudget } from "../channel.js";
import type { ReplyTarget } from "../inbound.js";
import { type CallCost, ChatLane, headOf, type Job, type Priority, type ReadyEntry } from "./chat-lane.js";
import { Fifo } from "./fifo.js";
import { TokenBucket } from "./token-bucket.js";

export type { CallCost, Priority };

/** Reported when the platform answers `rate_limited` despite the pacing (the limits were wrong, or shared). */
export interface RateLimitNotice {
  target: ReplyTarget;
  priority: Priority;
  retryAfterMs: number;
  /** `bot` when the platform said the whole bot is limited, else only the chat is paused. */
  scope: "chat" | "bot";
}

export interface PacerOptions {
  /** Clock in milliseconds; `Date.now` by default. */
  now?: () => number;
  /** Tokens an update or typing call must leave in the chat and bot buckets for a final (default 1). */
  reserve?: number;
  /**
   * How much later than planned a call may reach the platform, compared with the calls around it (network
   * jitter; default 100 ms). Calls bunched up in transit look like a bigger burst to the platform, so each burst
   * is lowered by `perSecond × jitterMs`; the sustained rate is unchanged.
   */
  jitterMs?: number;
  /** Pause after a `rate_limited` answer without a retry time (default 1 s). */
  defaultRetryAfterMs?: number;
  onRateLimited?: (notice: RateLimitNotice) => void;
}

/**
 * Keeps every send, edit, draft and typing call of one channel within the platform's limits: a token bucket per
 * chat (private or group budget) and one for the bot. A lane becomes ready when its chat has a token; ready lanes
 * wait in first-in-first-out order for the bot's budget, finals strictly before updates, so conversations are
 * served fairly and no final waits behind intermediate text. Updates and typing only spend tokens when at least
 * `reserve` tokens stay in both buckets, so a final arriving finds capacity. Each operation is O(1) amortised,
 * and nothing polls: one timer per waiting lane plus one for the bot.
 */
export class Pacer {
  private readonly now: () => number;
  private readonly bot: TokenBucket;
  private readonly botReserve: number;
  private readonly reserve: number;
  private readonly defaultRetryAfterMs: number;
  private readonly jitterMs: number;
  private readonly onRateLimited: ((notice: RateLimitNotice) => void) | undefined;
  private readonly lanes = new Map<string, ChatLane>();
  /** Workspace-wide budgets of single operations (ChannelLimits.perOperation), with the tokens kept for finals. */
  private readonly operations = new Map<Operation, { bucket: TokenBucket; reserve: number }>();
  private readonly readyFinals = new Fifo<ReadyEntry>();
  private readonly readyUpdates = new Fifo<ReadyEntry>();
  private botTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly idle = new Fifo<{ lane: ChatLane; stamp: number; at: number }>();
  private idleStamps = 0;
  private pumping = false;
  private pumpAgain = false;

  readonly limits: ChannelLimits;

  /** `source` is the channel (or anything with its limits); one pacer serves all of that channel's calls. */
  constructor(source: { readonly limits: ChannelLimits }, options: PacerOptions = {}) {
    const limits = source.limits;
    this.limits = limits;
    this.now = options.now ?? Date.now;
    this.reserve = options.reserve ?? 1;
    this.defaultRetryAfterMs = options.defaultRetryAfterMs ?? 1_000;
    this.onRateLimited = options.onRateLimited;
    this.jitterMs = options.jitterMs ?? 100;
    const perBot = this.withJitter(limits.perBot);
    this.bot = new TokenBucket(perBot, this.now());
    this.botReserve = reserveFor(this.reserve, perBot.burst);
    for (const [operation, budget] of Object.entries(limits.perOperation ?? {}) as [Operation, RateBudget][]) {
      const jittered = this.withJitter(budget);
      this.operations.set(operation, {
        bucket: new TokenBucket(jittered, this.now()),
        reserve: reserveFor(this.reserve, jittered.burst),
      });
    }
  }

  /** Chats with state held (queued work, or a budget still refilling); idle full ones are forgotten. */
  get trackedChats(): number {
    return this.lanes.size;
  }

  /**
   * Runs `op` when the budgets allow. A final always runs, however long a rate limit lasts, and resolves with
   * the result. An update resolves `undefined` when skipped: superseded by a newer update or a final of the same
   * `stream`, or dropped because the platform rate-limited the chat or bot. Typing resolves `undefined` at once
   * unless there is spare budget. Errors other than `rate_limited` reject. `cost` names the operation for
   * channels with per-operation budgets: an update is skipped while its operation's budget is short, a final waits.
   */
  schedule<T>(
    target: ReplyTarget,
    priority: "final",
    op: () => Promise<T>,
    stream?: unknown,
    cost?: CallCost,
  ): Promise<T>;
  schedule<T>(
    target: ReplyTarget,
    priority: Priority,
    op: () => Promise<T>,
    stream?: unknown,
    cost?: CallCost,
  ): Promise<T | undefined>;
  schedule<T>(
    target: ReplyTarget,
    priority: Priority,
    op: () => Promise<T>,
    stream?: unknown,
    cost: CallCost = {},
  ): Promise<T | undefined> {
    const now = this.now();
    this.forgetIdle(now);
    const lane = this.laneFor(target, now);
    if (priority === "typing") return this.tryTyping(lane, op, cost, now);
    if (
      priority === "update" &&
      (lane.bucket.isPaused(now) || this.bot.isPaused(now) || this.operationWait(cost, "update", now) > 0)
    ) {
      return Promise.resolve(undefined);
    }
    return new Promise<T | undefined>((resolve, reject) => {
      const job: Job = { priority, cost, op, resolve: resolve as (value: unknown) => void, reject };
      if (priority === "final") {
        if (stream !== undefined) lane.withdrawUpdate(stream); // the final shows newer text anyway
        lane.finals.push(job);
      } else lane.offerUpdate(stream ?? Symbol("update"), job);
      this.pumpLane(lane);
    });
  }

  /** Withdraws the pending update of `stream`, if any (it resolves `undefined`); e.g. when its answer ends. */
  drop(target: ReplyTarget, stream: unknown): void {
    const lane = this.lanes.get(target.chatId);
    if (lane?.withdrawUpdate(stream)) this.pumpLane(lane);
  }

  private withJitter(budget: RateBudget): RateBudget {
    const burst = Math.max(1, budget.burst - (budget.perSecond * this.jitterMs) / 1000);
    return { perSecond: budget.perSecond, burst };
  }

  private laneFor(target: ReplyTarget, now: number): ChatLane {
    let lane = this.lanes.get(target.chatId);
    if (!lane) {
      const budget = this.withJitter(target.isGroup ? this.limits.perGroup : this.limits.perChat);
      lane = new ChatLane(target, new TokenBucket(budget, now), reserveFor(this.reserve, budget.burst));
      this.lanes.set(lane.key, lane);
    }
    lane.idleStamp = 0;
    return lane;
  }

  private tryTyping<T>(lane: ChatLane, op: () => Promise<T>, cost: CallCost, now: number): Promise<T | undefined> {
    const botQuiet = this.readyFinals.size === 0 && this.readyUpdates.size === 0;
    const room =
      lane.bucket.available(now) >= lane.need("update") &&
      this.bot.available(now) >= 1 + this.botReserve &&
      this.operationWait(cost, "update", now) === 0;
    if (!lane.quiet || !botQuiet || !room) {
      this.pumpLane(lane);
      return Promise.resolve(undefined);
    }
    return new Promise<T | undefined>((resolve, reject) => {
      this.start(lane, { priority: "typing", cost, op, resolve: resolve as (value: unknown) => void, reject }, now);
    });
  }

  /** Moves a lane towards running its next job: waits for its chat budget, then queues it for the bot budget. */
  private pumpLane(lane: ChatLane): void {
    if (lane.busy) return;
    const kind = lane.nextKind();
    if (kind === undefined) {
      lane.readyAs = undefined;
      lane.clearTimer();
      this.markIdle(lane);
      return;
    }
    if (lane.readyAs === "final" || lane.readyAs === kind) return;
    lane.clearTimer();
    const wait = lane.bucket.waitFor(lane.need(kind), this.now());
    if (wait > 0) {
      lane.timer = arm(wait, () => {
        lane.timer = undefined;
        this.pumpLane(lane);
      });
      return;
    }
    lane.readyAs = kind;
    lane.ticket += 1;
    (kind === "final" ? this.readyFinals : this.readyUpdates).push({ lane, ticket: lane.ticket });
    this.pumpBot();
  }

  /** Starts ready lanes while the bot budget allows; re-entrant calls are folded into the running one. */
  private pumpBot(): void {
    if (this.pumping) {
      this.pumpAgain = true;
      return;
    }
    this.pumping = true;
    try {
      do {
        this.pumpAgain = false;
        this.dispatchReady();
      } while (this.pumpAgain);
    } finally {
      this.pumping = false;
    }
  }

  private dispatchReady(): void {
    if (this.botTimer) clearTimeout(this.botTimer);
    this.botTimer = undefined;
    for (;;) {
      const final = headOf(this.readyFinals, "final");
      const entry = final ?? headOf(this.readyUpdates, "update");
      if (!entry) return;
      const now = this.now();
      const cost = entry.lane.peek(final ? "final" : "update")?.cost ?? {};
      if (!final && this.operationWait(cost, "update", now) > 0) {
        // Its operation's budget ran short while it waited: an update is not worth waiting for.
        this.readyUpdates.shift();
        entry.lane.readyAs = undefined;
        entry.lane.take("update")?.resolve(undefined);
        this.pumpLane(entry.lane);
        continue;
      }
      const wait = Math.max(
        this.bot.waitFor(final ? 1 : 1 + this.botReserve, now),
        final ? this.operationWait(cost, "final", now) : 0,
      );
      if (wait > 0) {
        this.botTimer = arm(wait, () => {
          this.botTimer = undefined;
          this.pumpBot();
        });
        return;
      }
      (final ? this.readyFinals : this.readyUpdates).shift();
      this.dispatch(entry.lane, final ? "final" : "update", now);
    }
  }

  private dispatch(lane: ChatLane, kind: "final" | "update", now: number): void {
    lane.readyAs = undefined;
    // The chat may have been rate-limited while it waited for the bot: then it waits again.
    const chatReady = !lane.busy && lane.bucket.waitFor(lane.need(kind), now) === 0;
    const job = chatReady ? lane.take(kind) : undefined;
    if (job) this.start(lane, job, now);
    else this.pumpLane(lane);
  }

  private start(lane: ChatLane, job: Job, now: number): void {
    lane.bucket.take(now);
    this.bot.take(now);
    for (const operation of charged(job.cost)) this.operations.get(operation)?.bucket.take(now);
    lane.busy = true;
    void this.run(lane, job);
  }

  private async run(lane: ChatLane, job: Job): Promise<void> {
    try {
      job.resolve(await job.op());
    } catch (error) {
      if (error instanceof ChannelError && error.kind === "rate_limited") {
        this.pauseAfter(lane, job, error);
        // A final is retried first in its chat once the pause ends; anything else is dropped.
        if (job.priority === "final") lane.finals.unshift(job);
        else job.resolve(undefined);
      } else job.reject(error);
    }
    lane.busy = false;
    this.pumpLane(lane);
  }

  /**
   * Pauses what the platform said is limited: the chat, or the whole bot; on a channel with per-operation budgets a
   * bot-wide limit is the limit of that operation's method only (Slack limits each method on its own), so only
   * that operation's budget pauses.
   */
  private pauseAfter(lane: ChatLane, job: Job, error: ChannelError): void {
    const retryAfterMs = error.retryAfterMs ?? this.defaultRetryAfterMs;
    const until = this.now() + retryAfterMs;
    const scope = isBotWide(error) ? "bot" : "chat";
    lane.bucket.pause(until);
    if (scope === "bot") {
      const operation = job.cost.operation === undefined ? undefined : this.operations.get(job.cost.operation);
      (operation?.bucket ?? this.bot).pause(until);
    }
    lane.dropUpdates();
    this.onRateLimited?.({ target: lane.target, priority: job.priority, retryAfterMs, scope });
  }

  /** Milliseconds until the budgets of the operations `cost` charges allow a call of `kind` (0 when they do). */
  private operationWait(cost: CallCost, kind: "final" | "update", now: number): number {
    let wait = 0;
    for (const operation of charged(cost)) {
      const budget = this.operations.get(operation);
      if (budget) wait = Math.max(wait, budget.bucket.waitFor(kind === "final" ? 1 : 1 + budget.reserve, now));
    }
    return wait;
  }

  /** Remembers when an idle lane's bucket will be full; from then on it can be forgotten. */
  private markIdle(lane: ChatLane): void {
    const now = this.now();
    lane.idleStamp = ++this.idleStamps;
    this.idle.push({ lane, stamp: lane.idleStamp, at: now + lane.bucket.waitFor(lane.bucket.budget.burst, now) });
  }

  /** Forgets chats idle long enough for their budget to be full again, so memory follows active chats. */
  private forgetIdle(now: number): void {
    for (let head = this.idle.peek(); head && head.at <= now; head = this.idle.peek()) {
      this.idle.shift();
      const { lane, stamp } = head;
      if (lane.idleStamp !== stamp || !lane.quiet || lane.timer) continue;
      if (lane.bucket.isFull(now)) this.lanes.delete(lane.key);
      else this.markIdle(lane);
    }
  }
}

/** The operations a call takes a token of: its own unless prepaid, and the one it prepays. */
function charged(cost: CallCost): Operation[] {
  const operations: Operation[] = [];
  if (cost.operation !== undefined && !cost.prepaid) operations.push(cost.operation);
  if (cost.prepay !== undefined) operations.push(cost.prepay);
  return operations;
}

/** Tokens to keep for finals: `reserve`, but never so many that a small burst leaves updates no token at all. */
function reserveFor(reserve: number, burst: number): number {
  return Math.max(0, Math.min(reserve, burst - 1));
}

/** Timers round up, and the woken code re-checks its budget, so nothing runs early on a coarse clock. */
function arm(ms: number, wake: () => void): ReturnType<typeof setTimeout> {
  return setTimeout(wake, Math.max(1, Math.ceil(ms - 1e-6)));
}

/** True when the platform said the whole bot is limited (adapters set `scope: "bot"`, e.g. Slack's method tiers). */
function isBotWide(error: ChannelError): boolean {
  return error.scope === "bot";
}
