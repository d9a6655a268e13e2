import { vi } from "vitest";
import {
  type Budget,
  type Channel,
  type ChannelCapabilities,
  ChannelError,
  type ChannelErrorKind,
  type ChannelLimits,
  type OutgoingText,
  type RateBudget,
  type SentMessage,
  type TextFormat,
} from "../../../src/bridge/channel.js";
import type { ReplyTarget } from "../../../src/bridge/inbound.js";
import type { AnswerEvent } from "../../../src/client/answer-events.js";
import type { AlertTemplate } from "../../../src/features/alerts/alert-template.js";

/** Telegram's documented limits, as the Telegram adapter is expected to declare them. */
export const TELEGRAM_LIMITS: ChannelLimits = {
  perChat: { perSecond: 1, burst: 3 },
  perGroup: { perSecond: 20 / 60, burst: 3 },
  perBot: { perSecond: 30, burst: 30 },
  minUpdateIntervalMs: { private: 1_100, group: 3_100 },
};

export type Method = "send" | "edit" | "draft" | "typing";

/** One call the channel received, with what became of it. */
export interface FakeCall {
  method: Method;
  at: number;
  chatId: string;
  text?: string;
  format?: TextFormat;
  messageId?: string;
  draftId?: number;
  quickReplies?: string[] | undefined;
  /** The text was an intermediate state of the answer (OutgoingText.partial). */
  partial?: true;
  outcome: "ok" | ChannelErrorKind;
}

export interface FakeChannelOptions {
  /** What the channel declares (and the pacer paces by). */
  limits?: ChannelLimits;
  /** What the fake enforces with `rate_limited` answers: the declared limits by default, `false` for none. */
  enforce?: ChannelLimits | false;
  capabilities?: Partial<ChannelCapabilities>;
  /** Markdown the platform refuses with a `format` error. */
  refuseMarkdown?: (text: string, method: Method) => boolean;
  /** Time each call takes. */
  latencyMs?: number;
  /** The channel's length of rendered markdown ({@link Channel.measure}); none by default. */
  measure?: (markdown: string) => number;
  /** The channel has an alert template: what it is sent with goes into {@link FakeChannel.templates}. */
  /** An approved alert template, in this language (`true`: en_US). */
  alertTemplate?: boolean | string;
}

interface Fault {
  matches: (call: FakeCall) => boolean;
  error: () => ChannelError;
  remaining: number;
}

/** A sent message as the user sees it at the end. */
export interface FakeMessage {
  id: string;
  chatId: string;
  text: string;
  format: TextFormat;
  quickReplies?: string[] | undefined;
  /** Set while the answer was still growing at the last send or edit (the last state of a message has none). */
  partial?: boolean | undefined;
}

/**
 * A {@link Channel} for tests: records every call with its time, enforces its own token buckets (answering
 * `rate_limited` with a retry time, as Telegram answers 429), refuses markdown on demand, answers
 * `not_modified` to identical edits, and fails calls on demand.
 */
export class FakeChannel implements Channel {
  readonly name = "fake";
  readonly botId = "bot";
  readonly limits: ChannelLimits;
  readonly calls: FakeCall[] = [];
  readonly messages: FakeMessage[] = [];
  /** The draft currently shown per chat (cleared by a sent message, as Telegram clients do). */
  readonly drafts = new Map<string, { draftId: number; text: string }>();
  private readonly faults: Fault[] = [];
  private readonly buckets = new Map<string, FakeLimit>();
  private readonly bot: FakeLimit | undefined;
  /** Drafts' own limits, where the declared limits pace drafts apart from messages. */
  private readonly draftBuckets = new Map<string, FakeLimit>();
  private readonly draftBot: FakeLimit | undefined;
  private nextId = 1;

  readonly measure?: (markdown: string) => number;
  readonly alertTemplate?: AlertTemplate;
  /** The alert templates sent, with their variables. */
  readonly templates: { chatId: string; parameters: readonly string[] }[] = [];

  constructor(private readonly options: FakeChannelOptions = {}) {
    this.limits = options.limits ?? TELEGRAM_LIMITS;
    if (options.measure) this.measure = options.measure;
    if (options.alertTemplate) {
      this.alertTemplate = {
        language: options.alertTemplate === true ? "en_US" : options.alertTemplate,
        send: async (target, parameters) => {
          this.templates.push({ chatId: target.chatId, parameters });
          return { id: String(this.nextId++) };
        },
      };
    }
    const enforce = options.enforce === undefined ? this.limits : options.enforce;
    this.bot = enforce ? fakeLimit(enforce.perBot) : undefined;
    const drafts = enforce ? enforce.drafts : undefined;
    this.draftBot = drafts ? fakeLimit(drafts.perBot) : undefined;
  }

