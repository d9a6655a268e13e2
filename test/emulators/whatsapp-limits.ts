/** The rate limits the emulator enforces on sent messages; read receipts are not charged. */
export interface WhatsAppLimits {
  /**
   * Messages to one recipient: at most `max` in any `windowMs` (WhatsApp's pair rate limit; error 131056). Default
   * { max: 10, windowMs: 60_000 }, a guess: the research notes give no figure for this limit.
   */
  perRecipient: { max: number; windowMs: number };
  /** The business number's throughput: default { max: 80, windowMs: 1_000 } (error 130429). */
  perNumber: { max: number; windowMs: number };
}

export const DEFAULT_WHATSAPP_LIMITS: WhatsAppLimits = {
  // Meta's pair rate limit is not in our research notes (platforms.md §3), so this is no documented figure: a
  // permissive guess that a bot answering one user stays under, while a loop spamming one user hits it.
  perRecipient: { max: 10, windowMs: 60_000 },
  perNumber: { max: 80, windowMs: 1_000 },
};

/** The pair (131056) and business number (130429) rate limits of one phone number, on performance.now() times. */
export class WhatsAppRateLimits {
  readonly #limits: WhatsAppLimits;
  readonly #recipients = new Map<string, number[]>();
  readonly #number: number[] = [];

  constructor(limits: WhatsAppLimits) {
    this.#limits = limits;
  }

  /** The error code of the limit a message to `waId` at `now` breaks, or undefined when it fits both. */
  refusal(waId: string, now: number): 131056 | 130429 | undefined {
    if (!fits(this.#recipient(waId), this.#limits.perRecipient, now)) return 131056;
    if (!fits(this.#number, this.#limits.perNumber, now)) return 130429;
    return undefined;
  }

  /** Charges a message that was sent. */
  count(waId: string, now: number): void {
    this.#recipient(waId).push(now);
    this.#number.push(now);
  }

  #recipient(waId: string): number[] {
    const times = this.#recipients.get(waId) ?? [];
    this.#recipients.set(waId, times);
    return times;
  }
}

/** Whether a sliding window of send times has room at `now`, after dropping the sends that left it. */
function fits(times: number[], { max, windowMs }: { max: number; windowMs: number }, now: number): boolean {
  while (times.length > 0 && (times[0] ?? now) <= now - windowMs) times.shift();
  return times.length < max;
}
