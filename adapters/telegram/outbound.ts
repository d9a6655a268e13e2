import type { InlineKeyboardButton, InlineKeyboardMarkup, ReplyKeyboardMarkup, ReplyParameters } from "grammy/types";
import { Api } from "grammy/web";
import { OperatorProblems, statusKind } from "../../src/plugin/channel-errors.js";
import {
  CARD_LABELS,
  type CardAction,
  type CardLabels,
  type CardSurface,
  type Channel,
  type ChannelCapabilities,
  ChannelError,
  type ChannelLimits,
  cardActionId,
  cardFacts,
  cardKind,
  cutText,
  type DownloadOptions,
  type DraftLimits,
  type ListingCard,
  type Logger,
  type MediaRef,
  MediaTooLargeError,
  type OutgoingText,
  type ReplyTarget,
  readCapped,
  type SentMessage,
} from "../../src/plugin/plugin-api.js";
import { botApiFetch } from "./bot-api-fetch.js";
import { operatorProblem, toChannelError } from "./errors.js";
import { escapeHtml, markdownToTelegramHtml, measureMarkdown, visibleLength } from "./format.js";

/**
 * Telegram's limits for messages as the pacer should keep them. The Bot API documents only rough numbers; sends,
 * edits and chat actions draw on one per-chat flood control (Vercel Chat SDK: "Sends and edits share flood
 * control"; tdlib: "Limits for message editing and sending are shared"), so the per-chat budget covers them all.
 * Drafts are paced apart ({@link telegramDraftLimits}).
 * - `perChat`: "In a single chat, avoid sending more than one message per second. We may allow short bursts that
 *   go over this limit" (https://core.telegram.org/bots/faq#my-bot-is-hitting-limits-how-do-i-avoid-this).
 * - `perGroup`: "In a group, bots are not be able to send more than 20 messages per minute" (same FAQ), and "bots
 *   can only do up to 20 message edits in a minute per group chat" (https://grammy.dev/advanced/flood): 20 in any
 *   minute, spent as a sliding window.
 * - `perBot`: "not able to broadcast more than about 30 messages per second" (same FAQ): 30 in any second, spent as
 *   a sliding window, which the pacer keeps a little longer than a second (its window margin) for calls that
 *   reach Telegram a little early or late.
 * - `minUpdateIntervalMs.private`: 1 s between edits of a private chat's message (where drafts are refused).
 * - `minUpdateIntervalMs.group`: 3 s between edits keeps 20 edits a minute (Vercel uses 3.1 s).
 */
export const TELEGRAM_LIMITS: ChannelLimits = {
  perChat: { perSecond: 1, burst: 3 },
  perGroup: { max: 20, windowMs: 60_000 },
  perBot: { max: 30, windowMs: 1_000 },
  minUpdateIntervalMs: { private: 1_000, group: 3_000 },
};

/** Drafts a second to one chat, and of the whole bot, unless TELEGRAM_DRAFT_CHAT_RATE / _BOT_RATE say otherwise. */
export const DEFAULT_DRAFT_RATES = { chat: 2, bot: 300 };

/**
 * How drafts (sendMessageDraft) are paced: apart from messages, by budgets of their own. Telegram documents no
 * limit for drafts. A draft is not a message: the Bot API sends it as a typing action (MTProto
 * `sendMessageTextDraftAction` through `messages.setTyping`, https://core.telegram.org/api/bots/ai), it creates no
 * message and vanishes when the final message arrives. Its users report 429s on drafts sent every 300 ms to one
 * chat during long answers while "the final sendMessage always delivers" (fitz123/claude-code-bot#117, May 2026),
 * so drafts have a per-chat limit below ~3/s, and one of their own. Hence (see docs/channels.md "Drafts"):
 * - per chat, `chat` drafts a second with a burst of 3 (default 2/s: 500 ms between two drafts of an answer; Vercel's
 *   native path uses 250 ms, grammY's stream plugin skips what comes too fast);
 * - per bot, at most `bot` drafts in any second (default 300): no figure is published, typing actions have no
 *   documented bot-wide limit, and the messages' 30/s would make a thousand users wait half a minute for a first
 *   text. Both are settings, for the day Telegram says more.
 */
export function telegramDraftLimits(rates: { chat: number; bot: number } = DEFAULT_DRAFT_RATES): DraftLimits {
  return {
    perChat: { perSecond: rates.chat, burst: 3 },
    perBot: { max: rates.bot, windowMs: 1_000 },
    minIntervalMs: Math.ceil(1_000 / rates.chat),
  };
}

