import type { MediaRef, ReplyTarget } from "./inbound.js";

/** How a media download is bounded. */
export interface DownloadOptions {
  signal: AbortSignal;
  /** The most bytes the bridge will take for this file. */
  maxBytes: number;
}

/** A file is larger than what may be downloaded or forwarded; `limitBytes` is the limit that applied. */
export class MediaTooLargeError extends Error {
  override readonly name = "MediaTooLargeError";
  constructor(
    readonly limitBytes: number,
    message: string,
  ) {
    super(message);
  }
}

/** What a channel can do for one reply target (drafts, for instance, exist only in private chats). */
export interface ChannelCapabilities {
  /** Sent messages can be edited, so an answer can grow in place. */
  canEdit: boolean;
  /** The platform streams a native draft (Telegram sendMessageDraft) that a final send persists. */
  nativeDraft: boolean;
  /** Longest text one message may hold, in characters, after formatting. */
  maxTextLength: number;
  /** Buttons with suggested questions can be offered. */
  quickReplies: boolean;
  /**
   * How long after the user's last message the bot may still send free-form messages (text, media, buttons) in the
   * conversation — WhatsApp's 24-hour customer-service window. Past it only an approved template may go
   * (an alert template, see src/features/alerts/alert-template.ts), so alerts go as that template or are skipped. Undefined: no such window.
   */
  freeFormWindowMs?: number | undefined;
  /**
   * The platform streams a message by appending text (Slack chat.startStream / appendStream / stopStream), through
   * {@link Channel.stream}. Appended text cannot be taken back, so only text that will not change is appended.
   */
  nativeStream?: boolean;
  /**
   * For channels that cannot edit (WhatsApp): send each finished paragraph as its own message while the answer
   * streams, once at least `minLength` characters are ready, instead of one message at the end.
   */
  blocks?: { minLength: number } | undefined;
}

/** A token bucket: `burst` requests at once, refilled at `perSecond`; for platforms that document a rate. */
export interface RateBudget {
  perSecond: number;
  burst: number;
}

/**
 * A sliding window: at most `max` requests in any `windowMs`; for platforms that document a count per period
 * ("30 messages per second", "20 messages per minute"), which it spends exactly, bursts included.
 */
export interface WindowBudget {
  max: number;
  windowMs: number;
}

/** One of a platform's limits, as a rate or as a count per window. */
export type Budget = RateBudget | WindowBudget;

/** The kinds of call the bridge makes on a channel, for platforms that limit each method on its own. */
export type Operation = "send" | "edit" | "draft" | "typing" | "streamStart" | "streamAppend" | "streamStop";

/**
 * A platform's documented limits, which the pacer keeps every send, edit, draft and typing call within.
 * `perChat` applies to each private chat, `perGroup` to each group chat, `perBot` to the whole bot, and
 * `perOperation` (where the platform limits each method across the workspace, as Slack's tiers do) to all calls
 * of one operation, on top of the others.
 */
export interface ChannelLimits {
  perChat: Budget;
  perGroup: Budget;
  perBot: Budget;
  perOperation?: Partial<Record<Operation, Budget>>;
  /**
   * Calls of an operation's budget that an update which does not open an answer leaves to the answers still to open
   * (on top of the reserve for finals). Where an operation is scarce and every answer shown early needs it once to
   * be finished (Slack's chat.update, 50 a minute), edits that only grow an answer already on screen would otherwise
   * take the calls that let another answer show its first text: under load, a first text for one more user goes
   * before one more edit for a user who reads already.
   */
  openingShare?: Partial<Record<Operation, number>>;
  /**
   * Operations that are no message of the conversation (Slack's assistant status, limited as a method of its own):
   * they spend their `perOperation` budget only, not the chat's nor the bot's, so a typing indicator never delays
   * the first text.
   */
  apart?: Operation[] | undefined;
  /** Least time between two updates (edits or drafts) of one streamed answer. */
  minUpdateIntervalMs: { private: number; group: number };
  /**
   * Native drafts' own limits, where the platform paces them apart from messages (Telegram: a draft is a typing
   * action, not a message; see docs/channels.md "Drafts"): draft calls spend from these budgets instead of the chat's
   * and the bot's, so drafts never delay a message nor wait for one.
   */
  drafts?: DraftLimits | undefined;
}

/** The budgets of native drafts (see {@link ChannelLimits.drafts}). */
export interface DraftLimits {
  /** Drafts to one chat. */
  perChat: Budget;
  /** Drafts of the whole bot, to every chat. */
  perBot: Budget;
  /** Least time between two drafts of one streamed answer. */
  minIntervalMs: number;
}

