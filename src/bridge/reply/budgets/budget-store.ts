import type { Budget } from "../../channel.js";

/**
 * What a budget is for, which decides what its refusal means:
 * - `chat`: only this call waits (its chat's budget);
 * - `bot`: every call behind it waits too (the bot's budget is first-in-first-out), and a final it refuses marks
 *   "finals waiting", so updates everywhere yield until the finals have gone;
 * - `operation`: a final waits like behind the bot; an update is not worth waiting for and is skipped.
 */
export type BudgetRole = "chat" | "bot" | "operation";

/** One budget a call spends from. */
export interface Charge {
  /** Names the budget within its scope: "bot", "chat:<id>", "op:<operation>". */
  key: string;
  /** The limit as the pacer keeps it (margins for network jitter already applied). */
  budget: Budget;
  /** Calls an update leaves in this budget for finals (0 for none). */
  reserve: number;
  role: BudgetRole;
}

/** One call asking for its budgets: all of them or none. */
export interface SpendRequest {
  /** A final needs one call's room in each budget; an update (or typing) also its reserve, and yields to finals. */
  priority: "final" | "update";
  charges: Charge[];
}

/** What became of a {@link SpendRequest}. Waits are in milliseconds from the decision, rounded up. */
export interface SpendOutcome {
  /** The budgets were spent: the call may go now. */
  granted: boolean;
  /** When refused: until the `chat` budgets allow the call. */
  laneWaitMs: number;
  /** When refused: until the `bot` budget (or a final's `operation`) allows it, or the finals waiting have gone. */
  queueWaitMs: number;
  /** When refused: an update's `operation` budget was short. */
  short: boolean;
  /** When refused: a budget that refused is paused after a rate-limit answer. */
  paused: boolean;
  /** When granted: until the `chat` budgets allow another final, and another update. */
  next: { final: number; update: number };
  /** When granted: the call's place in its sliding windows, for {@link ChannelBudgets.late}. */
  stamp: string;
}

/**
 * The platform budgets of every bot, shared by whoever spends from the same store: per chat, per bot and per
 * operation, as sliding windows or token buckets. Processes sharing a store (Redis) never spend one budget twice.
 * State is forgotten once it no longer limits anything.
 */
export interface BudgetStore {
  /** The budgets of one bot on one channel (e.g. "telegram", "default"). */
  forChannel(channel: string, botId: string): ChannelBudgets;
}

/** One bot's budgets: each spend is atomic over the budgets it names. */
export interface ChannelBudgets {
  /**
   * Tries `requests` in order, each all-or-nothing; stops after the first one refused by a `bot` or a final's
   * `operation` budget (everything behind it would wait anyway), so the outcomes may be fewer than the requests.
   */
  spend(requests: SpendRequest[]): Promise<SpendOutcome[]>;
  /**
   * Pauses the budgets of `charges` for `ms` after a rate-limit answer: nothing is granted from them until then,
   * then one call at most, then the normal pace.
   */
  pause(charges: Charge[], ms: number): Promise<void>;
  /**
   * Moves a granted call's place in the sliding windows of `charges` `ms` later (its spend's `stamp`): its answer
   * came so late that it may have reached the platform that much after it was granted.
   */
  late(charges: Charge[], stamp: string, ms: number): Promise<void>;
}

/** How long a "finals waiting" mark outlives the wait its final was told: its retry's timer and round trip. */
export const FINALS_MARK_SLACK_MS = 50;

/** Calls a budget allows at once: a bucket's burst, a window's count. */
export function capacityOf(budget: Budget): number {
  return "max" in budget ? budget.max : budget.burst;
}

/** Room a request needs in a budget: one call, plus the reserve for an update. */
export function needOf(priority: "final" | "update", charge: Charge): number {
  return priority === "final" ? 1 : 1 + charge.reserve;
}

/** Waits at most this long are none: floating-point residue of the budgets' arithmetic. */
export const WAIT_EPSILON_MS = 1e-6;

/** Timers work in whole milliseconds: a wait is rounded up, so nothing is tried early. */
export function roundWait(ms: number): number {
  return ms <= WAIT_EPSILON_MS ? 0 : Math.max(1, Math.ceil(ms - WAIT_EPSILON_MS));
}
