/**
 * A file the user sent, as the platform describes it; downloaded only when the media pipeline needs it. What the
 * platform declares (kind, type, size, duration) only serves to refuse early without a download: the bytes decide.
 * `unsupported` stands for what cannot be forwarded at all (a sticker, a bare map pin), named by `label`.
 */
export interface MediaRef {
  kind: "image" | "audio" | "voice" | "video" | "document" | "unsupported";
  /** The platform's handle (Telegram file_id, Slack file URL, WhatsApp media id). */
  platformId: string;
  mimeType?: string | undefined;
  sizeBytes?: number | undefined;
  /** Length of a recording or video in seconds, where the platform says it (Telegram). */
  durationSeconds?: number | undefined;
  fileName?: string | undefined;
  /** What an `unsupported` item is, for logs and metrics ("sticker", "location"). */
  label?: string | undefined;
}

/** Where a message came from and where its answer goes. */
export interface ReplyTarget {
  /** The platform's chat (Telegram chat id, Slack channel, WhatsApp number, web visitor). */
  chatId: string;
  /** Topic or thread inside the chat, when the platform has them. */
  threadId?: string | undefined;
  /** False for private chats (DMs), true for groups and channels. */
  isGroup: boolean;
  /** The user's message the answer replies to (groups), when the platform supports replies. */
  replyToMessageId?: string | undefined;
  /** The person the answer is for, where the platform needs it to stream into a group (Slack). */
  recipient?: { userId: string; teamId?: string | undefined } | undefined;
}

/**
 * One message from an end user, in the channel-agnostic form adapters produce and the bridge consumes.
 * `eventId` is the platform's delivery id (Telegram update_id, Slack event_id, WhatsApp message id): the
 * bridge processes each at most once.
 */
export interface InboundMessage {
  /** Channel name, e.g. `telegram`, `slack`, `whatsapp`, `web`. */
  channel: string;
  /** The bot of this deployment that received it (`default` or a name from BRIDGE_CONFIG). */
  botId: string;
  eventId: string;
  target: ReplyTarget;
  user: {
    id: string;
    name?: string | undefined;
    /** How people find the user on the platform: a Telegram @username, a WhatsApp phone number. */
    handle?: string | undefined;
    /** A link that opens a chat with the user (https://t.me/…, https://wa.me/…, the Slack conversation). */
    link?: string | undefined;
  };
  /** The text, or the caption of a media message; commands keep their slash (`/reset`). */
  text: string;
  media: MediaRef[];
  /**
   * Messages sent together that make one question: Telegram's media_group_id, or `images` for WhatsApp pictures
   * (which arrive as separate messages). The bridge waits briefly for the rest before asking once.
   */
  album?: string | undefined;
  /**
   * The id a tapped button carried back (Telegram callback_data, a WhatsApp reply id, a Slack action's value), for
   * the feature whose button it was (a listing card's `card:<action>:<MLS>`); `text` says what the tap stands for.
   */
  button?: string | undefined;
  receivedAt: Date;
  /**
   * When the user sent it, by the platform's own clock (WhatsApp's `timestamp`), where the adapter has it: the
   * free-form window of a channel that has one counts from here, else from `receivedAt`.
   */
  sentAt?: Date | undefined;
}

/** Where adapters hand their messages: the bridge, which answers at once and works in the background. */
export interface InboundSink {
  accept(message: InboundMessage): Promise<"accepted" | "duplicate" | "stopping">;
  /**
   * The user stopped the answer being generated in the message's conversation (Telegram's
   * `stopped_message_generation`): the upstream request is cancelled and the text shown so far is kept.
   */
  cancel(message: Pick<InboundMessage, "channel" | "botId" | "target" | "user">): void;
}
