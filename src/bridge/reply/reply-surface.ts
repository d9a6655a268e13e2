import { createHash } from "node:crypto";
import { DEFAULT_RETRY, retryDelay } from "../../client/retry.js";
import { type Channel, ChannelError, type ChannelErrorKind, type SentMessage, type TextFormat } from "../channel.js";
import type { ReplyTarget } from "../inbound.js";
import { nap } from "./event-control.js";
import type { CallCost, Pacer } from "./pacer.js";

/** What every surface needs: where to write, and the pacer and stream key the calls go through. */
export interface SurfaceContext {
  channel: Channel;
  target: ReplyTarget;
  pacer: Pacer;
  /** Identifies this answer to the pacer, so a newer update or the final replaces a pending update. */
  stream: object;
  /**
   * Aborts when this process may no longer write to the chat (its lease on the conversation is lost, or it hands the
   * conversation over at shutdown): every call not yet made is refused, even one already queued in the pacer.
   */
  fence?: AbortSignal | undefined;
  /** Told when a message starts growing on the platform (its id), or undefined when none is open any more. */
  onOpen?: ((open: OpenMessage | undefined) => void) | undefined;
}

/**
 * The message an answer is growing in, as the ledger keeps it: a sent message edited in place, a native stream, or
 * a native draft. A holder resuming the answer finishes it in the same message where the platform allows.
 */
export interface OpenMessage {
  kind: "edit" | "stream" | "draft";
  id: string;
}

/** Runs `call` unless the fence is down; the pacer may run a queued call long after it was scheduled. */
function fenced<T>(ctx: SurfaceContext, call: () => Promise<T>): () => Promise<T> {
  return () => {
    ctx.fence?.throwIfAborted();
    return call();
  };
}

/**
 * Where a streamed answer becomes visible: a native draft, a message edited as it grows, or only final
 * messages. A WhatsApp-style block streamer (several final messages while the answer streams) fits here too.
 */
export interface ReplySurface {
  readonly kind: "draft" | "stream" | "edit" | "final";
  /**
   * Shows intermediate text, read from `text` only when the call runs (a delayed update never shows stale text;
   * `undefined` means nothing new). Resolves true when the text landed, false when skipped or failed.
   */
  show(text: () => string | undefined): Promise<boolean>;
  /** Persists one finished message, whatever the wait; the next `show` starts a new message. */
  persist(text: string, quickReplies?: string[]): Promise<void>;
}

/** Native drafts or streams failed for a reason plain text will not fix: stream with another surface. */
export class SurfaceUnavailable extends Error {
  override readonly name = "SurfaceUnavailable";
}

/** How often a final that failed with a network or server error is tried again. */
const TRANSIENT_ATTEMPTS = 4;

/** True when `error` is a {@link ChannelError} of one of `kinds`. */
export function isChannelError(error: unknown, ...kinds: ChannelErrorKind[]): error is ChannelError {
  return error instanceof ChannelError && kinds.includes(error.kind);
}

/**
 * Lands a final call: the pacer waits out rate limits, a refused format is retried as plain text (the same text),
 * network and server errors are retried with backoff. Other errors (`rejected`) are thrown.
 */
export async function landFinal<T>(
  ctx: SurfaceContext,
  cost: CallCost,
  call: (format: TextFormat) => Promise<T>,
): Promise<T> {
  let format: TextFormat = "markdown";
  for (let failures = 0; ; ) {
    try {
      return await ctx.pacer.schedule(
        ctx.target,
        "final",
        fenced(ctx, () => call(format)),
        ctx.stream,
        cost,
      );
    } catch (error) {
      if (ctx.fence?.aborted) throw error;
      if (isChannelError(error, "format") && format === "markdown") format = "plain";
      else if (isChannelError(error, "transient") && ++failures < TRANSIENT_ATTEMPTS) {
        await nap(retryDelay(DEFAULT_RETRY, failures - 1, error.retryAfterMs));
      } else throw error;
    }
  }
}

