import { type Budget, ChannelError, type ChannelLimits, type DraftLimits, type Operation } from "../channel.js";
import type { ReplyTarget } from "../inbound.js";
import {
  type BudgetRole,
  type ChannelBudgets,
  type Charge,
  capacityOf,
  type SpendOutcome,
  type SpendRequest,
} from "./budgets/budget-store.js";
import { LocalBudgets } from "./budgets/local-budgets.js";
import { type CallCost, ChatLane, headOf, type Job, type Priority, type ReadyEntry } from "./chat-lane.js";
import { Fifo } from "./fifo.js";

export type { CallCost, Priority };

/** Reported when the platform answers `rate_limited` despite the pacing (the limits were wrong, or shared). */
export interface RateLimitNotice {
  target: ReplyTarget;
  priority: Priority;
  retryAfterMs: number;
  /** `bot` when the platform said the whole bot is limited, else only the chat is paused. */
  scope: "chat" | "bot";
}

/** Reported when a final or an update starts: how long it waited since it was scheduled. */
export interface BudgetWaitNotice {
  priority: "final" | "update";
  waitedMs: number;
}

export interface PacerOptions {
  /** Clock in milliseconds; `Date.now` by default. */
  now?: () => number;
  /**
   * Where the bot's budgets are kept: the bridge store's (`store.budgets.forChannel(name, botId)`, shared by every
   * process on a Redis store), or by default this pacer's own.
   */
  budgets?: ChannelBudgets;
  /**
   * Where the budgets of native drafts are kept, for channels that pace drafts apart from messages
   * (`ChannelLimits.drafts`): a scope of their own in the bridge store, or by default this pacer's own.
   */
  draftBudgets?: ChannelBudgets;
  /** Calls an update or typing call must leave in the chat, bot and operation budgets for a final (default 1). */
  reserve?: number;
  /**
   * How much later than planned a call may reach the platform, compared with the calls around it (network
   * jitter; default 100 ms), for token buckets: calls bunched up in transit look like a bigger burst to the
   * platform, so each burst is lowered by `perSecond × jitterMs`; the sustained rate is unchanged.
   */
  jitterMs?: number;
  /**
   * The same allowance for sliding windows: each window is kept this much longer than the platform's (default
   * {@link DEFAULT_WINDOW_MARGIN_MS}), so calls that reach it a little late still never put more than `max` in
   * any of its windows; a call answered later than that moves in its windows.
   */
  windowMarginMs?: number;
  /** Pause after a `rate_limited` answer without a retry time (default 1 s). */
  defaultRetryAfterMs?: number;
  onRateLimited?: (notice: RateLimitNotice) => void;
  onBudgetWait?: (notice: BudgetWaitNotice) => void;
}

/**
 * How much longer than documented the pacer keeps a sliding window: how much later than granted a call may reach
 * the platform without moving in its windows (see `answered`). Measured against the Telegram emulator (30 calls in
 * any 1,000 ms, by arrival) with 1,000 finals at once through bare pacers (bench/pacer-window.ts): from the call's
 * start to its arrival took about 1 ms at the median, 10-37 ms at the 99th percentile and up to 90 ms in the
 * first, cold bursts. Since late calls move, the margin only trades throughput for round trips to the store:
 * 10 ms moved 5-12% of the calls, with no 429 in any run (one or two pacers, local or Redis budgets), at 1.2-1.5%
 * above the least time the limit allows; 25 ms moved 1-2% at 2.7% above it; 0 ms moved every call, and the
 * millisecond clock then let one 429 through in one run.
 */
export const DEFAULT_WINDOW_MARGIN_MS = 10;

/** Most calls asked for in one round trip to the budget store. */
const MAX_BATCH = 32;

/** A ready lane taken into a spend, with what it asked for. */
interface Ask {
  entry: ReadyEntry;
  kind: "final" | "update";
  /** The bot queue it was taken from, to go back to when the bot's budget refuses it. */
  queue: Fifo<ReadyEntry>;
  /** The operations the asked-for job charges, as `charged` lists them. */
  operations: Operation[];
  request: SpendRequest;
}

