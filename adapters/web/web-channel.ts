import type { Response } from "express";
import {
  type Channel,
  type ChannelCapabilities,
  ChannelError,
  type ChannelLimits,
  type OutgoingText,
  type SentMessage,
} from "../../src/bridge/channel.js";
import type { ReplyTarget } from "../../src/bridge/inbound.js";

/** What the page receives over Server-Sent Events. */
export type WebChatEvent =
  | { type: "message"; id: string; text: string; format: OutgoingText["format"]; quickReplies?: string[] | undefined }
  | { type: "typing" };

interface Visitor {
  /** The last events, replayed to a page that reconnects with Last-Event-ID. */
  recent: { seq: number; event: WebChatEvent }[];
  pages: Set<Response>;
  seq: number;
  lastSeen: number;
}

/** How many events a visitor's page can catch up on after a reconnect. */
const REPLAY_EVENTS = 200;
/** Visitors with no page open for this long are forgotten. */
const VISITOR_TTL_MS = 60 * 60 * 1000;

/**
 * The built-in web chat as a channel: each visitor (a random id the page keeps in localStorage) has an event
 * stream; sends and edits become events the page renders. Messages can be edited, so answers grow in place.
 */
export class WebChannel implements Channel {
  readonly name = "web";
  readonly limits: ChannelLimits = {
    perChat: { perSecond: 20, burst: 20 },
    perGroup: { perSecond: 20, burst: 20 },
    perBot: { perSecond: 5000, burst: 5000 },
    minUpdateIntervalMs: { private: 50, group: 50 },
  };
  readonly #visitors = new Map<string, Visitor>();
  #messageSeq = 0;

  constructor(readonly botId = "default") {}

  capabilities(): ChannelCapabilities {
    return { canEdit: true, nativeDraft: false, maxTextLength: 50_000, quickReplies: true };
  }

  async send(target: ReplyTarget, text: OutgoingText): Promise<SentMessage> {
    const id = `m${++this.#messageSeq}`;
    this.#emit(target.chatId, {
      type: "message",
      id,
      text: text.text,
      format: text.format,
      quickReplies: text.quickReplies,
    });
    return { id };
  }

  async edit(target: ReplyTarget, message: SentMessage, text: OutgoingText): Promise<void> {
    this.#emit(target.chatId, {
      type: "message",
      id: message.id,
      text: text.text,
      format: text.format,
      quickReplies: text.quickReplies,
    });
  }

  async draft(): Promise<void> {
    throw new ChannelError("rejected", "the web chat has no native drafts");
  }

  async typing(target: ReplyTarget): Promise<void> {
    this.#emit(target.chatId, { type: "typing" });
  }

  /** Streams a visitor's events to a page, first replaying those after `lastEventId`. */
  subscribe(visitorId: string, res: Response, lastEventId: number | undefined): void {
    const visitor = this.#visitor(visitorId);
    visitor.pages.add(res);
    for (const { seq, event } of visitor.recent)
      if (lastEventId === undefined || seq > lastEventId) write(res, seq, event);
    res.on("close", () => {
      visitor.pages.delete(res);
      visitor.lastSeen = Date.now();
    });
  }

  #visitor(visitorId: string): Visitor {
    let visitor = this.#visitors.get(visitorId);
    if (!visitor) {
      this.#forgetIdle();
      visitor = { recent: [], pages: new Set(), seq: 0, lastSeen: Date.now() };
      this.#visitors.set(visitorId, visitor);
    }
    return visitor;
  }

  #emit(visitorId: string, event: WebChatEvent): void {
    const visitor = this.#visitor(visitorId);
    const seq = ++visitor.seq;
    if (event.type === "message") {
      // Only the latest state of a message needs replaying; typing is never replayed.
      visitor.recent = visitor.recent.filter((entry) => entry.event.type === "message" && entry.event.id !== event.id);
      visitor.recent.push({ seq, event });
      if (visitor.recent.length > REPLAY_EVENTS) visitor.recent.shift();
    }
    visitor.lastSeen = Date.now();
    for (const page of visitor.pages) write(page, seq, event);
  }

  #forgetIdle(): void {
    const cutoff = Date.now() - VISITOR_TTL_MS;
    for (const [id, visitor] of this.#visitors)
      if (visitor.pages.size === 0 && visitor.lastSeen < cutoff) this.#visitors.delete(id);
  }
}

function write(res: Response, seq: number, event: WebChatEvent): void {
  res.write(`id: ${seq}\ndata: ${JSON.stringify(event)}\n\n`);
}