/**
 * Tries an update through the pacer, retrying once as plain text on a format refusal. `call` returns false when
 * it had nothing to show. Resolves whether something landed; errors other than `format` are thrown.
 */
async function tryUpdate(
  ctx: SurfaceContext,
  first: TextFormat,
  cost: CallCost,
  call: (format: TextFormat) => Promise<boolean>,
): Promise<boolean> {
  try {
    return (
      (await ctx.pacer.schedule(
        ctx.target,
        "update",
        fenced(ctx, () => call(first)),
        ctx.stream,
        cost,
      )) === true
    );
  } catch (error) {
    if (!isChannelError(error, "format") || first === "plain") throw error;
    return (
      (await ctx.pacer.schedule(
        ctx.target,
        "update",
        fenced(ctx, () => call("plain")),
        ctx.stream,
        cost,
      )) === true
    );
  }
}

/** Telegram-style edit loop: the first text is sent at once, later text edits that message. */
export class EditSurface implements ReplySurface {
  readonly kind = "edit";
  private message: SentMessage | undefined;
  private shown = "";
  /** The chat refused an update (message deleted, bot blocked): stop updating, the final decides. */
  private refused = false;
  /** Partial text was refused as markdown: later updates of this answer go as plain text (the final does not). */
  private plain = false;
  /** Some text of this answer is (or was) on screen: later updates do not open it (`CallCost.opening`). */
  private opened: boolean;

  /** `open`: a message an earlier holder started for this answer, to be edited rather than sent again. */
  constructor(
    private readonly ctx: SurfaceContext,
    open?: SentMessage,
  ) {
    this.message = open;
    this.opened = open !== undefined;
  }

  async show(text: () => string | undefined): Promise<boolean> {
    if (this.refused) return false;
    const { channel, target } = this.ctx;
    try {
      // The first text is posted only when an edit to finish it later is paid for now: where edits are scarce
      // (Slack's chat.update tier) an answer that cannot be finished by an edit goes out as one final post.
      const cost: CallCost = this.message
        ? { operation: "edit" }
        : { operation: "send", prepay: "edit", opening: !this.opened };
      return await tryUpdate(this.ctx, this.plain ? "plain" : "markdown", cost, async (format) => {
        const next = text();
        if (next === undefined || next === this.shown) return false;
        if (this.message) await editAllowingSame(channel, target, this.message, next, format, undefined, true);
        else {
          this.message = await channel.send(target, { text: next, format, partial: true });
          this.opened = true;
          this.ctx.onOpen?.({ kind: "edit", id: this.message.id });
        }
        if (format === "plain") this.plain = true;
        this.shown = next;
        return true;
      });
    } catch (error) {
      if (isChannelError(error, "rejected")) this.refused = true;
      return false; // intermediate text is best-effort; the final is not
    }
  }

  async persist(text: string, quickReplies?: string[]): Promise<void> {
    const { channel, target } = this.ctx;
    const message = this.message;
    this.message = undefined;
    this.shown = "";
    this.opened = true;
    this.ctx.onOpen?.(undefined);
    if (message) {
      try {
        await landFinal(this.ctx, { operation: "edit", prepaid: true }, (format) =>
          editAllowingSame(channel, target, message, text, format, quickReplies),
        );
        return;
      } catch (error) {
        // The message cannot be edited any more (deleted, too old): the answer goes in a new one.
        if (!isChannelError(error, "rejected")) throw error;
      }
    }
    await landFinal(this.ctx, { operation: "send" }, (format) => channel.send(target, { text, format, quickReplies }));
  }
}

/** Native drafts (Telegram sendMessageDraft): ephemeral, so every finished message is persisted with a send. */
export class DraftSurface implements ReplySurface {
  readonly kind = "draft";
  private draftId: number;
  private shown = "";
  /** A draft was refused as markdown: the rest of this answer's drafts go as plain text. */
  private plain = false;
  /** Some text of this answer is (or was) on screen: later drafts do not open it (`CallCost.opening`). */
  private opened: boolean;