/** Where a granted call stands in its sliding windows, to move it if its answer comes late. */
interface Placement {
  /** Its sliding-window budgets. */
  windows: Charge[];
  stamp: string;
  /** When its spend was sent (the pacer's clock): it cannot have been granted, nor reached the platform, before. */
  askedAt: number;
}

/**
 * Keeps every send, edit, draft and typing call of one channel within the platform's limits: a budget per chat
 * (private or group), one for the bot, and one per operation where the platform limits methods on their own;
 * each a sliding window where the platform documents a count per period, else a token bucket. The budgets live in
 * a {@link BudgetStore}, so processes sharing a Redis store share them exactly; each call spends from all of its
 * budgets at once or waits.
 *
 * Lanes (one per chat) run their calls one at a time. A lane whose chat has room joins a first-in-first-out
 * queue for the bot, finals strictly before updates and updates that open an answer before the others; the head of the queues is sent to the store in batches (one
 * round trip for up to {@link MAX_BATCH} calls). A call its chat's budget refuses waits on its lane's timer, and
 * one the bot's budget refuses stops the batch: everything behind it waits on the one bot timer. Updates and
 * typing leave `reserve` calls in every budget for finals, and while a final waits for the bot on any process
 * they yield to it. A rate limit the platform still answers pauses the chat, or the whole bot, in the store for
 * every process. Each call costs O(1) amortised, and nothing polls.
 */
export class Pacer {
  private readonly now: () => number;
  private readonly budgets: ChannelBudgets;
  private readonly reserve: number;
  private readonly defaultRetryAfterMs: number;
  private readonly jitterMs: number;
  private readonly windowMarginMs: number;
  private readonly onRateLimited: ((notice: RateLimitNotice) => void) | undefined;
  private readonly onBudgetWait: ((notice: BudgetWaitNotice) => void) | undefined;
  private readonly bot: Charge;
  private readonly chatCharge: Charge;
  private readonly groupCharge: Charge;
  /** Workspace-wide budgets of single operations (ChannelLimits.perOperation). */
  private readonly operations = new Map<Operation, Charge>();
  /** The same budgets as an update that opens no answer spends them: leaving `openingShare` more calls. */
  private readonly growingOperations = new Map<Operation, Charge>();
  /** Operations that spend their own budget only (ChannelLimits.apart). */
  private readonly apart: ReadonlySet<Operation>;
  private readonly lanes = new Map<string, ChatLane>();
  private readonly readyFinals = new Fifo<ReadyEntry>();
  private readonly readyUpdates = new Fifo<ReadyEntry>();
  /** Updates that open an answer (`CallCost.opening`): their users see nothing of it yet, so they go first. */
  private readonly readyOpenings = new Fifo<ReadyEntry>();
  private botTimer: ReturnType<typeof setTimeout> | undefined;
  /** What the bot timer waits for: new finals need not wait for a wait only updates had to. */
  private botTimerFor: "final" | "update" | undefined;
  /** A batch is with the store; its answer pumps the queues again. */
  private spending = false;
  /** Calls to ask for in the next batch: doubles while all are granted, else follows what was. */
  private batchSize = 1;
  /** Until when a rate limit pauses the whole bot, as far as this process knows: updates are dropped meanwhile. */
  private botPausedUntil = Number.NEGATIVE_INFINITY;
  private readonly idle = new Fifo<{ lane: ChatLane; stamp: number; at: number }>();
  private idleStamps = 0;
  /** The pacer of native drafts where the channel paces them apart from messages: their calls go there. */
  private readonly drafts: Pacer | undefined;

  readonly limits: ChannelLimits;

