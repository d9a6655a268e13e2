import { randomBytes } from "node:crypto";
import type { Response } from "express";
import {
  type CardAction,
  type CardLabels,
  type CardSurface,
  type Channel,
  type ChannelCapabilities,
  ChannelError,
  type ChannelLimits,
  type DownloadOptions,
  type ListingCard,
  type LoggedVisitorEvent,
  type MediaRef,
  MediaTooLargeError,
  type OutgoingText,
  type ReplyTarget,
  type SentMessage,
  type VisitorEventRetention,
  type VisitorEvents,
  type VisitorSubscription,
} from "../../src/plugin/plugin-api.js";
import { markdownToWebHtml, measureWebHtml, plainToWebHtml } from "./format.js";
import { type VisitorFileKind, type VisitorFiles, visitorFileOf } from "./visitor-files.js";
import type { WebChatEvent } from "./widget/protocol.js";

export type { WebChatEvent } from "./widget/protocol.js";

/**
 * How much of a visitor's conversation a page can catch up on after a reconnect (the latest state of each of the
 * last 200 messages), and how long after the visitor's last event it is kept.
 */
const RETENTION: VisitorEventRetention = { messages: 200, idleMs: 60 * 60 * 1000 };

/**
 * The built-in web chat as a channel: each visitor (an identity the bridge issued, see visitor-identity.ts) has an event
 * stream; sends and edits become events the page renders. Messages can be edited, so answers grow in place.
 *
 * The events go through the store's visitor event log, shared by every instance: whichever instance answers, the
 * page gets the events on the stream it holds with any instance, and catches up after a reconnect (to any instance)
 * from its Last-Event-ID. Message ids are random, so an edit by any instance — also one resuming an answer after a
 * crash — replaces the message the page shows, and never another one.
 *
 * Listing cards come through its card surface like on every channel (the job's cards step after an answer, the card
 * of a listing's link): a `cards` event of its own, which the widget draws as a row of cards under the answer with
 * the actions' buttons.
 */
export class WebChannel implements Channel {
  readonly name = "web";
  readonly limits: ChannelLimits = {
    perChat: { perSecond: 20, burst: 20 },
    perGroup: { perSecond: 20, burst: 20 },
    perBot: { perSecond: 5000, burst: 5000 },
    minUpdateIntervalMs: { private: 50, group: 50 },
  };

  /** Where the upload route keeps visitors' photos and recordings (none: the channel takes text only). */
  readonly files: VisitorFiles | undefined;

  /** One row of cards holds an answer's cards (LISTING_CARDS_MAX is 10 at most): it scrolls sideways. */
  readonly cards: CardSurface = {
    perMessage: 10,
    send: (target, cards, actions, labels) => this.#sendCards(target, cards, actions, labels),
  };

  /** `parts`: visitors' uploads. */
  constructor(
    readonly events: VisitorEvents,
    readonly botId = "default",
    parts: { files?: VisitorFiles | undefined } = {},
  ) {
    this.files = parts.files;
  }

  capabilities(): ChannelCapabilities {
    return { canEdit: true, nativeDraft: false, maxTextLength: 50_000, quickReplies: true };
  }

  /** Long answers are split on the length the visitor reads, not on the markdown's. */
  measure(markdown: string): number {
    return measureWebHtml(markdown);
  }

  async send(target: ReplyTarget, text: OutgoingText): Promise<SentMessage> {
    const id = `m${randomBytes(12).toString("base64url")}`;
    await this.#show(target.chatId, id, text);
    return { id };
  }

  async edit(target: ReplyTarget, message: SentMessage, text: OutgoingText): Promise<void> {
    await this.#show(target.chatId, message.id, text);
  }

  /** A visitor's upload (photo, push-to-talk recording), read from the store where the upload route kept it. */
  async download(media: MediaRef, { maxBytes }: DownloadOptions): Promise<Uint8Array> {
    const file = visitorFileOf(media);
    const bytes = file && (await this.files?.bytes(file.visitorId, file.fileId));
    if (!bytes) throw new ChannelError("rejected", "the visitor's upload is gone (kept for a day)");
    if (bytes.length > maxBytes) {
      throw new MediaTooLargeError(maxBytes, `the visitor's upload is ${bytes.length} bytes, over ${maxBytes}`);
    }
    return bytes;
  }