  /**
   * `draftId`: the draft an earlier holder showed for this answer, replaced in place by this one's text.
   * `answerId` and `message`: the answer and its message about to stream, from which the draft ids are derived, so
   * that a holder resuming the answer replaces the same draft even when the ledger never learnt it was shown (the
   * earlier holder died between showing it and recording it).
   */
  constructor(
    private readonly ctx: SurfaceContext,
    draftId?: number,
    private readonly answerId?: string,
    private message = 0,
  ) {
    this.draftId = draftId ?? this.idOf(message);
    this.opened = draftId !== undefined || message > 0;
  }

  private idOf(message: number): number {
    return this.answerId === undefined ? nextDraftId() : derivedDraftId(this.answerId, message);
  }

  async show(text: () => string | undefined): Promise<boolean> {
    const { channel, target } = this.ctx;
    try {
      const cost: CallCost = { operation: "draft", opening: !this.opened };
      return await tryUpdate(this.ctx, this.plain ? "plain" : "markdown", cost, async (format) => {
        const next = text();
        if (next === undefined || next === this.shown) return false;
        await channel.draft(target, this.draftId, { text: next, format });
        this.opened = true;
        if (this.shown === "") this.ctx.onOpen?.({ kind: "draft", id: String(this.draftId) });
        if (format === "plain") this.plain = true;
        this.shown = next;
        return true;
      });
    } catch (error) {
      throw new SurfaceUnavailable("native drafts failed", { cause: error });
    }
  }

  async persist(text: string, quickReplies?: string[]): Promise<void> {
    const { channel, target } = this.ctx;
    await landFinal(this.ctx, { operation: "send" }, (format) => channel.send(target, { text, format, quickReplies }));
    // The next message streams in a new draft; the persisted message replaces this one on screen.
    this.message += 1;
    this.draftId = this.idOf(this.message);
    this.shown = "";
    this.opened = true;
    this.ctx.onOpen?.(undefined);
  }
}

/**
 * Native append-only streams (Slack chat.startStream / appendStream / stopStream): the first text opens the
 * stream, later text is appended, the final text ends it. Appended text cannot be taken back, so what is shown is
 * only the part of the safe partial view that is also the raw text so far (a closing fence the view adds, or
 * markup it holds back, is never appended), and only when it extends what is already shown.
 */
export class StreamSurface implements ReplySurface {
  readonly kind = "stream";
  private message: SentMessage | undefined;
  private shown = "";
  /** The platform refused an append (the stream expired, say): stop updating, the final decides. */
  private refused = false;
  /** The open stream was started by an earlier holder, showing text this one does not know. */
  private resumed: boolean;
  /** Some text of this answer is (or was) on screen: a later stream does not open it (`CallCost.opening`). */
  private opened: boolean;

  /**
   * `raw` is the current message's text exactly as streamed. `open`: a stream an earlier holder started for this
   * answer; what it shows is not known, so nothing is appended to it: it is ended and edited to the final text.
   */
  constructor(
    private readonly ctx: SurfaceContext,
    private readonly raw: () => string,
    open?: SentMessage,
  ) {
    this.message = open;
    this.resumed = open !== undefined;
    this.opened = open !== undefined;
  }

