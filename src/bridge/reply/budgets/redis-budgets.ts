import type { Budget, WindowBudget } from "../../channel.js";
import { REDIS_BUDGET_PREFIX } from "../../store/key-prefixes.js";
import {
  type BudgetRole,
  type BudgetStore,
  type ChannelBudgets,
  type Charge,
  FINALS_MARK_SLACK_MS,
  type SpendOutcome,
  type SpendRequest,
} from "./budget-store.js";
import { LATE, PAUSE, type Script, SPEND } from "./redis-budget-scripts.js";

/** What the budgets need of a Redis client (node-redis's, as the Redis store and the tests open it). */
export interface ScriptClient {
  eval(script: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
  evalSha(sha: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
}

const ROLE_LETTERS: Record<BudgetRole, string> = { chat: "c", bot: "b", operation: "o" };

/** Values per request in the spend script's answer. */
const OUTCOME_WIDTH = 8;

/**
 * The budgets in Redis, shared by every process on the same Redis and namespace: each spend is one Lua script
 * (one round trip for a whole batch), atomic over the budgets it names and timed by Redis's clock, so instances
 * on different hosts agree on every window. Keys: `<namespace>:budget:<scope>:<key>` (a window's list of call
 * times or a bucket's arrival time), `…:pause:<key>` (a rate-limit pause, expiring with it) and `…:finals-waiting`;
 * each expires once it no longer limits anything.
 */
export class RedisBudgets implements BudgetStore {
  readonly #client: ScriptClient;
  readonly #namespace: string;

  constructor(client: ScriptClient, namespace: string) {
    this.#client = client;
    this.#namespace = namespace;
  }

  forChannel(channel: string, botId: string): ChannelBudgets {
    const scope = `${channel}:${botId}`;
    return {
      spend: (requests) => this.#spend(scope, requests),
      pause: (charges, ms) => this.#pause(scope, charges, ms),
      late: (charges, stamp, ms) => this.#late(scope, charges, stamp, ms),
    };
  }

  async #spend(scope: string, requests: SpendRequest[]): Promise<SpendOutcome[]> {
    if (requests.length === 0) return [];
    const keys = [this.#key(scope, "finals-waiting")];
    const indexes = new Map<string, number>();
    const args = [String(FINALS_MARK_SLACK_MS), String(requests.length)];
    for (const request of requests) {
      args.push(request.priority === "final" ? "f" : "u", String(request.charges.length));
      for (const charge of request.charges) {
        let k = indexes.get(charge.key);
        if (k === undefined) {
          k = indexes.size + 1;
          indexes.set(charge.key, k);
          keys.push(this.#key(scope, charge.key), this.#key(scope, `pause:${charge.key}`));
        }
        args.push(String(k), ...budgetArgs(charge.budget), String(charge.reserve), ROLE_LETTERS[charge.role]);
      }
    }
    const reply = (await this.#run(SPEND, keys, args)) as (number | string)[];
    const outcomes: SpendOutcome[] = [];
    for (let at = 0; at + OUTCOME_WIDTH <= reply.length; at += OUTCOME_WIDTH) {
      const [granted, lane, queue, short, paused, nextFinal, nextUpdate, stamp] = reply.slice(at, at + OUTCOME_WIDTH);
      outcomes.push({
        granted: granted === 1,
        laneWaitMs: Number(lane),
        queueWaitMs: Number(queue),
        short: short === 1,
        paused: paused === 1,
        next: { final: Number(nextFinal), update: Number(nextUpdate) },
        stamp: String(stamp),
      });
    }
    return outcomes;
  }

  async #pause(scope: string, charges: Charge[], ms: number): Promise<void> {
    if (charges.length === 0) return;
    const keys = [this.#key(scope, "finals-waiting")];
    const args = [String(ms)];
    for (const charge of charges) {
      keys.push(this.#key(scope, charge.key), this.#key(scope, `pause:${charge.key}`));
      args.push(...budgetArgs(charge.budget));
    }
    await this.#run(PAUSE, keys, args);
  }

  async #late(scope: string, charges: Charge[], stamp: string, ms: number): Promise<void> {
    const windows = charges.filter((charge) => "max" in charge.budget);
    if (windows.length === 0) return;
    const keys = windows.map((charge) => this.#key(scope, charge.key));
    const lengths = windows.map((charge) => String((charge.budget as WindowBudget).windowMs));
    await this.#run(LATE, keys, [stamp, String(ms), ...lengths]);
  }

  #key(scope: string, key: string): string {
    return `${this.#namespace}:${REDIS_BUDGET_PREFIX}${scope}:${key}`;
  }

  /** EVALSHA, and EVAL once when Redis does not know the script yet (a restart or SCRIPT FLUSH forgets them). */
  async #run(script: Script, keys: string[], args: string[]): Promise<unknown> {
    try {
      return await this.#client.evalSha(script.sha, { keys, arguments: args });
    } catch (error) {
      if (!(error instanceof Error && error.message.startsWith("NOSCRIPT"))) throw error;
      return this.#client.eval(script.source, { keys, arguments: args });
    }
  }
}

/** A budget as the scripts read it: kind, x, y. */
function budgetArgs(budget: Budget): [string, string, string] {
  return "max" in budget
    ? ["w", String(budget.max), String(budget.windowMs)]
    : ["b", String(budget.perSecond), String(budget.burst)];
}