  /** `source` is the channel (or anything with its limits); one pacer serves all of that bot's calls. */
  constructor(source: { readonly limits: ChannelLimits }, options: PacerOptions = {}) {
    const limits = source.limits;
    this.limits = limits;
    this.now = options.now ?? (() => Date.now());
    this.budgets = options.budgets ?? new LocalBudgets(this.now).forChannel("channel", "default");
    this.reserve = options.reserve ?? 1;
    this.defaultRetryAfterMs = options.defaultRetryAfterMs ?? 1_000;
    this.jitterMs = options.jitterMs ?? 100;
    this.windowMarginMs = options.windowMarginMs ?? DEFAULT_WINDOW_MARGIN_MS;
    this.onRateLimited = options.onRateLimited;
    this.onBudgetWait = options.onBudgetWait;
    this.bot = this.charge("bot", limits.perBot, "bot");
    this.chatCharge = this.charge("chat", limits.perChat, "chat");
    this.groupCharge = this.charge("chat", limits.perGroup, "chat");
    this.apart = new Set((limits.apart ?? []).filter((operation) => limits.perOperation?.[operation] !== undefined));
    for (const [operation, budget] of Object.entries(limits.perOperation ?? {}) as [Operation, Budget][]) {
      const charge = this.charge(`op:${operation}`, budget, "operation");
      this.operations.set(operation, charge);
      const share = limits.openingShare?.[operation] ?? 0;
      if (share > 0) {
        const reserve = reserveFor(charge.reserve + share, capacityOf(charge.budget));
        this.growingOperations.set(operation, { ...charge, reserve });
      }
    }
    // Drafts spend from budgets of their own, in a store scope of their own: no final waits for them, so they keep
    // no reserve and never yield to finals (the "finals waiting" mark is per scope).
    this.drafts = limits.drafts
      ? new Pacer(
          { limits: draftPacing(limits.drafts) },
          {
            ...options,
            budgets: options.draftBudgets ?? new LocalBudgets(this.now).forChannel("drafts", "default"),
            reserve: 0,
          },
        )
      : undefined;
  }

  /** Chats with state held (queued work, or what the store said of their budget still to come). */
  get trackedChats(): number {
    return this.lanes.size + (this.drafts?.trackedChats ?? 0);
  }

  /**
   * Runs `op` when the budgets allow. A final always runs, however long a rate limit lasts, and resolves with
   * the result. An update resolves `undefined` when skipped: superseded by a newer update or a final of the same
   * `stream`, or dropped because the platform rate-limited the chat or bot. Typing resolves `undefined` unless
   * there is spare budget at once. Errors other than `rate_limited` reject, and so does a final when the budget
   * store cannot be reached (a `transient` ChannelError). `cost` names the operation for channels with
   * per-operation budgets: an update is skipped while its operation's budget is short, a final waits.
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
    if (this.drafts && cost.operation === "draft") return this.drafts.schedule(target, priority, op, stream, cost);
    const now = this.now();
    this.forgetIdle(now);
    const lane = this.laneFor(target);
    if (priority === "typing") return this.tryTyping(lane, op, cost, now);
    if (priority === "update" && this.isPaused(lane, now)) return Promise.resolve(undefined);
    return new Promise<T | undefined>((resolve, reject) => {
      const job: Job = { priority, cost, op, resolve: resolve as (value: unknown) => void, reject, queuedAt: now };
      if (priority === "final") {
        if (stream !== undefined) lane.withdrawUpdate(stream); // the final shows newer text anyway
        lane.finals.push(job);
      } else lane.offerUpdate(stream ?? Symbol("update"), job);
      this.pumpLane(lane);
    });
  }

  /** Withdraws the pending update of `stream`, if any (it resolves `undefined`); e.g. when its answer ends. */
  drop(target: ReplyTarget, stream: unknown): void {
    this.drafts?.drop(target, stream);
    const lane = this.lanes.get(target.chatId);
    if (lane?.withdrawUpdate(stream)) this.pumpLane(lane);
  }

  /** A budget as this pacer spends it: margins for network jitter applied, and the reserve kept for finals. */
  private charge(key: string, budget: Budget, role: BudgetRole): Charge {
    const kept: Budget =
      "max" in budget
        ? { max: budget.max, windowMs: budget.windowMs + this.windowMarginMs }
        : { perSecond: budget.perSecond, burst: Math.max(1, budget.burst - (budget.perSecond * this.jitterMs) / 1000) };
    return { key, budget: kept, reserve: reserveFor(this.reserve, capacityOf(kept)), role };
  }