  async show(text: () => string | undefined): Promise<boolean> {
    if (this.refused || this.resumed) return false;
    const { channel, target } = this.ctx;
    const stream = channel.stream as NonNullable<Channel["stream"]>;
    // Opening a stream pays for the stop that will end it, so no stream starts that could not be ended soon. When
    // those budgets are short (Slack's are 20 a minute per workspace), the answer opens as a posted message instead
    // (chat.update's budget is another), rather than showing nothing before its whole answer.
    let short = false;
    const cost: CallCost = this.message
      ? { operation: "streamAppend" }
      : {
          operation: "streamStart",
          prepay: "streamStop",
          opening: !this.opened,
          onShort: () => {
            short = true;
          },
        };
    let shown: boolean;
    try {
      shown = await tryUpdate(this.ctx, "markdown", cost, async () => {
        const next = commonPrefix(text() ?? "", this.raw());
        if (next.trim() === "" || next.length <= this.shown.length || !next.startsWith(this.shown)) return false;
        if (this.message) {
          await stream.append(target, this.message, { text: next.slice(this.shown.length), format: "markdown" });
        } else {
          this.message = await stream.start(target, { text: next, format: "markdown" });
          this.opened = true;
          this.ctx.onOpen?.({ kind: "stream", id: this.message.id });
        }
        this.shown = next;
        return true;
      });
    } catch (error) {
      if (!this.message) throw new SurfaceUnavailable("native streaming failed", { cause: error });
      this.refused = true;
      return false;
    }
    if (short && !this.message) throw new SurfaceUnavailable("native streams are short of budget");
    return shown;
  }

  async persist(text: string, quickReplies?: string[]): Promise<void> {
    const { channel, target } = this.ctx;
    const stream = channel.stream as NonNullable<Channel["stream"]>;
    const message = this.message;
    const shown = this.shown;
    const resumed = this.resumed;
    this.message = undefined;
    this.shown = "";
    this.refused = false;
    this.resumed = false;
    this.opened = true;
    this.ctx.onOpen?.(undefined);
    if (!message) {
      await landFinal(this.ctx, { operation: "send" }, (format) =>
        channel.send(target, { text, format, quickReplies }),
      );
      return;
    }
    const rest = !resumed && text.startsWith(shown) ? text.slice(shown.length) : undefined;
    try {
      // The stream ends with the rest of the text; when the final text differs from what streamed (a corrected
      // answer, a cut before what was shown), it ends empty and the message is then edited to the final text.
      await landFinal(this.ctx, { operation: "streamStop", prepaid: true }, (format) =>
        stream.stop(target, message, { text: rest ?? "", format, quickReplies }),
      );
      if (rest !== undefined) return;
    } catch (error) {
      if (!isChannelError(error, "rejected")) throw error;
    }
    await landFinal(this.ctx, { operation: "edit" }, (format) =>
      editAllowingSame(channel, target, message, text, format, quickReplies),
    );
  }
}

/** The longest common prefix of two strings. */
function commonPrefix(a: string, b: string): string {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return a.slice(0, i);
}

/** Channels that cannot edit (WhatsApp): nothing streams, finished messages are sent. */
export class FinalOnlySurface implements ReplySurface {
  readonly kind = "final";

  constructor(private readonly ctx: SurfaceContext) {}

  async show(): Promise<boolean> {
    return false;
  }

  async persist(text: string, quickReplies?: string[]): Promise<void> {
    const { channel, target } = this.ctx;
    await landFinal(this.ctx, { operation: "send" }, (format) => channel.send(target, { text, format, quickReplies }));
  }
}

/** An edit that would not change the message counts as done ("message is not modified"). */
async function editAllowingSame(
  channel: Channel,
  target: ReplyTarget,
  message: SentMessage,
  text: string,
  format: TextFormat,
  quickReplies?: string[],
  partial?: boolean,
): Promise<void> {
  try {
    await channel.edit(target, message, { text, format, quickReplies, partial });
  } catch (error) {
    if (!isChannelError(error, "not_modified")) throw error;
  }
}

let lastDraftId = Math.floor(Math.random() * 2 ** 30);

/** Draft ids are non-zero and distinct per streamed message (a new id replaces the draft on screen). */
function nextDraftId(): number {
  lastDraftId = (lastDraftId % (2 ** 31 - 1)) + 1;
  return lastDraftId;
}

/** The draft id of message `message` of answer `answerId`: the same in every process, non-zero, below 2^31. */
function derivedDraftId(answerId: string, message: number): number {
  const digest = createHash("sha256").update(`${answerId}#${message}`).digest();
  return (digest.readUInt32BE(0) % (2 ** 31 - 1)) + 1;
}
