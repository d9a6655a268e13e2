import type { AnswerEvent } from "../../client/answer-events.js";
import type { Channel, ChannelCapabilities } from "../channel.js";
import type { ReplyTarget } from "../inbound.js";
import { ABORTED, AbortableReader, closeQuietly, Latch, nap } from "./event-control.js";
import type { Pacer } from "./pacer.js";
import { safePartialMarkdown, salvagePartialMarkdown } from "./partial-markdown.js";
import {
  DraftSurface,
  EditSurface,
  FinalOnlySurface,
  type OpenMessage,
  type ReplySurface,
  StreamSurface,
  type SurfaceContext,
  SurfaceUnavailable,
} from "./reply-surface.js";
import { finishedBlocksEnd, splitMarkdown, splitOnce } from "./split.js";

export interface StreamReplyOptions {
  channel: Channel;
  target: ReplyTarget;
  /** The channel's pacer, shared by every answer of that channel. */
  pacer: Pacer;
  events: AsyncIterable<AnswerEvent>;
  /** Stops the answer early: the text received so far is delivered and the call resolves. */
  signal?: AbortSignal;
  /** Suggested questions, offered with the last message of a complete answer. */
  quickReplies?: string[];
  /** Called once when the first text becomes visible, with the milliseconds since the call. */
  onFirstText?: (elapsedMs: number) => void;
  now?: () => number;
  /** The channel's own length of a text (after rendering); `text.length` by default. */
  measure?: (text: string) => number;
  /** Units kept free below the channel's message limit (default 0). */
  margin?: number;
  /** How often the typing indicator is renewed until text shows (default 4 s; platforms clear it after ~5 s). */
  typingIntervalMs?: number;
  /** Markdown shown before the answer, in its first message (the greeting at first contact). */
  preface?: string | undefined;
  /**
   * Where an earlier holder left this answer (from the ledger): its finished messages are not sent again, and its
   * open message is finished in place — when the answer now streaming starts with the text they cover; otherwise
   * the new answer is delivered whole, starting in the open message.
   */
  resume?: AnswerProgress | undefined;
  /**
   * A name for this answer that every holder gives it (conversation, job, question): native drafts derive their ids
   * from it, so a holder resuming after a crash replaces the draft on screen rather than opening a second one.
   */
  answerId?: string | undefined;
  /** Told each time a message of the answer opens or is finished, for the ledger. */
  onProgress?: ((progress: AnswerProgress) => void) | undefined;
  /** Told when a resumed answer turned out to differ from what the earlier holder had delivered. */
  onDiverged?: (() => void) | undefined;
  /**
   * Aborts when this process may no longer write to the chat (lease lost, handover at shutdown): no further call
   * is made, nothing more is delivered, and the call rejects with the signal's reason.
   */
  fence?: AbortSignal | undefined;
}

/** How far an answer got on the platform: what a holder resuming it needs. */
export interface AnswerProgress {
  /** Messages finished (persisted) so far. */
  messages: number;
  /** Characters of the answer (preface included) that the finished messages cover… */
  offset: number;
  /** …which are these. */
  covered: string;
  /** Markup reopened at the top of the next message (a code fence, emphasis) after the last cut. */
  carry: string;
  /** The message growing now, if one is shown. */
  open?: OpenMessage | undefined;
}

export interface StreamReplyResult {
  /** The answer as delivered: the whole answer, or after a failure or stop the text that had arrived. */
  delivered: string;
  /** Messages the answer occupies in the chat. */
  messages: number;
  /** Intermediate states that landed (first send, edits or drafts of partial text). */
  updates: number;
  /** Milliseconds from the call until the first text was visible. */
  firstVisibleMs?: number;
}

/**
 * Streams an answer into a chat as fast as the channel allows, and guarantees the end. With native streams the
 * first text opens a stream and only text that will not change is appended; with native drafts the text streams
 * in a draft and each finished message is persisted with a send; with edits the first text is sent at once and
 * then edited in place; otherwise only finished messages are sent. A native stream or draft the platform refuses
 * falls back to edits. Intermediate text is made safe
 * with {@link safePartialMarkdown} and paced as skippable updates; text past the message limit is finished in
 * the current message and continues in a new one. Finished messages are paced as finals: never skipped, retried
 * as plain text on a format refusal, waiting out any rate limit. When `events` throws, the text received so far
 * is delivered and the error rethrown; when `signal` aborts, the same happens and the call resolves.
 */
export function streamReply(options: StreamReplyOptions): Promise<StreamReplyResult> {
  return new ReplyStream(options).run();
}

const TYPING_INTERVAL_MS = 4_000;
/** Next try after the pacer skipped the typing indicator: about when a per-chat budget of 1/s has room again. */
const TYPING_RETRY_MS = 300;
/** Room for the markup the partial view adds (a closing fence, emphasis, code ticks) when deciding to roll over. */
const CLOSING_ALLOWANCE = 16;