/** "Text of the message to be sent, 1-4096 characters after entities parsing" (https://core.telegram.org/bots/api#sendmessage). */
export const TELEGRAM_MAX_TEXT_LENGTH = 4096;

/** "Photo caption …, 0-1024 characters after entities parsing" (https://core.telegram.org/bots/api#sendphoto). */
export const TELEGRAM_MAX_CAPTION_LENGTH = 1024;

/** "Data to be sent in a callback query to the bot when the button is pressed, 1-64 bytes" (InlineKeyboardButton). */
const CALLBACK_DATA_BYTES = 64;

/** The cloud Bot API's root. */
const TELEGRAM_CLOUD_API = "https://api.telegram.org";

/** "For the moment, bots can download files of up to 20MB in size" (https://core.telegram.org/bots/api#getfile). */
export const TELEGRAM_MAX_DOWNLOAD_BYTES = 20 * 1024 * 1024;

/** grammY's Node build types signals with the `abort-controller` polyfill; Node's own signal works the same. */
type GrammySignal = Parameters<Api["getFile"]>[1];

/** What a {@link TelegramChannel} needs. */
export interface TelegramChannelOptions {
  /** The bot token from @BotFather (TELEGRAM_BOT_TOKEN). */
  token: string;
  /** The Bot API root (TELEGRAM_API_ROOT): api.telegram.org, a local Bot API server or an emulator. */
  apiRoot?: string | undefined;
  /** The bot of this deployment (`default` unless several are configured). */
  botId?: string | undefined;
  /** Where operator-actionable problems (a wrong token) are reported, once each. */
  log?: Logger | undefined;
  /** Drafts a second to one chat and of the whole bot (TELEGRAM_DRAFT_CHAT_RATE, TELEGRAM_DRAFT_BOT_RATE). */
  draftRates?: { chat: number; bot: number } | undefined;
}

/**
 * Telegram as a bridge channel, over grammY's `Api` (no `Bot`, no polling: updates arrive through the routes or
 * the poller in `setup.ts`). Private chats stream answers as native drafts (sendMessageDraft) that the
 * final sendMessage persists; groups stream by editing the sent message. Text goes as HTML rendered from the
 * chatbot's markdown.
 */
export class TelegramChannel implements Channel {
  readonly name = "telegram";
  readonly botId: string;
  readonly limits: ChannelLimits;
  /** The grammY API client; the setup code uses it for setWebhook, getUpdates and getMe. */
  readonly api: Api;
  readonly #problems: OperatorProblems;
  readonly #token: string;
  readonly #apiRoot: string;

