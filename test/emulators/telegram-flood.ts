/** The flood limits the emulator enforces; Telegram does not publish exact ones, these are its documented guidance. */
export interface EmulatorLimits {
  /** Private chat: token bucket, calls per second and burst. Default { perSecond: 1, burst: 4 }. */
  privateChat: { perSecond: number; burst: number };
  /** Group/supergroup chat (chat_id < 0): at most `max` calls in any sliding window of `windowMs`. Default { max: 20, windowMs: 60_000 }. */
  group: { max: number; windowMs: number };
  /** Whole bot: at most `max` calls in any sliding window of `windowMs`. Default { max: 30, windowMs: 1_000 }. */
  bot: { max: number; windowMs: number };
  /** Max visible text length after entity parsing. Default 4096. */
  maxTextLength: number;
  /**
   * sendMessageDraft's own flood control, apart from messages' (drafts are typing actions, not messages; see the
   * bridge's `telegramDraftLimits`): per private chat a token bucket, for the bot a sliding window. Default
   * { perChat: { perSecond: 2, burst: 3 }, bot: { max: 300, windowMs: 1_000 } }, the bridge's own defaults.
   */
  drafts: { perChat: { perSecond: number; burst: number }; bot: { max: number; windowMs: number } };
}

/** Telegram's flood control as {@link EmulatorLimits} describes it, on performance.now() times. */
export class FloodControl {
  readonly #limits: EmulatorLimits;
  readonly #buckets = new Map<number, { tokens: number; at: number }>();
  readonly #groups = new Map<number, number[]>();
  readonly #bot: number[] = [];

  constructor(limits: EmulatorLimits) {
    this.#limits = limits;
  }

  /** Milliseconds until a call to the chat fits every limit; 0 when it fits now. */
  waitMs(chatId: number, now: number): number {
    const { perSecond } = this.#limits.privateChat;
    const chatWait =
      chatId > 0
        ? (Math.max(0, 1 - this.#bucket(chatId, now).tokens) / perSecond) * 1000
        : windowWait(this.#group(chatId), this.#limits.group, now);
    return Math.max(chatWait, windowWait(this.#bot, this.#limits.bot, now));
  }

  /** Charges an executed call. */
  count(chatId: number, now: number): void {
    this.#bot.push(now);
    if (chatId > 0) this.#bucket(chatId, now).tokens -= 1;
    else this.#group(chatId).push(now);
  }

  /** The chat's bucket, refilled up to now. */
  #bucket(chatId: number, now: number): { tokens: number; at: number } {
    const { perSecond, burst } = this.#limits.privateChat;
    const bucket = this.#buckets.get(chatId) ?? { tokens: burst, at: now };
    bucket.tokens = Math.min(burst, bucket.tokens + ((now - bucket.at) / 1000) * perSecond);
    bucket.at = now;
    this.#buckets.set(chatId, bucket);
    return bucket;
  }

  #group(chatId: number): number[] {
    const calls = this.#groups.get(chatId) ?? [];
    this.#groups.set(chatId, calls);
    return calls;
  }
}

/** Milliseconds until a sliding window of call times has room at `now`, after dropping the calls that left it. */
function windowWait(calls: number[], { max, windowMs }: { max: number; windowMs: number }, now: number): number {
  while (calls.length > 0 && (calls[0] ?? now) <= now - windowMs) calls.shift();
  return calls.length < max ? 0 : (calls.at(-max) ?? now) + windowMs - now;
}

/** The retry_after of a 429 for a wait: whole seconds, at least 1, as Telegram answers. */
export const retryAfterSeconds = (waitMs: number) => Math.max(1, Math.ceil(waitMs / 1000));