type Outcome = { kind: "final"; answer: string } | { kind: "aborted" } | { kind: "failed"; error: unknown };

class ReplyStream {
  private readonly ctx: SurfaceContext;
  private readonly caps: ChannelCapabilities;
  private readonly now: () => number;
  private readonly measure: (text: string) => number;
  private readonly margin: number;
  /** Least time between two updates of an edited (or streamed) message. */
  private readonly editIntervalMs: number;
  private readonly startedAt: number;
  private surface: ReplySurface;
  /** Everything the deltas carried. */
  private streamed = "";
  /** How much of `streamed` is already in finished messages. */
  private offset = 0;
  /** Markup reopened at the top of the current message (a code fence, emphasis) after a rollover. */
  private carry = "";
  private messages = 0;
  private updates = 0;
  private firstVisibleAt: number | undefined;
  private lastShownAt = Number.NEGATIVE_INFINITY;
  /** Raised when the events end: the updater stops. */
  private readonly ending = new Latch();
  /** Raised once text is visible or the reply is over: the typing indicator stops. */
  private readonly typingDone = new Latch();
  private changed = false;
  private wake: (() => void) | undefined;
  /** The view as it was when the last update landed (about: it is read again right after). */
  private shownView: string | undefined;
  /** The retry of a skipped update, when one is armed. */
  private retryTimer: ReturnType<typeof setTimeout> | undefined;
  /** The answer's message growing now, as the ledger knows it. */
  private open: OpenMessage | undefined;
  /** A resumed answer not yet known to match what the earlier holder delivered: nothing is shown meanwhile. */
  private pendingResume: AnswerProgress | undefined;

  constructor(private readonly options: StreamReplyOptions) {
    const { channel, target, pacer, resume } = options;
    this.ctx = {
      channel,
      target,
      pacer,
      stream: {},
      fence: options.fence,
      onOpen: (open) => {
        this.open = open;
        if (open) this.reportProgress();
      },
    };
    this.streamed = options.preface ?? "";
    this.pendingResume = resume;
    this.messages = resume?.messages ?? 0;
    this.open = resume?.open;
    this.caps = channel.capabilities(target);
    this.now = options.now ?? Date.now;
    this.measure = options.measure ?? ((text) => text.length);
    this.margin = options.margin ?? 0;
    this.startedAt = this.now();
    const intervals = channel.limits.minUpdateIntervalMs;
    this.editIntervalMs = target.isGroup ? intervals.group : intervals.private;
    const open = resume?.open;
    const sent = open && open.kind !== "draft" ? { id: open.id } : undefined;
    this.surface =
      this.caps.nativeStream && channel.stream
        ? new StreamSurface(this.ctx, () => this.current(), open?.kind === "stream" ? sent : undefined)
        : this.caps.nativeDraft
          ? new DraftSurface(
              this.ctx,
              open?.kind === "draft" ? Number(open.id) : undefined,
              options.answerId,
              this.messages,
            )
          : this.caps.canEdit
            ? new EditSurface(this.ctx, sent)
            : new FinalOnlySurface(this.ctx);
  }

  async run(): Promise<StreamReplyResult> {
    // A preface (the greeting) is text already: it shows at once, before the chatbot's first fragment, and no
    // typing indicator is needed (nor spends the chat's budget before it).
    const prefaced = this.streamed !== "";
    if (prefaced) this.notify();
    const typing = prefaced ? Promise.resolve() : this.keepTyping();
    const updating =
      this.surface.kind !== "final" ? this.streamUpdates() : this.caps.blocks ? this.streamBlocks() : Promise.resolve();
    let outcome: Outcome;
    try {
      outcome = await this.consume();
    } catch (error) {
      outcome = { kind: "failed", error };
    }
    this.ending.raise();
    clearTimeout(this.retryTimer);
    this.notify();
    this.ctx.pacer.drop(this.ctx.target, this.ctx.stream);
    const fence = this.options.fence;
    if (fence?.aborted) {
      // Another holder finishes this answer from the ledger: nothing more is written here.
      this.typingDone.raise();
      await Promise.allSettled([updating, typing]);
      throw fence.reason;
    }
    const complete = outcome.kind === "final";
    let delivered = this.streamed;
    let deliveryError: unknown;
    try {
      await updating; // a rollover in flight lands (and moves `offset`) before the rest of the answer
      if (outcome.kind === "final") {
        delivered = this.reconcile(outcome.answer);
        this.streamed = delivered;
      }
      this.settleResume(true);
      await this.deliverRest(delivered, complete);
    } catch (error) {
      deliveryError = error ?? new Error("delivery failed");
    } finally {
      this.typingDone.raise();
      await typing;
    }
    if (fence?.aborted) throw fence.reason;
    // The upstream failure wins: the caller apologises, and meets any delivery problem again doing so.
    if (outcome.kind === "failed") throw outcome.error;
    if (deliveryError !== undefined) throw deliveryError;
    const result: StreamReplyResult = { delivered, messages: this.messages, updates: this.updates };
    if (this.firstVisibleAt !== undefined) result.firstVisibleMs = this.firstVisibleAt - this.startedAt;
    return result;
  }