  private laneFor(target: ReplyTarget): ChatLane {
    let lane = this.lanes.get(target.chatId);
    if (!lane) {
      const charge = target.isGroup ? this.groupCharge : this.chatCharge;
      lane = new ChatLane(target, { ...charge, key: `chat:${target.chatId}` });
      this.lanes.set(lane.key, lane);
    }
    lane.idleStamp = 0;
    return lane;
  }

  private isPaused(lane: ChatLane, now: number): boolean {
    return now < lane.pausedUntil || now < this.botPausedUntil;
  }

  /**
   * What a call of `priority` in `lane` charging `operations` asks for: its chat, the bot, and those operations (for
   * an update that opens no answer, leaving the operations' opening share).
   */
  private request(
    lane: ChatLane,
    priority: "final" | "update",
    operations: Operation[],
    opening = false,
  ): SpendRequest {
    const apart = operations.length > 0 && operations.every((operation) => this.apart.has(operation));
    const charges = apart ? [] : [lane.charge, this.bot];
    const growing = priority === "update" && !opening;
    for (const operation of operations) {
      const charge = (growing && this.growingOperations.get(operation)) || this.operations.get(operation);
      if (charge) charges.push(charge);
    }
    return { priority, charges };
  }

  private tryTyping<T>(lane: ChatLane, op: () => Promise<T>, cost: CallCost, now: number): Promise<T | undefined> {
    const botQuiet =
      !this.spending && this.readyFinals.size === 0 && this.readyOpenings.size === 0 && this.readyUpdates.size === 0;
    if (!lane.quiet || !botQuiet || lane.readyAt.update > now || this.isPaused(lane, now)) {
      this.pumpLane(lane);
      return Promise.resolve(undefined);
    }
    // Holding the lane keeps the chat's calls one at a time while the store answers.
    lane.busy = true;
    const released = (): undefined => {
      lane.busy = false;
      this.pumpLane(lane);
      return undefined;
    };
    const request = this.request(lane, "update", charged(cost), cost.opening);
    return this.budgets.spend([request]).then(([outcome]) => {
      if (!outcome?.granted) return released();
      this.noteGrant(lane, outcome);
      return new Promise<T | undefined>((resolve, reject) => {
        const job: Job = {
          priority: "typing",
          cost,
          op,
          resolve: resolve as (value: unknown) => void,
          reject,
          queuedAt: now,
        };
        void this.run(lane, job, placement(request, outcome, now));
      });
    }, released); // typing is a courtesy: skipped when the store cannot be reached
  }