  /**
   * Listing cards, one message each: a photo (sendPhoto, its first image by URL, which Telegram fetches) with the
   * card as its caption and an inline keyboard — "Details" opening the listing's page, a callback button per action
   * (its tap arrives as a `callback_query`). A media group would show more photos, but takes no buttons: they would
   * go in a second message, apart from the photos they belong to, and the group would count as one message per photo
   * against the chat's flood control. A card without a photo goes as a text message with the same keyboard; a photo
   * Telegram cannot fetch is refused as `media`, and the bridge sends the card again that way.
   */
  readonly cards: CardSurface = {
    perMessage: 1,
    send: async (target, cards, actions, labels = CARD_LABELS) => {
      const [card] = cards;
      if (!card) throw new ChannelError("rejected", "no listing card to send");
      const options = {
        parse_mode: "HTML" as const,
        message_thread_id: threadIdOf(target),
        reply_markup: cardKeyboard(card, actions, labels),
      };
      if (card.image) {
        const message = await this.#call(() =>
          this.api.sendPhoto(chatIdOf(target), card.image as string, {
            ...options,
            caption: cardHtml(card, TELEGRAM_MAX_CAPTION_LENGTH),
          }),
        );
        return { id: String(message.message_id) };
      }
      const message = await this.#call(() =>
        this.api.sendMessage(chatIdOf(target), cardHtml(card, TELEGRAM_MAX_TEXT_LENGTH), {
          ...options,
          link_preview_options: { is_disabled: true },
        }),
      );
      return { id: String(message.message_id) };
    },
  };

  constructor(options: TelegramChannelOptions) {
    this.botId = options.botId ?? "default";
    this.limits = { ...TELEGRAM_LIMITS, drafts: telegramDraftLimits(options.draftRates) };
    this.#problems = new OperatorProblems(options.log, { channel: this.name, botId: this.botId });
    this.#token = options.token;
    this.#apiRoot = (options.apiRoot ?? TELEGRAM_CLOUD_API).replace(/\/+$/, "");
    // Calls that outlast a minute are stuck; getUpdates long-polls for 25 s, well inside this.
    this.api = new Api(options.token, { apiRoot: this.#apiRoot, timeoutSeconds: 60, fetch: botApiFetch() });
  }

  /** A local Bot API server has no 20 MB download limit. */
  get #isCloud(): boolean {
    return this.#apiRoot === TELEGRAM_CLOUD_API;
  }

  /**
   * Drafts exist only in private chats ("Unique identifier for the target private chat",
   * https://core.telegram.org/bots/api#sendmessagedraft); a reply keyboard in a group would pop up for everyone.
   */
  capabilities(target: ReplyTarget): ChannelCapabilities {
    return {
      canEdit: true,
      nativeDraft: !target.isGroup,
      maxTextLength: TELEGRAM_MAX_TEXT_LENGTH,
      quickReplies: !target.isGroup,
    };
  }

  /** Telegram's length of chatbot markdown once rendered, for splitting long answers. */
  measure(markdown: string): number {
    return measureMarkdown(markdown);
  }

  async send(target: ReplyTarget, text: OutgoingText): Promise<SentMessage> {
    const [content, mode] = body(text);
    const message = await this.#call(() =>
      this.api.sendMessage(chatIdOf(target), content, {
        ...mode,
        message_thread_id: threadIdOf(target),
        reply_parameters: replyTo(target),
        reply_markup: this.#keyboard(target, text.quickReplies),
        // A preview that appears and changes while the answer streams is noise; the answer is the content.
        link_preview_options: { is_disabled: true },
      }),
    );
    return { id: String(message.message_id) };
  }

  /** Reply keyboards cannot be attached by an edit (editMessageText takes inline keyboards only). */
  async edit(target: ReplyTarget, message: SentMessage, text: OutgoingText): Promise<void> {
    const [content, mode] = body(text);
    await this.#call(() =>
      this.api.editMessageText(chatIdOf(target), Number(message.id), content, {
        ...mode,
        link_preview_options: { is_disabled: true },
      }),
    );
  }

  /**
   * Streams into a native draft; the same `draftId` animates the change. `can_stop` shows a stop button (its
   * press arrives as a `stopped_message_generation` update) and `keep_on_stop` keeps the partial text on screen
   * until the bridge persists it with sendMessage (https://core.telegram.org/bots/api#sendmessagedraft).
   */
  async draft(target: ReplyTarget, draftId: number, text: OutgoingText): Promise<void> {
    if (target.isGroup) throw new ChannelError("rejected", "Telegram drafts exist only in private chats");
    const [content, mode] = body(text);
    await this.#call(() =>
      this.api.sendMessageDraft(chatIdOf(target), draftId, content, {
        ...mode,
        message_thread_id: threadIdOf(target),
        can_stop: true,
        keep_on_stop: true,
      }),
    );
  }

  /** "The status is set for 5 seconds or less" (https://core.telegram.org/bots/api#sendchataction): renewed by the caller. */
  async typing(target: ReplyTarget): Promise<void> {
    await this.#call(() =>
      this.api.sendChatAction(chatIdOf(target), "typing", { message_thread_id: threadIdOf(target) }),
    );
  }

  /**
   * Fetches a file the user sent: getFile gives its path, valid for at least an hour, under
   * `{apiRoot}/file/bot<token>/` (https://core.telegram.org/bots/api#getfile), so the token only ever goes to the
   * Bot API's own host. The cloud Bot API serves files up to 20 MB; larger ones are refused before any transfer, as
   * Telegram would refuse them anyway (a local Bot API server has no such limit).
   */
  async download(media: MediaRef, { signal, maxBytes }: DownloadOptions): Promise<Uint8Array> {
    const cap = this.#isCloud ? Math.min(maxBytes, TELEGRAM_MAX_DOWNLOAD_BYTES) : maxBytes;
    const tooLarge = (size: number) =>
      new MediaTooLargeError(cap, `the Telegram file is ${size} bytes, over the ${cap}-byte limit`);
    if (media.sizeBytes !== undefined && media.sizeBytes > cap) throw tooLarge(media.sizeBytes);
    const file = await this.#call(() => this.api.getFile(media.platformId, signal as GrammySignal)).catch(
      (error: unknown) => {
        // What getFile answers for a file over 20 MB: the same refusal, whatever server said it.
        if (error instanceof ChannelError && /file is too big/i.test(error.message)) {
          throw new MediaTooLargeError(TELEGRAM_MAX_DOWNLOAD_BYTES, "Telegram: file is too big to download");
        }
        throw error;
      },
    );
    if (file.file_size !== undefined && file.file_size > cap) throw tooLarge(file.file_size);
    if (!file.file_path) throw new ChannelError("rejected", "Telegram gave no path for the file");
    let response: Response;
    try {
      response = await fetch(`${this.#apiRoot}/file/bot${this.#token}/${file.file_path}`, { signal });
    } catch (error) {
      // The URL holds the token: say what failed without it.
      throw new ChannelError(
        "transient",
        "Telegram file download failed: the file server could not be reached",
        undefined,
        {
          cause: error instanceof Error ? new Error(error.name) : undefined,
        },
      );
    }
    if (!response.ok) {
      await response.body?.cancel();
      throw new ChannelError(statusKind(response.status), `Telegram file download failed: HTTP ${response.status}`);
    }
    return readCapped(response, cap, "the Telegram file");
  }

  /** Suggested questions as a one-time reply keyboard: a tap sends the question as an ordinary message. */
  #keyboard(target: ReplyTarget, quickReplies: string[] | undefined): ReplyKeyboardMarkup | undefined {
    const buttons = (quickReplies ?? []).map((reply) => reply.trim()).filter(Boolean);
    if (target.isGroup || buttons.length === 0) return undefined;
    return { keyboard: buttons.map((text) => [{ text }]), one_time_keyboard: true, resize_keyboard: true };
  }

  async #call<T>(operation: () => Promise<T>): Promise<T> {
    try {
      return await operation();
    } catch (error) {
      const mapped = toChannelError(error);
      this.#problems.report(operatorProblem(mapped));
      throw mapped;
    }
  }
}