  /** Reads events until the final, a failure or the stop signal; deltas wake the updater. */
  private async consume(): Promise<Outcome> {
    const { events, fence, signal } = this.options;
    if (signal?.aborted || fence?.aborted) return { kind: "aborted" };
    const iterator = events[Symbol.asyncIterator]();
    const reader = new AbortableReader(iterator, [signal, fence]);
    try {
      for (;;) {
        const next = await reader.next();
        if (next === ABORTED) {
          closeQuietly(iterator); // lets the source cancel the upstream generation
          return { kind: "aborted" };
        }
        if (next.done) return { kind: "failed", error: new Error("the answer stream ended without a final event") };
        const event = next.value;
        if (event.type === "final") {
          closeQuietly(iterator);
          // The final answer is the chatbot's; the preface is the bridge's own, shown before it.
          return { kind: "final", answer: event.answer === "" ? "" : (this.options.preface ?? "") + event.answer };
        }
        this.streamed += event.content;
        this.notify();
      }
    } finally {
      reader.close();
    }
  }

  /** The final answer, unless it contradicts text already finished in earlier messages (then the deltas). */
  private reconcile(answer: string): string {
    if (answer === "") return this.streamed;
    return answer.startsWith(this.streamed.slice(0, this.offset)) ? answer : this.streamed;
  }

  /**
   * Persists what is not yet in a finished message, in as many messages as it takes. A complete answer is cut one
   * message at a time, each recorded as progress, so a holder taking over after a crash sends none of them again.
   */
  private async deliverRest(text: string, complete: boolean): Promise<void> {
    const quickReplies = complete && this.caps.quickReplies ? this.options.quickReplies : undefined;
    if (!complete) {
      const remainder = this.carry + salvagePartialMarkdown(text.slice(this.offset));
      if (remainder.slice(this.carry.length).trim() === "") return;
      for (const piece of splitMarkdown(remainder, this.splitOptions(0))) {
        await this.surface.persist(piece);
        this.messages += 1;
        this.visible();
      }
      return;
    }
    this.streamed = text;
    for (;;) {
      const current = this.carry + text.slice(this.offset);
      if (current.slice(this.carry.length).trim() === "") return;
      const cut = splitOnce(current, this.splitOptions(0));
      await this.surface.persist(cut ? cut.head : current, cut ? undefined : quickReplies);
      this.messages += 1;
      this.visible();
      if (cut) {
        this.offset += cut.restStart - this.carry.length;
        this.carry = cut.reopen;
      } else {
        this.offset = text.length;
        this.carry = "";
      }
      this.reportProgress();
      if (!cut) return;
    }
  }

  /** Least time between two updates on the current surface: drafts have their own pace where the channel says so. */
  private get updateIntervalMs(): number {
    const drafts = this.options.channel.limits.drafts;
    return this.surface.kind === "draft" && drafts ? drafts.minIntervalMs : this.editIntervalMs;
  }

  /** Shows the latest text at most once per update interval, rolling over to a new message when full. */
  private async streamUpdates(): Promise<void> {
    while (await this.nextChange()) {
      const wait = this.lastShownAt + this.updateIntervalMs - this.now();
      if (wait > 0 && !(await nap(wait, this.ending))) return;
      await this.rolloverWhileFull();
      if (this.ending.raised) return;
      try {
        if (await this.surface.show(() => this.view())) {
          this.updates += 1;
          this.lastShownAt = this.now();
          this.shownView = this.view();
          this.visible();
        } else if (this.view() !== this.shownView) this.retrySoon();
      } catch (error) {
        if (!(error instanceof SurfaceUnavailable)) throw error;
        this.surface = this.caps.canEdit ? new EditSurface(this.ctx) : new FinalOnlySurface(this.ctx);
        if (this.surface.kind === "final") return;
        this.notify(); // show the text in the new surface right away
      }
    }
  }

  /**
   * Block streaming where messages cannot be edited: each time the streamed text holds finished paragraphs (at
   * least the channel's minimum), they go out as messages of their own, split further only past the length limit;
   * what remains is delivered with the rest of the answer.
   */
  private async streamBlocks(): Promise<void> {
    const minLength = this.caps.blocks?.minLength ?? 0;
    while (await this.nextChange()) {
      const current = this.current();
      const end = finishedBlocksEnd(current, Math.max(minLength, this.carry.length + 1));
      if (end === undefined) continue;
      for (const piece of splitMarkdown(current.slice(0, end).trimEnd(), this.splitOptions(0))) {
        await this.surface.persist(piece);
        this.messages += 1;
        this.visible();
      }
      this.offset += end - this.carry.length;
      this.carry = "";
      while (this.streamed[this.offset] === "\n") this.offset += 1;
      this.reportProgress();
    }
  }

