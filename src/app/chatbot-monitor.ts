import type { Logger } from "../common/log.js";
import type { ChatbotTarget } from "./chatbot-links.js";
import { type ProbeOutcome, probeChatbot } from "./chatbot-probe.js";

/** One chatbot and what its last probe found. */
export interface ChatbotHealth {
  target: ChatbotTarget;
  outcome: ProbeOutcome;
}

/** How the monitor probes; tests shorten the waits. */
export interface ChatbotMonitorOptions {
  log: Logger;
  /** Pause between two probes of a chatbot that failed (default 30 s). */
  retryMs?: number;
  /** Longest wait for one probe's answers (default 5 s). */
  timeoutMs?: number;
  /** A probe younger than this is reused by {@link ChatbotMonitor.check} (default 5 s). */
  freshMs?: number;
}

/** A chatbot, its last probe's outcome and time, and the probe under way. */
interface ProbeState {
  target: ChatbotTarget;
  outcome?: ProbeOutcome;
  at: number;
  probing?: Promise<void> | undefined;
}

/** Where a chatbot is, for logs and messages: `http://api · chatbot 123`. */
export function describeTarget(target: ChatbotTarget): string {
  return `${target.baseUrl} · chatbot ${target.serialNumber}`;
}

/**
 * Knows whether each chatbot the bridge talks to can be reached. A chatbot that fails is probed again in the
 * background every `retryMs` until it answers, which is logged once (the API may come up after the bridge);
 * /readyz asks {@link check}, which probes again when the last probe is older than `freshMs`, so readiness follows
 * the upstream without letting a flood of /readyz requests flood the upstream.
 */
export class ChatbotMonitor {
  readonly retryMs: number;
  readonly #log: Logger;
  readonly #timeoutMs: number;
  readonly #freshMs: number;
  readonly #states: ProbeState[];
  readonly #retries = new Map<ChatbotTarget, NodeJS.Timeout>();
  #stopped = false;

  constructor(targets: ChatbotTarget[], options: ChatbotMonitorOptions) {
    this.#log = options.log;
    this.retryMs = options.retryMs ?? 30_000;
    this.#timeoutMs = options.timeoutMs ?? 5_000;
    this.#freshMs = options.freshMs ?? 5_000;
    this.#states = targets.map((target) => ({ target, at: 0 }));
  }

  /** Probes every chatbot (in parallel) and returns what was found; failing ones are retried from then on. */
  async start(): Promise<ChatbotHealth[]> {
    await Promise.all(this.#states.map((state) => this.#probe(state)));
    return this.#health();
  }

  /** The chatbots' states, probing again those whose last probe is not fresh. */
  async check(): Promise<ChatbotHealth[]> {
    const now = Date.now();
    await Promise.all(
      this.#states.filter((state) => now - state.at >= this.#freshMs).map((state) => this.#probe(state)),
    );
    return this.#health();
  }

  /** Ends the background retries. */
  stop(): void {
    this.#stopped = true;
    for (const timer of this.#retries.values()) clearTimeout(timer);
    this.#retries.clear();
  }

  #health(): ChatbotHealth[] {
    return this.#states.map(({ target, outcome }) => ({ target, outcome: outcome ?? { ok: true } }));
  }

  /** One probe of a chatbot at a time: callers arriving meanwhile share it. */
  #probe(state: ProbeState): Promise<void> {
    state.probing ??= (async () => {
      try {
        const outcome = await probeChatbot(state.target, this.#timeoutMs).catch(
          (error: unknown): ProbeOutcome => ({
            ok: false,
            problem: `the probe failed (${error instanceof Error ? error.message : String(error)})`,
            fix: `check ${state.target.names.url}`,
          }),
        );
        this.#record(state, outcome);
      } finally {
        state.probing = undefined;
      }
    })();
    return state.probing;
  }

  #record(state: ProbeState, outcome: ProbeOutcome): void {
    const before = state.outcome;
    state.outcome = outcome;
    state.at = Date.now();
    const where = describeTarget(state.target);
    if (outcome.ok) {
      if (before && !before.ok) this.#log.info({ chatbot: where }, `chatbot API ${where} is reachable now`);
      return;
    }
    if (!before || before.ok || before.problem !== outcome.problem) {
      this.#log.warn({ chatbot: where }, `chatbot API ${where}: ${outcome.problem}; ${outcome.fix}`);
    }
    this.#scheduleRetry(state);
  }

  #scheduleRetry(state: ProbeState): void {
    if (this.#stopped || this.#retries.has(state.target)) return;
    const timer = setTimeout(() => {
      this.#retries.delete(state.target);
      if (!this.#stopped) void this.#probe(state);
    }, this.retryMs);
    // The retries never keep the process alive on their own.
    timer.unref();
    this.#retries.set(state.target, timer);
  }
}