/**
 * The text and parse mode of an outgoing text: markdown goes as HTML, plain text without a parse mode (so
 * nothing in it is read as markup). Markdown that renders to nothing visible goes as it was written, since
 * Telegram refuses an empty message.
 */
function body(text: OutgoingText): [string, { parse_mode?: "HTML" }] {
  if (text.format === "plain") return [text.text, {}];
  const html = markdownToTelegramHtml(text.text);
  if (visibleLength(html) === 0) return [text.text, {}];
  return [html, { parse_mode: "HTML" }];
}

/**
 * A card as Telegram HTML: the facts in bold, the address, the kind of listing and its MLS number, at most `max`
 * visible characters (the address is shortened first, then the kind).
 */
function cardHtml(card: ListingCard, max: number): string {
  const facts = cutText(cardFacts(card), max);
  const mls = card.mlsNumber ? `MLS ${card.mlsNumber}` : "";
  const kind = [cardKind(card), mls].filter(Boolean).join(" · ");
  const room = (used: string[]) => max - used.reduce((sum, line) => sum + [...line].length + 1, 0);
  const address = cutText(card.address, Math.max(0, room([facts, kind])));
  const lines = [facts, address, cutText(kind, Math.max(0, room([facts, address])))];
  const [first, ...rest] = lines.filter((line, index) => index === 0 || line !== "");
  return [`<b>${escapeHtml(first ?? "")}</b>`, ...rest.map(escapeHtml)].join("\n");
}

/**
 * The buttons under a card: "Details" (a link, when the listing has a page) and one per action, side by side. An
 * action whose data would pass 64 bytes (a very long MLS number) is left out.
 */
function cardKeyboard(
  card: ListingCard,
  actions: readonly CardAction[],
  labels: CardLabels,
): InlineKeyboardMarkup | undefined {
  const row: InlineKeyboardButton[] = [];
  if (/^https?:\/\//i.test(card.url)) row.push({ text: labels.details, url: card.url });
  for (const action of actions) {
    const data = cardActionId(action, card.mlsNumber, CALLBACK_DATA_BYTES);
    if (data) row.push({ text: labels[action], callback_data: data });
  }
  return row.length === 0 ? undefined : { inline_keyboard: [row] };
}

/** Telegram chat ids are integers up to 52 bits (supergroups: -100…), within a JS number. */
function chatIdOf(target: ReplyTarget): number {
  return Number(target.chatId);
}

function threadIdOf(target: ReplyTarget): number | undefined {
  return target.threadId === undefined ? undefined : Number(target.threadId);
}

/** In groups the answer replies to the question; it still goes out if the question was deleted meanwhile. */
function replyTo(target: ReplyTarget): ReplyParameters | undefined {
  if (!target.isGroup || target.replyToMessageId === undefined) return undefined;
  return { message_id: Number(target.replyToMessageId), allow_sending_without_reply: true };
}