  capabilities(target: ReplyTarget): ChannelCapabilities {
    const caps = {
      canEdit: true,
      nativeDraft: false,
      maxTextLength: 4096,
      quickReplies: true,
      ...this.options.capabilities,
    };
    return { ...caps, nativeDraft: caps.nativeDraft && !target.isGroup };
  }

  /** Fails the next `times` calls that match with `error`. */
  fail(matches: (call: FakeCall) => boolean, error: () => ChannelError, times = 1): void {
    this.faults.push({ matches, error, remaining: times });
  }

  get rateLimited(): number {
    return this.calls.filter((call) => call.outcome === "rate_limited").length;
  }

  callsIn(chatId: string, method?: Method): FakeCall[] {
    return this.calls.filter((call) => call.chatId === chatId && (method === undefined || call.method === method));
  }

  messagesIn(chatId: string): FakeMessage[] {
    return this.messages.filter((message) => message.chatId === chatId);
  }

  async send(target: ReplyTarget, text: OutgoingText): Promise<SentMessage> {
    const call = this.begin("send", target, text);
    await this.latency();
    const { text: body, format, quickReplies, partial } = text;
    const message: FakeMessage = {
      id: String(this.nextId++),
      chatId: target.chatId,
      text: body,
      format,
      quickReplies,
      partial,
    };
    this.messages.push(message);
    this.drafts.delete(target.chatId);
    call.messageId = message.id;
    return { id: message.id };
  }

  async edit(target: ReplyTarget, sent: SentMessage, text: OutgoingText): Promise<void> {
    const message = this.messages.find((m) => m.id === sent.id && m.chatId === target.chatId);
    const same =
      message?.text === text.text &&
      message.format === text.format &&
      JSON.stringify(message.quickReplies ?? []) === JSON.stringify(text.quickReplies ?? []);
    const call = this.begin("edit", target, text, () => {
      if (!message) return new ChannelError("rejected", "message to edit not found");
      return same ? new ChannelError("not_modified", "message is not modified") : undefined;
    });
    call.messageId = sent.id;
    await this.latency();
    const { quickReplies, partial } = text;
    Object.assign(message as FakeMessage, { text: text.text, format: text.format, quickReplies, partial });
  }

  async draft(target: ReplyTarget, draftId: number, text: OutgoingText): Promise<void> {
    const call = this.begin("draft", target, text);
    call.draftId = draftId;
    await this.latency();
    this.drafts.set(target.chatId, { draftId, text: text.text });
  }

  async typing(target: ReplyTarget): Promise<void> {
    this.begin("typing", target);
    await this.latency();
  }

  /** Records the call and throws what the platform would answer: rate limit, injected fault, format, state. */
  private begin(method: Method, target: ReplyTarget, text?: OutgoingText, state?: () => ChannelError | undefined) {
    const call: FakeCall = { method, at: Date.now(), chatId: target.chatId, outcome: "ok" };
    if (text) {
      Object.assign(call, { text: text.text, format: text.format, quickReplies: text.quickReplies });
      if (text.partial) call.partial = true;
    }
    this.calls.push(call);
    const error =
      this.rateCheck(target, call.at, method) ?? this.fault(call) ?? this.formatCheck(method, text) ?? state?.();
    if (error) {
      call.outcome = error.kind;
      throw error;
    }
    return call;
  }

  private rateCheck(target: ReplyTarget, now: number, method: Method): ChannelError | undefined {
    const enforce = this.options.enforce === undefined ? this.limits : this.options.enforce;
    if (!enforce || !this.bot) return undefined;
    const drafts = method === "draft" && enforce.drafts && this.draftBot ? enforce.drafts : undefined;
    const buckets = drafts ? this.draftBuckets : this.buckets;
    const bot = drafts ? (this.draftBot as FakeLimit) : this.bot;
    let chat = buckets.get(target.chatId);
    if (!chat) {
      chat = fakeLimit(drafts ? drafts.perChat : target.isGroup ? enforce.perGroup : enforce.perChat);
      buckets.set(target.chatId, chat);
    }
    const wait = Math.max(chat.waitMs(now), bot.waitMs(now));
    if (wait > 0) return new ChannelError("rate_limited", "Too Many Requests", Math.ceil(wait / 1000) * 1000);
    chat.take(now);
    bot.take(now);
    return undefined;
  }

