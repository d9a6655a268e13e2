import { ChannelError } from "../bridge/channel.js";
import type { Logger } from "../common/log.js";

/**
 * What every channel adapter does with its platform's failures the same way: the problems only the operator can
 * fix, said once; the platform's error behind a {@link ChannelError}; the kind of an HTTP failure. Each adapter keeps
 * its own mapping of its platform's errors (codes, descriptions, which of them an operator must fix).
 */

/** Something only the operator can fix, said once in the log rather than per message. */
export interface OperatorProblem {
  /** Stable key, so the same problem is logged once per process and bot. */
  key: string;
  /** What is wrong and how to fix it, naming the setting. */
  message: string;
}

/** Who logs an operator problem: the channel, and the bot where the adapter serves several. */
export interface ProblemSource {
  channel: string;
  botId?: string;
}

/**
 * The operator problems one channel (of one bot) has logged. A wrong token fails every call: one error line with
 * the fix is worth more than one per message, so each problem is logged once, until {@link clear}.
 */
export class OperatorProblems {
  readonly #reported = new Set<string>();
  readonly #log: Logger | undefined;
  readonly #source: ProblemSource;

  constructor(log: Logger | undefined, source: ProblemSource) {
    this.#log = log;
    this.#source = source;
  }

  /** Logs `problem` as an error the first time its key comes; nothing when there is no problem. */
  report(problem: OperatorProblem | undefined): void {
    if (problem && this.isNew(problem.key)) this.#log?.error(this.#source, problem.message);
  }

  /**
   * True the first time `key` comes (since {@link clear}), which it then records: for a failure the caller logs its
   * own way but also once (a poll that keeps failing for a reason that is nobody's mistake).
   */
  isNew(key: string): boolean {
    if (this.#reported.has(key)) return false;
    this.#reported.add(key);
    return true;
  }

  /** Forgets what was logged, so a problem that comes back after things worked again is logged again. */
  clear(): void {
    this.#reported.clear();
  }
}

/** The platform's own error behind `error`: the cause of a {@link ChannelError}, else `error` itself. */
export function platformCause(error: unknown): unknown {
  return error instanceof ChannelError ? error.cause : error;
}

/**
 * The kind of a call the platform answered with an HTTP error `status`: its own trouble (5xx) may pass, so the call
 * is worth another try; anything else will be refused again.
 */
export function statusKind(status: number): "transient" | "rejected" {
  return status >= 500 ? "transient" : "rejected";
}