/** A message the channel sent, to edit later. */
export interface SentMessage {
  id: string;
}

/** What a channel operation can fail with, so the pacer and renderer can react without knowing the platform. */
export type ChannelErrorKind =
  /** Too many requests: wait `retryAfterMs` (the platform's retry_after) and try again. */
  | "rate_limited"
  /** The edit would not change the message: counts as success. */
  | "not_modified"
  /** The platform refused the formatting: send the same text as plain text. */
  | "format"
  /** The platform could not fetch or take an image of the message (a listing card's photo): send it without. */
  | "media"
  /** The user blocked the bot, the chat is gone, the token is wrong…: do not retry. */
  | "rejected"
  /** Network or 5xx: may be retried. */
  | "transient";

/** The one error type channel operations throw. */
export class ChannelError extends Error {
  override readonly name = "ChannelError";
  /** For `rate_limited`: whether the platform limited this chat or the whole bot (e.g. Slack's method tiers). */
  readonly scope: "chat" | "bot";
  /**
   * For `rejected`: the platform refused a free-form message because the conversation's free-form window is closed
   * (WhatsApp 131047) — only a template may go now.
   */
  readonly outsideWindow: boolean;
  constructor(
    readonly kind: ChannelErrorKind,
    message: string,
    readonly retryAfterMs?: number,
    options?: { cause?: unknown; scope?: "chat" | "bot"; outsideWindow?: boolean },
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.scope = options?.scope ?? "chat";
    this.outsideWindow = options?.outsideWindow ?? false;
  }
}

/** How the text of an outgoing message is to be formatted. */
export type TextFormat = "markdown" | "plain";

/** One outgoing text: markdown from the chatbot (rendered by the channel into its own syntax), or plain text. */
export interface OutgoingText {
  text: string;
  format: TextFormat;
  /** Suggested questions to offer as buttons, where the channel has them (final messages only). */
  quickReplies?: string[] | undefined;
  /**
   * An intermediate state of an answer still growing: a later edit carries more, and the last state of the message
   * comes without it. Channels that show progress (the web chat's `aria-busy`) read it; the others ignore it.
   */
  partial?: boolean | undefined;
  /**
   * The chatbot's limits refused the question and said when questions are taken again: channels that can hold the
   * input until then (the web chat) do so.
   */
  retryAt?: Date | undefined;
}

/** A platform's append-only message stream; each call carries only the new text. */
export interface NativeStream {
  /** Opens a streamed message showing `text`. */
  start(target: ReplyTarget, text: OutgoingText): Promise<SentMessage>;
  /** Adds `text` at the end of the streamed message. */
  append(target: ReplyTarget, message: SentMessage, text: OutgoingText): Promise<void>;
  /** Adds the last `text` (possibly empty) and ends the stream: the message is final. */
  stop(target: ReplyTarget, message: SentMessage, text: OutgoingText): Promise<void>;
}

/**
 * A messaging platform as the bridge sees it. Adapters implement it; the bridge core never imports an
 * adapter. Every operation throws {@link ChannelError} on failure. A feature may declare more that a channel can
 * do for it (listing cards, alert templates: see src/features/), which an adapter implements beside this.
 */
export interface Channel {
  /** Channel name, as in {@link InboundMessage.channel}. */
  readonly name: string;
  readonly botId: string;
  readonly limits: ChannelLimits;
  capabilities(target: ReplyTarget): ChannelCapabilities;
  send(target: ReplyTarget, text: OutgoingText): Promise<SentMessage>;
  edit(target: ReplyTarget, message: SentMessage, text: OutgoingText): Promise<void>;
  /** Shows or updates a native draft; `draftId` identifies one streamed message (changes animate). */
  draft(target: ReplyTarget, draftId: number, text: OutgoingText): Promise<void>;
  /** Shows the typing indicator (it fades by itself after a few seconds). */
  typing(target: ReplyTarget): Promise<void>;
  /**
   * The length of a markdown text once rendered, as the platform counts it against
   * {@link ChannelCapabilities.maxTextLength}: long answers are split on it, so that no message is over the limit
   * after rendering. Absent where the text is sent as it is (its length is then `text.length`).
   */
  measure?(markdown: string): number;
  /** Present when {@link ChannelCapabilities.nativeStream} can be true. */
  readonly stream?: NativeStream;
  /**
   * Fetches a media file's bytes, never more than `maxBytes` (throws {@link MediaTooLargeError} from the
   * platform's declared size before any transfer, or as soon as the stream passes the cap), sending the
   * platform's credentials only to the platform's own hosts.
   */
  download?(media: MediaRef, options: DownloadOptions): Promise<Uint8Array>;
}
