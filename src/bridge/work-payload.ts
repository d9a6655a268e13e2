import type { PendingAlert } from "../features/alerts/saved-searches.js";
import type { InboundMessage, MediaRef, ReplyTarget } from "./inbound.js";

/**
 * What a work item of a conversation asks the bridge to do, as stored (JSON): answer a user's message, or act on the
 * conversation's handoff in its turn — so that a timeout, a late mail or an operator's resume never races a message
 * of the same conversation, whichever instance handles which.
 */
export type WorkPayload =
  | { kind: "message"; message: StoredMessage }
  | { kind: "handoff"; action: HandoffAction; target: ReplyTarget; channel: string; botId: string }
  | { kind: "alert"; action: AlertAction; target: ReplyTarget; channel: string; botId: string };

/** A conversation's alert event, handled in the conversation's order (after a /stop sent before it, say). */
export type AlertAction =
  /** A listing event matched one of its saved searches: sent now, or kept until it may go. */
  | { type: "event"; alert: PendingAlert }
  /** The alerts kept may go now. */
  | { type: "flush" };

/** A conversation's handoff event, handled in the conversation's order. */
export type HandoffAction =
  /** The handoff's time is up (`until` names which handoff). */
  | { type: "timeout"; until: number }
  /** Follow-ups written since `followUpKey` are due to be mailed. */
  | { type: "follow-ups"; followUpKey: string }
  /** A retry settled the handoff mail `mailId`. */
  | { type: "mail-settled"; mailId: string; outcome: "sent" | "failed"; confirmation: string }
  /** An operator gave the conversation back to the bot. */
  | { type: "resume" };

/** An InboundMessage as JSON: its dates as epoch milliseconds. */
export interface StoredMessage extends Omit<InboundMessage, "receivedAt" | "sentAt"> {
  receivedAt: number;
  sentAt?: number | undefined;
}

/** The payload of a user's message. */
export function messagePayload(message: InboundMessage): WorkPayload {
  const { receivedAt, sentAt, ...rest } = message;
  return {
    kind: "message",
    message: { ...rest, receivedAt: receivedAt.getTime(), ...(sentAt && { sentAt: sentAt.getTime() }) },
  };
}

/**
 * Reads a stored payload back. Items written by another version, or damaged, come back undefined: the bridge drops
 * them with a log line rather than stopping the conversation behind them.
 */
export function readPayload(payload: unknown): WorkPayload | undefined {
  if (typeof payload !== "object" || payload === null) return undefined;
  const value = payload as Partial<WorkPayload>;
  if (value.kind === "message" && isStoredMessage(value.message)) return value as WorkPayload;
  if (
    (value.kind === "handoff" || value.kind === "alert") &&
    typeof value.action?.type === "string" &&
    isTarget(value.target)
  ) {
    return value as WorkPayload;
  }
  return undefined;
}

/** The message of a message payload, with its date. */
export function inboundMessage(stored: StoredMessage): InboundMessage {
  const { receivedAt, sentAt, ...rest } = stored;
  return {
    ...rest,
    receivedAt: new Date(receivedAt),
    ...(typeof sentAt === "number" && { sentAt: new Date(sentAt) }),
  };
}

function isStoredMessage(value: unknown): value is StoredMessage {
  const message = value as Partial<StoredMessage> | undefined;
  return (
    typeof message?.channel === "string" &&
    typeof message.botId === "string" &&
    typeof message.eventId === "string" &&
    typeof message.text === "string" &&
    typeof message.receivedAt === "number" &&
    Array.isArray(message.media) &&
    message.media.every(isMediaRef) &&
    isTarget(message.target) &&
    typeof message.user?.id === "string"
  );
}

function isMediaRef(value: unknown): value is MediaRef {
  const media = value as Partial<MediaRef> | undefined;
  return typeof media?.kind === "string" && typeof media.platformId === "string";
}

function isTarget(value: unknown): value is ReplyTarget {
  const target = value as Partial<ReplyTarget> | undefined;
  return typeof target?.chatId === "string" && typeof target.isGroup === "boolean";
}