  /** Moves a lane towards running its next job: waits until its chat has room, then queues it for the bot. */
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
    const wait = lane.readyAt[kind] - this.now();
    if (wait > 0) {
      lane.timer = arm(wait, () => {
        lane.timer = undefined;
        this.pumpLane(lane);
      });
      return;
    }
    lane.readyAs = kind;
    lane.ticket += 1;
    this.queueOf(lane, kind).push({ lane, ticket: lane.ticket });
    this.pumpBot(kind);
  }

  /**
   * The bot queue a lane ready for `kind` joins: finals; updates that open their answer (the user sees nothing of
   * it yet: at 1,000 answers at once, a first draft queued behind the others' next drafts waited 1.4 s at the
   * median); other updates.
   */
  private queueOf(lane: ChatLane, kind: "final" | "update"): Fifo<ReadyEntry> {
    if (kind === "final") return this.readyFinals;
    return lane.peek("update")?.cost.opening ? this.readyOpenings : this.readyUpdates;
  }

  /** Sends the heads of the queues to the store, unless a batch is there already or the bot must be waited for. */
  private pumpBot(arrived?: "final" | "update"): void {
    if (this.spending) return;
    if (this.botTimer) {
      // A final may go where the updates could not: they need the reserve, and yield to finals elsewhere.
      if (arrived !== "final" || this.botTimerFor === "final") return;
      clearTimeout(this.botTimer);
      this.botTimer = undefined;
    }
    const asks = this.takeBatch();
    if (asks.length === 0) return;
    this.spending = true;
    const askedAt = this.now();
    this.budgets.spend(asks.map((ask) => ask.request)).then(
      (outcomes) => this.settle(asks, outcomes, askedAt),
      (error: unknown) => this.fail(asks, error),
    );
  }

  /** Takes up to a batch of live entries off the queues, finals first. */
  private takeBatch(): Ask[] {
    const asks: Ask[] = [];
    while (asks.length < this.batchSize) {
      const final = headOf(this.readyFinals, "final");
      const opening = final ? undefined : headOf(this.readyOpenings, "update");
      const entry = final ?? opening ?? headOf(this.readyUpdates, "update");
      if (!entry) break;
      const kind = final ? "final" : "update";
      const queue = final ? this.readyFinals : opening ? this.readyOpenings : this.readyUpdates;
      queue.shift();
      const cost = entry.lane.peek(kind)?.cost ?? {};
      const operations = charged(cost);
      asks.push({ entry, kind, queue, operations, request: this.request(entry.lane, kind, operations, cost.opening) });
    }
    return asks;
  }

  /** Acts on the store's answer: starts what was granted, sends lanes to their timers, waits for the bot. */
  private settle(asks: Ask[], outcomes: SpendOutcome[], askedAt: number): void {
    const now = this.now();
    let granted = 0;
    let stop: { waitMs: number; kind: "final" | "update" } | undefined;
    const back: Ask[] = [];
    for (const [k, ask] of asks.entries()) {
      const outcome = outcomes[k];
      if (outcome === undefined) {
        back.push(ask); // not tried: the store stopped before it
        continue;
      }
      const { lane } = ask.entry;
      if (outcome.granted) {
        granted += 1;
        this.noteGrant(lane, outcome);
        this.useGrant(ask, placement(ask.request, outcome, askedAt));
        continue;
      }
      if (outcome.paused && ask.kind === "update") this.notePause(lane, outcome, now);
      if (outcome.queueWaitMs > 0 && !outcome.short) stop = { waitMs: outcome.queueWaitMs, kind: ask.kind };
      if (!isLive(ask)) continue;
      if (ask.kind === "update" && (outcome.short || outcome.paused)) {
        // Not worth waiting for: its operation's budget is short, or a rate limit pauses the chat or bot.
        lane.readyAs = undefined;
        const job = lane.take("update");
        if (outcome.short) job?.cost.onShort?.();
        job?.resolve(undefined);
        this.pumpLane(lane);
      } else if (outcome.queueWaitMs > 0 && outcome.queueWaitMs >= outcome.laneWaitMs) {
        back.push(ask);
      } else {
        // Its chat is short: the lane waits on its own timer and queues again once the chat has room.
        lane.readyAt[ask.kind] = now + outcome.laneWaitMs;
        lane.readyAs = undefined;
        this.pumpLane(lane);
      }
    }
    // What waits for the bot goes back to the front of its queue, in its order.
    for (const ask of back.reverse()) {
      if (isLive(ask)) ask.queue.unshift(ask.entry);
    }
    this.batchSize = stop
      ? granted + 1
      : asks.length === this.batchSize
        ? Math.min(MAX_BATCH, this.batchSize * 2)
        : this.batchSize;
    this.spending = false;
    if (stop && !(stop.kind === "update" && headOf(this.readyFinals, "final"))) {
      this.botTimerFor = stop.kind;
      this.botTimer = arm(stop.waitMs, () => {
        this.botTimer = undefined;
        this.botTimerFor = undefined;
        this.pumpBot();
      });
    } else this.pumpBot();
  }

  /** The store could not be reached: finals fail (a transient error their callers may retry), updates are skipped. */
  private fail(asks: Ask[], error: unknown): void {
    for (const ask of asks) {
      if (!isLive(ask)) continue;
      const { lane } = ask.entry;
      lane.readyAs = undefined;
      const job = lane.take(ask.kind);
      if (job?.priority === "final") {
        job.reject(
          new ChannelError("transient", `the budget store failed: ${String(error)}`, undefined, { cause: error }),
        );
      } else job?.resolve(undefined);
    }
    this.spending = false;
    for (const ask of asks) this.pumpLane(ask.entry.lane);
    this.pumpBot();
  }

  /** Starts the lane's next job on a grant: the one asked for, or a final that came instead (it needs no more). */
  private useGrant(ask: Ask, placed: Placement): void {
    const { lane } = ask.entry;
    // Only an ask gone stale finds its lane busy (its update was withdrawn, then typing began): the call spent is
    // lost, and the running call queues the lane again when it ends.
    if (lane.busy) return;
    const kind = lane.nextKind();
    const job = kind === undefined ? undefined : lane.peek(kind);
    const covered =
      kind !== undefined &&
      job !== undefined &&
      (kind === ask.kind || kind === "final") &&
      sameOperations(charged(job.cost), ask.operations);
    if (kind === undefined || !covered) {
      // What was asked for is gone or costs otherwise now: the call spent is lost, the lane asks again.
      lane.readyAs = undefined;
      this.pumpLane(lane);
      return;
    }
    lane.take(kind);
    lane.readyAs = undefined;
    lane.ticket += 1; // any entry of this lane still queued is stale now
    lane.busy = true;
    this.onBudgetWait?.({ priority: kind, waitedMs: this.now() - (job as Job).queuedAt });
    void this.run(lane, job as Job, placed);
  }

  /** Remembers when the lane's chat has room again, so the lane waits on its timer instead of asking. */
  private noteGrant(lane: ChatLane, outcome: SpendOutcome): void {
    const now = this.now();
    lane.readyAt.final = now + outcome.next.final;
    lane.readyAt.update = now + outcome.next.update;
  }

  /**
   * Remembers a pause another process (or an earlier call) set, as an update met it, so the next updates are
   * dropped without asking: the bot's when the bot's wait was the longer, else the chat's.
   */
  private notePause(lane: ChatLane, outcome: SpendOutcome, now: number): void {
    if (outcome.queueWaitMs >= outcome.laneWaitMs) {
      this.botPausedUntil = Math.max(this.botPausedUntil, now + outcome.queueWaitMs);
    } else lane.pausedUntil = Math.max(lane.pausedUntil, now + outcome.laneWaitMs);
  }

  private async run(lane: ChatLane, job: Job, placed: Placement): Promise<void> {
    try {
      job.resolve(await job.op());
    } catch (error) {
      if (error instanceof ChannelError && error.kind === "rate_limited") {
        this.pauseAfter(lane, job, error);
        // A final is retried first in its chat once the pause ends; anything else is dropped.
        if (job.priority === "final") lane.finals.unshift(job);
        else job.resolve(undefined);
      } else job.reject(error);
    } finally {
      this.answered(placed);
    }
    lane.busy = false;
    this.pumpLane(lane);
  }

  /**
   * A call reaches the platform somewhere between its spend and its answer, and the windows allow for
   * `windowMarginMs` of that. A call answered later (a cold connection, a busy process, a slow network) moves in
   * its windows to where it may have landed, so the calls after it keep their distance whatever the network: one
   * more round trip to the store, for late calls only. The pacer cannot tell the way there from the way back, so
   * where every round trip is longer than the margin every call moves and each window lasts about a round trip
   * longer (30 in 1.05 s at 50 ms). A call that took longer than a whole window is past helping.
   */
  private answered(placed: Placement): void {
    const late = this.now() - placed.askedAt - this.windowMarginMs;
    if (late <= 0 || placed.windows.length === 0) return;
    // Only the spacing of later calls depends on it; when the store cannot be reached they cannot be granted.
    this.budgets.late(placed.windows, placed.stamp, late).catch(() => {});
  }

  /**
   * Pauses what the platform said is limited, in the store for every process: the chat, and with it the whole bot
   * when the platform said so; on a channel with per-operation budgets a bot-wide limit is the limit of that
   * operation's method only (Slack limits each method on its own), so only that operation's budget pauses.
   */
  private pauseAfter(lane: ChatLane, job: Job, error: ChannelError): void {
    const retryAfterMs = error.retryAfterMs ?? this.defaultRetryAfterMs;
    const until = this.now() + retryAfterMs;
    const scope = error.scope === "bot" ? "bot" : "chat";
    const charges = [lane.charge];
    lane.pausedUntil = Math.max(lane.pausedUntil, until);
    lane.readyAt.final = Math.max(lane.readyAt.final, until);
    lane.readyAt.update = Math.max(lane.readyAt.update, until);
    if (scope === "bot") {
      const operation = job.cost.operation === undefined ? undefined : this.operations.get(job.cost.operation);
      if (operation) charges.push(operation);
      else {
        charges.push(this.bot);
        this.botPausedUntil = Math.max(this.botPausedUntil, until);
      }
    }
    lane.dropUpdates();
    // When the store cannot be reached this process still holds back (the lane and bot times above), and its
    // next spend meets the same failure.
    this.budgets.pause(charges, retryAfterMs).catch(() => {});
    this.onRateLimited?.({ target: lane.target, priority: job.priority, retryAfterMs, scope });
  }

  /** Remembers when an idle lane's known times have passed; from then on it can be forgotten. */
  private markIdle(lane: ChatLane): void {
    const now = this.now();
    lane.idleStamp = ++this.idleStamps;
    const at = Math.max(now, lane.readyAt.final, lane.readyAt.update, lane.pausedUntil);
    this.idle.push({ lane, stamp: lane.idleStamp, at });
  }

  /** Forgets chats idle past what the store told of them, so memory follows active chats. */
  private forgetIdle(now: number): void {
    for (let head = this.idle.peek(); head && head.at <= now; head = this.idle.peek()) {
      this.idle.shift();
      const { lane, stamp } = head;
      if (lane.idleStamp === stamp && lane.quiet && !lane.timer && this.lanes.get(lane.key) === lane) {
        this.lanes.delete(lane.key);
      }
    }
  }
}