  async draft(): Promise<void> {
    throw new ChannelError("rejected", "the web chat has no native drafts");
  }

  /**
   * Keeps what the visitor sent in their log beside the answers, so that a reload (or another tab) shows the whole
   * conversation: the message under its own id (`v-<messageId>`, which the widget gave the bubble it drew), or for
   * a new conversation a reset, after which the replay shows nothing older.
   */
  async recordVisitor(
    visitorId: string,
    messageId: string,
    said: { text: string; files?: VisitorFileKind[] | undefined } | "reset",
  ): Promise<void> {
    const id = `v-${messageId}`;
    const event: WebChatEvent =
      said === "reset"
        ? { type: "reset", id }
        : {
            type: "message",
            id,
            text: said.text,
            format: "plain",
            html: plainToWebHtml(said.text),
            from: "visitor",
            at: new Date().toISOString(),
            files: said.files?.length ? said.files : undefined,
          };
    await this.#append(visitorId, id, event);
  }

  async typing(target: ReplyTarget): Promise<void> {
    await this.#append(target.chatId, undefined, { type: "typing" });
  }

  /**
   * Streams a visitor's events to a page: the latest state of each message after `lastEventId` (all kept ones when
   * undefined), then every new event, each once. Rejects when the store cannot be reached; when the live delivery
   * is lost later (the store's connection dropped), the stream is ended, so the page reconnects and catches up.
   */
  async subscribe(visitorId: string, res: Response, lastEventId: number | undefined): Promise<void> {
    let closed = false;
    let subscription: VisitorSubscription | undefined;
    res.on("close", () => {
      closed = true;
      subscription?.close();
    });
    // Until the replay is written, live events wait, so the page sees them in order and none twice.
    let pending: LoggedVisitorEvent[] | undefined = [];
    let written = lastEventId ?? 0;
    const deliver = (event: LoggedVisitorEvent) => {
      if (pending) pending.push(event);
      else if (event.id > written) {
        written = event.id;
        write(res, event);
      }
    };
    subscription = await this.events.subscribe(visitorId, deliver);
    if (closed) {
      subscription.close();
      return;
    }
    if (subscription.lost.aborted) res.end();
    else subscription.lost.addEventListener("abort", () => res.end(), { once: true });
    try {
      const replay = await this.events.since(visitorId, lastEventId);
      const waiting = pending;
      pending = undefined;
      for (const event of [...replay, ...waiting]) deliver(event);
    } catch (error) {
      subscription.close();
      throw error;
    }
  }

  async #show(visitorId: string, id: string, text: OutgoingText): Promise<void> {
    const event: WebChatEvent = {
      type: "message",
      id,
      text: text.text,
      format: text.format,
      html: text.format === "plain" ? plainToWebHtml(text.text) : markdownToWebHtml(text.text),
      quickReplies: text.quickReplies,
      at: new Date().toISOString(),
      streaming: text.partial === true ? true : undefined,
      retryAt: text.retryAt?.toISOString(),
    };
    await this.#append(visitorId, id, event);
  }

  /** Cards as an event of their own, with the actions whose buttons the widget draws under each, and their labels. */
  async #sendCards(
    target: ReplyTarget,
    cards: readonly ListingCard[],
    actions: readonly CardAction[],
    labels: CardLabels | undefined,
  ) {
    const id = `c${randomBytes(12).toString("base64url")}`;
    const event: WebChatEvent = {
      type: "cards",
      id,
      cards: [...cards],
      actions: [...actions],
      labels,
      at: new Date().toISOString(),
    };
    await this.#append(target.chatId, id, event);
    return { id };
  }

  async #append(visitorId: string, message: string | undefined, event: WebChatEvent): Promise<void> {
    try {
      await this.events.append(visitorId, { message, data: event }, RETENTION);
    } catch (error) {
      throw new ChannelError("transient", "the web chat's event log could not be written", undefined, { cause: error });
    }
  }
}

function write(res: Response, event: LoggedVisitorEvent): void {
  res.write(`id: ${event.id}\ndata: ${JSON.stringify(event.data)}\n\n`);
}