  /** Finishes the current message with the first piece while the streamed text no longer fits in it. */
  private async rolloverWhileFull(): Promise<void> {
    const limit = this.caps.maxTextLength - this.margin;
    for (;;) {
      const current = this.current();
      if (this.measure(safePartialMarkdown(current)) <= limit) return;
      const cut = splitOnce(current, { ...this.splitOptions(CLOSING_ALLOWANCE), partial: true });
      if (!cut) return;
      await this.surface.persist(cut.head);
      this.messages += 1;
      this.visible();
      this.offset += cut.restStart - this.carry.length;
      this.carry = cut.reopen;
      this.lastShownAt = this.now();
      this.shownView = undefined;
      this.reportProgress();
    }
  }

  /** The current message's partial text as it may be shown, or `undefined` when nothing is showable yet. */
  private view(): string | undefined {
    let text = safePartialMarkdown(this.current());
    // Text that arrived after the rollover check: show what fits, the next round rolls over.
    text = splitOnce(text, this.splitOptions(0))?.head ?? text;
    return text === "" ? undefined : text;
  }

  private current(): string {
    this.settleResume(false);
    if (this.pendingResume) return "";
    return this.carry + this.streamed.slice(this.offset);
  }

  /**
   * Decides, as soon as the text allows, whether the answer streaming now continues what an earlier holder delivered
   * (it starts with the text the finished messages cover: carry on after them) or differs (a chatbot asked again
   * answers otherwise: deliver it whole, starting in the open message). `final`: the text is complete.
   */
  private settleResume(final: boolean): void {
    const resume = this.pendingResume;
    if (!resume) return;
    const enough = this.streamed.length >= resume.covered.length;
    if (!enough && resume.covered.startsWith(this.streamed) && !final) return;
    this.pendingResume = undefined;
    if (enough && this.streamed.startsWith(resume.covered)) {
      this.offset = resume.offset;
      this.carry = resume.carry;
      return;
    }
    this.offset = 0;
    this.carry = "";
    this.options.onDiverged?.();
  }

  /** Tells the caller how far the answer got on the platform. */
  private reportProgress(): void {
    try {
      this.options.onProgress?.({
        messages: this.messages,
        offset: this.offset,
        covered: this.streamed.slice(0, this.offset),
        carry: this.carry,
        open: this.open,
      });
    } catch {
      // Recording progress is the caller's business; a failure there must not cost the user the answer.
    }
  }

  private splitOptions(extraMargin: number) {
    const { maxTextLength } = this.caps;
    return {
      maxLength: maxTextLength,
      measure: this.measure,
      margin: this.margin + extraMargin,
      minCut: this.carry.length,
    };
  }

  /** Renews the typing indicator until text is visible; skipped by the pacer whenever the budget is tight. */
  private async keepTyping(): Promise<void> {
    const { channel, target, pacer } = this.options;
    const stop = this.typingDone;
    const interval = this.options.typingIntervalMs ?? TYPING_INTERVAL_MS;
    while (!stop.raised) {
      const shown = await pacer
        .schedule(target, "typing", () => channel.typing(target).then(() => true), undefined, { operation: "typing" })
        .catch(() => undefined);
      // Skipped for lack of budget (a greeting just went out, say): try again soon rather than after a full interval.
      if (!(await nap(shown ? interval : TYPING_RETRY_MS, stop))) return;
    }
  }

  private visible(): void {
    if (this.firstVisibleAt !== undefined) return;
    this.firstVisibleAt = this.now();
    this.typingDone.raise();
    try {
      this.options.onFirstText?.(this.firstVisibleAt - this.startedAt);
    } catch {
      // A metrics callback must not cost the user the answer.
    }
  }

  /** Resolves true on new text, false once the stream has ended. */
  private nextChange(): Promise<boolean> {
    return new Promise((resolve) => {
      const check = () => {
        if (this.ending.raised) resolve(false);
        else if (this.changed) {
          this.changed = false;
          resolve(true);
        } else this.wake = check;
      };
      check();
    });
  }

  /**
   * An update was skipped (the budget was short, or another call of the chat was under way): try again after an
   * update interval, so the text shows without waiting for the chatbot's next fragment.
   */
  private retrySoon(): void {
    if (this.retryTimer || this.ending.raised) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      if (!this.ending.raised) this.notify();
    }, this.updateIntervalMs);
  }

  private notify(): void {
    this.changed = true;
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }
}