/** The limits a pacer of drafts alone keeps: the drafts' budgets as its chat and bot budgets. */
function draftPacing(drafts: DraftLimits): ChannelLimits {
  const interval = { private: drafts.minIntervalMs, group: drafts.minIntervalMs };
  return { perChat: drafts.perChat, perGroup: drafts.perChat, perBot: drafts.perBot, minUpdateIntervalMs: interval };
}

/** True while the entry still stands for its lane: nothing ran, moved or withdrew it since it was queued. */
function isLive(ask: Ask): boolean {
  return ask.entry.ticket === ask.entry.lane.ticket && ask.entry.lane.readyAs === ask.kind;
}

/** The operations a call takes a token of: its own unless prepaid, and the one it prepays. */
function charged(cost: CallCost): Operation[] {
  const operations: Operation[] = [];
  if (cost.operation !== undefined && !cost.prepaid) operations.push(cost.operation);
  if (cost.prepay !== undefined) operations.push(cost.prepay);
  return operations;
}

function sameOperations(a: Operation[], b: Operation[]): boolean {
  return a.length === b.length && a.every((operation, k) => operation === b[k]);
}

/** Calls to keep for finals: `reserve`, but never so many that a small budget leaves updates no call at all. */
function reserveFor(reserve: number, capacity: number): number {
  return Math.max(0, Math.min(reserve, capacity - 1));
}

/** Timers round up, and the woken code asks again, so nothing runs early on a coarse clock. */
function arm(ms: number, wake: () => void): ReturnType<typeof setTimeout> {
  return setTimeout(wake, Math.max(1, Math.ceil(ms - 1e-6)));
}

/** Where a call granted by `outcome` stands in its request's sliding windows. */
function placement(request: SpendRequest, outcome: SpendOutcome, askedAt: number): Placement {
  return { windows: request.charges.filter((charge) => "max" in charge.budget), stamp: outcome.stamp, askedAt };
}
