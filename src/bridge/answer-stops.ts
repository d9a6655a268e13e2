import type { SignalSubscription, Signals } from "./store/signals.js";

/** The signal topic of the user's stops. */
const STOP_TOPIC = "stop";

/** The answer under way in a conversation, as registered by the process streaming it. */
export interface AnswerUnderWay {
  /** Aborts when the user stops this answer. */
  readonly signal: AbortSignal;
  /** The answer is over: a stop pressed from now on is not for it. */
  end(): void;
}

/** A stop as it travels between processes. */
interface Stop {
  conversation: string;
  /** When the user pressed stop, epoch milliseconds (the clock of the process that received the press). */
  pressedAt: number;
}

/**
 * The user's stops of the answers this process streams, by conversation. A press may reach any instance (the one
 * that received the platform's event), while the answer streams in the one holding the conversation's lease: the
 * press is applied here and broadcast on the store's signals, and every answering process applies what it hears.
 *
 * A stop is for the answer under way when it was pressed: it stops an answer asked at or before the press, and is
 * ignored by one asked after it, so a stop delivered late never cuts the conversation's next answer. The two times
 * come from the clocks of two processes, which are assumed to agree (NTP) far closer than the time an answer takes
 * to show its first text — the earliest a user can press stop.
 */
export class AnswerStops {
  readonly #signals: Signals;
  readonly #underWay = new Map<string, { controller: AbortController; askedAt: number }>();

  constructor(signals: Signals) {
    this.#signals = signals;
  }

  /** Registers the answer now asked in `conversation`, replacing any earlier one's registration. */
  begin(conversation: string): AnswerUnderWay {
    const entry = { controller: new AbortController(), askedAt: Date.now() };
    this.#underWay.set(conversation, entry);
    return {
      signal: entry.controller.signal,
      end: () => {
        if (this.#underWay.get(conversation) === entry) this.#underWay.delete(conversation);
      },
    };
  }

  /**
   * The user pressed stop in `conversation` at `pressedAt`: stops the answer this process streams there, if any,
   * and resolves once the other processes on the store were told (rejects when the store could not take it).
   */
  press(conversation: string, pressedAt: number): Promise<void> {
    this.#apply({ conversation, pressedAt });
    return this.#signals.publish(STOP_TOPIC, JSON.stringify({ conversation, pressedAt } satisfies Stop));
  }

  /** Applies the stops pressed anywhere on the store (this process's own presses are applied once more: harmless). */
  listen(): SignalSubscription {
    return this.#signals.subscribe(STOP_TOPIC, (message) => {
      const stop = readStop(message);
      if (stop) this.#apply(stop);
    });
  }

  #apply({ conversation, pressedAt }: Stop): void {
    const entry = this.#underWay.get(conversation);
    if (entry && entry.askedAt <= pressedAt) entry.controller.abort();
  }
}

/** A stop from its signal; undefined for anything else. */
function readStop(message: string): Stop | undefined {
  try {
    const stop = JSON.parse(message) as Partial<Stop> | null;
    if (typeof stop?.conversation === "string" && typeof stop.pressedAt === "number") {
      return { conversation: stop.conversation, pressedAt: stop.pressedAt };
    }
  } catch {
    // Not JSON: not a stop.
  }
  return undefined;
}