  private fault(call: FakeCall): ChannelError | undefined {
    const fault = this.faults.find((f) => f.remaining > 0 && f.matches(call));
    if (!fault) return undefined;
    fault.remaining -= 1;
    return fault.error();
  }

  private formatCheck(method: Method, text: OutgoingText | undefined): ChannelError | undefined {
    if (text?.format !== "markdown" || !this.options.refuseMarkdown?.(text.text, method)) return undefined;
    return new ChannelError("format", "can't parse entities");
  }

  private async latency(): Promise<void> {
    const ms = this.options.latencyMs ?? 0;
    if (ms > 0) await new Promise((resolve) => setTimeout(resolve, ms));
    else await Promise.resolve();
  }
}

/** The platform's own limits, written independently of the pacer's budgets so the tests check one against the other. */
interface FakeLimit {
  waitMs(now: number): number;
  take(now: number): void;
}

function fakeLimit(budget: Budget): FakeLimit {
  return "max" in budget ? new FakeWindow(budget.max, budget.windowMs) : new FakeBucket(budget);
}

/** At most `max` calls in any `windowMs`, as the platform counts them: a call at t counts until t + windowMs. */
class FakeWindow implements FakeLimit {
  private readonly times: number[] = [];

  constructor(
    private readonly max: number,
    private readonly windowMs: number,
  ) {}

  waitMs(now: number): number {
    const recent = this.times.filter((at) => at > now - this.windowMs).sort((a, b) => a - b);
    return recent.length < this.max ? 0 : (recent[recent.length - this.max] ?? now) + this.windowMs - now;
  }

  take(now: number): void {
    this.times.push(now);
    if (this.times.length > 4 * this.max) this.times.splice(0, this.times.length - this.max);
  }
}

class FakeBucket implements FakeLimit {
  private tokens: number;
  private at = Number.NaN;

  constructor(private readonly budget: RateBudget) {
    this.tokens = budget.burst;
  }

  waitMs(now: number): number {
    this.refill(now);
    // A hair of tolerance for floating-point sums computed in a different order.
    return this.tokens >= 1 - 1e-6 ? 0 : ((1 - this.tokens) / this.budget.perSecond) * 1000;
  }

  take(now: number): void {
    this.refill(now);
    this.tokens -= 1;
  }

  private refill(now: number): void {
    if (!Number.isNaN(this.at)) {
      this.tokens = Math.min(this.budget.burst, this.tokens + ((now - this.at) * this.budget.perSecond) / 1000);
    }
    this.at = now;
  }
}

/** A private or group chat to answer in. */
export function chat(id: string | number, isGroup = false): ReplyTarget {
  return { chatId: String(id), isGroup };
}

/** An answer as the chatbot client yields it: `fragments` as deltas `delayMs` apart, then the final. */
export async function* answer(
  fragments: string[],
  options: { delayMs?: number; failAfter?: number; error?: Error } = {},
): AsyncGenerator<AnswerEvent> {
  for (const [k, content] of fragments.entries()) {
    if (options.failAfter === k) throw options.error ?? new Error("upstream failed");
    await new Promise((resolve) => setTimeout(resolve, options.delayMs ?? 100));
    yield { type: "delta", content };
  }
  if (options.failAfter === fragments.length) throw options.error ?? new Error("upstream failed");
  yield {
    type: "final",
    questionId: 1,
    answerId: 2,
    answer: fragments.join(""),
    totalToken: 10,
    noAnswer: undefined,
  };
}

/** Splits `text` into fragments of about `size` characters, as a model streams tokens. */
export function fragmentsOf(text: string, size = 20): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

/** Advances fake timers until `promise` settles (or `limitMs` of fake time passed) and returns it. */
export async function drive<T>(promise: Promise<T>, stepMs = 50, limitMs = 30 * 60_000): Promise<T> {
  let settled = false;
  promise.then(
    () => {
      settled = true;
    },
    () => {
      settled = true;
    },
  );
  for (let waited = 0; !settled && waited < limitMs; waited += stepMs) await vi.advanceTimersByTimeAsync(stepMs);
  return promise;
}

/** True when every code fence in `text` is closed. */
export function fencesBalanced(text: string): boolean {
  return (text.match(/^ {0,3}(`{3,}|~{3,})/gm) ?? []).length % 2 === 0;
}
