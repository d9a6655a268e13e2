import { TokenBucket } from "../token-bucket.js";
import {
  type BudgetStore,
  type ChannelBudgets,
  type Charge,
  FINALS_MARK_SLACK_MS,
  needOf,
  roundWait,
  type SpendOutcome,
  type SpendRequest,
  WAIT_EPSILON_MS,
} from "./budget-store.js";
import { SlidingWindow } from "./sliding-window.js";

/** Spends between two sweeps of the budgets that no longer limit anything, at the least. */
const SPENDS_PER_SWEEP = 1_000;

type BudgetState = TokenBucket | SlidingWindow;

/**
 * The budgets of one process (memory and SQLite stores: one process serves the bot), with the same rules as
 * {@link RedisBudgets}. Each call runs to completion before any other, so spends are atomic; state changes happen
 * when the method is called, not when its promise settles. Budgets that no longer limit anything are swept, so
 * memory follows the active chats.
 */
export class LocalBudgets implements BudgetStore {
  readonly #now: () => number;
  readonly #states = new Map<string, BudgetState>();
  /** Per scope: until when updates yield to finals waiting for the bot. */
  readonly #finalsWaiting = new Map<string, number>();
  #spendsSinceSweep = 0;

  /** `now`: the clock in milliseconds (`Date.now` by default). */
  constructor(now: () => number = () => Date.now()) {
    this.#now = now;
  }

  forChannel(channel: string, botId: string): ChannelBudgets {
    const scope = `${channel}:${botId}`;
    return {
      spend: async (requests) => this.#spend(scope, requests),
      pause: async (charges, ms) => this.#pause(scope, charges, ms),
      late: async (charges, stamp, ms) => this.#late(scope, charges, Number(stamp), ms),
    };
  }

  #spend(scope: string, requests: SpendRequest[]): SpendOutcome[] {
    const now = this.#now();
    if (++this.#spendsSinceSweep >= Math.max(SPENDS_PER_SWEEP, this.#states.size)) this.#sweep(now);
    const outcomes: SpendOutcome[] = [];
    for (const request of requests) {
      const outcome = this.#try(scope, request, now);
      outcomes.push(outcome);
      if (!outcome.granted && outcome.queueWaitMs > 0 && !outcome.short) break;
    }
    return outcomes;
  }

  #pause(scope: string, charges: Charge[], ms: number): void {
    const now = this.#now();
    for (const charge of charges) this.#state(scope, charge, now).pause(now + ms);
  }

  #late(scope: string, charges: Charge[], at: number, ms: number): void {
    for (const charge of charges) {
      const state = this.#states.get(`${scope}\n${charge.key}`);
      if (state instanceof SlidingWindow) state.move(at, at + ms);
    }
  }

  #try(scope: string, request: SpendRequest, now: number): SpendOutcome {
    const final = request.priority === "final";
    const states = request.charges.map((charge) => this.#state(scope, charge, now));
    let lane = 0;
    let queue = 0;
    let bot = 0;
    let short = false;
    let paused = false;
    for (const [k, charge] of request.charges.entries()) {
      const state = states[k] as BudgetState;
      const wait = state.waitFor(needOf(request.priority, charge), now);
      if (wait <= WAIT_EPSILON_MS) continue;
      paused ||= state.isPaused(now);
      if (charge.role === "chat") lane = Math.max(lane, wait);
      else if (charge.role === "operation" && !final) short = true;
      else {
        queue = Math.max(queue, wait);
        if (charge.role === "bot") bot = Math.max(bot, wait);
      }
    }
    const mark = this.#finalsWaiting.get(scope) ?? Number.NEGATIVE_INFINITY;
    if (!final) queue = Math.max(queue, mark - now);
    const granted = lane <= WAIT_EPSILON_MS && queue <= WAIT_EPSILON_MS && !short;
    const next = { final: 0, update: 0 };
    if (granted) {
      for (const state of states) state.take(now);
      for (const [k, charge] of request.charges.entries()) {
        if (charge.role !== "chat") continue;
        const state = states[k] as BudgetState;
        next.final = Math.max(next.final, roundWait(state.waitFor(1, now)));
        next.update = Math.max(next.update, roundWait(state.waitFor(1 + charge.reserve, now)));
      }
    } else if (final && bot > WAIT_EPSILON_MS) {
      this.#finalsWaiting.set(scope, Math.max(mark, now + bot + FINALS_MARK_SLACK_MS));
    }
    return {
      granted,
      laneWaitMs: roundWait(lane),
      queueWaitMs: roundWait(queue),
      short,
      paused,
      next,
      stamp: String(now),
    };
  }

  #state(scope: string, charge: Charge, now: number): BudgetState {
    const key = `${scope}\n${charge.key}`;
    let state = this.#states.get(key);
    if (!state) {
      const budget = charge.budget;
      state = "max" in budget ? new SlidingWindow(budget) : new TokenBucket(budget, now);
      this.#states.set(key, state);
    }
    return state;
  }

  /** Forgets budgets as full as new ones and marks that have passed: amortised O(1) per spend. */
  #sweep(now: number): void {
    this.#spendsSinceSweep = 0;
    for (const [key, state] of this.#states) {
      if (state instanceof SlidingWindow ? state.isIdle(now) : state.isFull(now)) this.#states.delete(key);
    }
    for (const [scope, until] of this.#finalsWaiting) if (until <= now) this.#finalsWaiting.delete(scope);
  }
}
