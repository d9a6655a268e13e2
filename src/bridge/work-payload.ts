import type { InboundMessage, MediaRef, ReplyTarget } from "./inbound.js";

/**
 * What a work item of a conversation asks the bridge to do, as stored (JSON): answer a user's message, or run a
 * feature's work in the conversation's turn (a handoff's timeout, an alert) — so that such work never races a
 * message of the same conversation, whichever instance handles which.
 */
export type WorkPayload = MessagePayload | FeaturePayload;

/** A user's message to answer. */
export interface MessagePayload {
  kind: "message";
  message: StoredMessage;
}

/**
 * A feature's work in a conversation: `kind` names the feature's job that runs it (see Feature.jobs), `action`
 * what to do, and the place the conversation is reached at.
 */
export interface FeaturePayload {
  kind: string;
  action: { type: string };
  target: ReplyTarget;
  channel: string;
  botId: string;
}

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
  if (value.kind === "message" && isStoredMessage((value as Partial<MessagePayload>).message))
    return value as WorkPayload;
  const work = value as Partial<FeaturePayload>;
  if (
    typeof work.kind === "string" &&
    work.kind !== "message" &&
    typeof work.action?.type === "string" &&
    isTarget(work.target) &&
    typeof work.channel === "string" &&
    typeof work.botId === "string"
  ) {
    return value as WorkPayload;
  }
  return undefined;
}

/** Whether `payload` is a user's message (any other kind is a feature's work). */
export function isMessagePayload(payload: WorkPayload | undefined): payload is MessagePayload {
  return payload?.kind === "message";
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
