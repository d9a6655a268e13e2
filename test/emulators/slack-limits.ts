/** At most `max` calls in any sliding window of `windowMs`, per workspace. */
export interface SlackMethodLimit {
  max: number;
  windowMs: number;
}

/** The rate limits the emulator enforces (https://api.slack.com/docs/rate-limits). */
export interface SlackLimits {
  /**
   * Per method, per workspace. Defaults: "chat.startStream" and "chat.stopStream" Tier 2 {max: 20, windowMs: 60_000};
   * "chat.update" Tier 3 {50, 60_000}; "chat.appendStream" Tier 4 {100, 60_000}; "assistant.threads.setStatus"
   * {600, 60_000}; "users.info" {100, 60_000}; "auth.test" {100, 60_000}.
   */
  methods: Record<string, SlackMethodLimit>;
  /**
   * chat.postMessage: "one message per second per channel" as a sliding window, default {max: 1, windowMs: 1_000};
   * use {max: 2, windowMs: 1_000} to allow Slack's short bursts.
   */
  postPerChannel: SlackMethodLimit;
  /** chat.postMessage's workspace-wide limit, default {max: 600, windowMs: 60_000}. */
  postPerWorkspace: SlackMethodLimit;
}

const MINUTE = 60_000;

/** Tiers give a floor ("50+ per minute"), so these are the least Slack promises. */
export const DEFAULT_SLACK_LIMITS: SlackLimits = {
  methods: {
    "chat.startStream": { max: 20, windowMs: MINUTE },
    "chat.stopStream": { max: 20, windowMs: MINUTE },
    "chat.update": { max: 50, windowMs: MINUTE },
    "chat.appendStream": { max: 100, windowMs: MINUTE },
    // "Special" in Slack's docs; generous, as a status is cheap.
    "assistant.threads.setStatus": { max: 600, windowMs: MINUTE },
    // Tier 3, as Slack lists it.
    "assistant.threads.setSuggestedPrompts": { max: 50, windowMs: MINUTE },
    "users.info": { max: 100, windowMs: MINUTE },
    "auth.test": { max: 100, windowMs: MINUTE },
  },
  postPerChannel: { max: 1, windowMs: 1_000 },
  postPerWorkspace: { max: 600, windowMs: MINUTE },
};

/** The defaults with `limits` over them, key by key; `methods` is merged method by method. */
export function mergeLimits(limits: Partial<SlackLimits> = {}): SlackLimits {
  return {
    ...DEFAULT_SLACK_LIMITS,
    ...limits,
    methods: { ...DEFAULT_SLACK_LIMITS.methods, ...limits.methods },
  };
}

/** The sliding windows of one workspace, on performance.now() times. */
export class SlackRateLimits {
  readonly #limits: SlackLimits;
  readonly #methods = new Map<string, number[]>();
  readonly #channels = new Map<string, number[]>();
  readonly #posts: number[] = [];

  constructor(limits: SlackLimits) {
    this.#limits = limits;
  }

  /** Milliseconds until a call to `method` (in `channel`) fits every window; 0 when it fits now. */
  waitMs(method: string, channel: string, now: number): number {
    const limit = Object.hasOwn(this.#limits.methods, method) ? this.#limits.methods[method] : undefined;
    const methodWait = limit ? windowWait(calls(this.#methods, method), limit, now) : 0;
    if (method !== "chat.postMessage") return methodWait;
    return Math.max(
      methodWait,
      windowWait(calls(this.#channels, channel), this.#limits.postPerChannel, now),
      windowWait(this.#posts, this.#limits.postPerWorkspace, now),
    );
  }

  /** Charges a call that succeeded. */
  count(method: string, channel: string, now: number): void {
    calls(this.#methods, method).push(now);
    if (method !== "chat.postMessage") return;
    calls(this.#channels, channel).push(now);
    this.#posts.push(now);
  }
}

function calls(windows: Map<string, number[]>, key: string): number[] {
  const times = windows.get(key) ?? [];
  windows.set(key, times);
  return times;
}

/** Milliseconds until a sliding window of call times has room at `now`, after dropping the calls that left it. */
function windowWait(times: number[], { max, windowMs }: SlackMethodLimit, now: number): number {
  while (times.length > 0 && (times[0] ?? now) <= now - windowMs) times.shift();
  return times.length < max ? 0 : (times.at(-max) ?? now) + windowMs - now;
}

/** The Retry-After of a 429 for a wait: whole seconds, at least 1, so that a client waiting that long gets through. */
export const retryAfterSeconds = (waitMs: number) => Math.max(1, Math.ceil(waitMs / 1000));
