import {
  cardTapMessage,
  type InboundMessage,
  type MediaRef,
  type Refusal,
  type ReplyTarget,
} from "../../src/plugin/plugin-api.js";
import {
  readUpdate,
  type TelegramEntity,
  type TelegramMessage,
  type TelegramUpdate,
  type TelegramUser,
} from "./schema.js";

/** The bot as Telegram knows it (from getMe): needed to tell whether a group message addresses it. */
export interface BotIdentity {
  id: number;
  /** Without the `@`. */
  username: string;
}

/** A stop request: the user pressed stop on a streaming draft. */
export type CancelRequest = Pick<InboundMessage, "channel" | "botId" | "target" | "user">;

/** What one update means for the bridge. */
export type ParsedUpdate =
  /** `callbackQueryId`: the tap it came from, which Telegram waits to see answered (answerCallbackQuery). */
  | { kind: "message"; message: InboundMessage; callbackQueryId?: string | undefined }
  /** A tap on a button the bridge does not know (an old keyboard): answered, and nothing else. */
  | { kind: "tap"; callbackQueryId: string }
  | { kind: "cancel"; request: CancelRequest }
  | { kind: "ignored"; reason: string }
  | { kind: "malformed"; refusal: Refusal };

/** Where the parsed messages are said to come from. */
export interface UpdateContext {
  bot: BotIdentity;
  /** The bot of this deployment (`default` unless several are configured). */
  botId: string;
  /** Clock for `receivedAt`; `new Date()` by default. */
  now?: () => Date;
}

const CHANNEL = "telegram";

/**
 * Reads a Telegram `Update` (https://core.telegram.org/bots/api#update), first checked against the schema of the
 * fields the bridge reads ({@link readUpdate}): one that does not fit is `malformed` and nothing of it is used (a
 * chat id of "abc" must not become a conversation). A new `message` with text, a caption
 * or media becomes an {@link InboundMessage} whose `eventId` is the update_id (Telegram re-delivers an update
 * until it is acknowledged, so the bridge deduplicates on it). In groups only messages addressed to the bot
 * count: an `@mention` (removed from the text), a reply to one of its messages, or a command. Edits, channel
 * posts, other bots and service messages are ignored. `stopped_message_generation` (the stop button on a
 * draft, https://core.telegram.org/bots/api#messagegenerationstopped) becomes a cancel request.
 */
export function parseUpdate(body: unknown, context: UpdateContext): ParsedUpdate {
  const read = readUpdate(body);
  if (!read.ok) return { kind: "malformed", refusal: read };
  const update = read.update;
  if (update.stopped_message_generation) {
    const { chat, message_thread_id } = update.stopped_message_generation;
    const target: ReplyTarget = { chatId: String(chat.id), isGroup: false, threadId: optionalId(message_thread_id) };
    // Drafts exist only in private chats, where the chat id is the user's id.
    return {
      kind: "cancel",
      request: { channel: CHANNEL, botId: context.botId, target, user: { id: String(chat.id) } },
    };
  }
  if (update.callback_query) return parseTap(update, update.callback_query, context);
  const message = update.message;
  if (!message) return { kind: "ignored", reason: ignoredKind(update) };
  const from = message.from;
  if (!from || from.is_bot) return { kind: "ignored", reason: "not from a person" };
  if (message.is_automatic_forward) return { kind: "ignored", reason: "automatic forward from a channel" };
  const chatType: string = message.chat.type;
  const media = mediaOf(message);
  const raw = message.text ?? message.caption ?? sharedText(message);
  if (raw === undefined && media.length === 0) return { kind: "ignored", reason: "service or unsupported message" };
  const entities = (message.text !== undefined ? message.entities : message.caption_entities) ?? [];
  const isGroup = chatType === "group" || chatType === "supergroup";
  const addressed = addressing(raw ?? "", entities, message, context.bot);
  if (isGroup && !addressed.toBot) return { kind: "ignored", reason: "group message not addressed to the bot" };
  const target: ReplyTarget = {
    chatId: String(message.chat.id),
    isGroup,
    threadId: message.is_topic_message ? optionalId(message.message_thread_id) : undefined,
    replyToMessageId: isGroup ? String(message.message_id) : undefined,
  };
  return {
    kind: "message",
    message: {
      channel: CHANNEL,
      botId: context.botId,
      eventId: String(update.update_id),
      target,
      user: {
        id: String(from.id),
        name: displayName(from),
        handle: from.username ? `@${from.username}` : undefined,
        link: from.username ? `https://t.me/${from.username}` : undefined,
      },
      text: addressed.text,
      media,
      album: message.media_group_id,
      receivedAt: context.now?.() ?? new Date(),
    },
  };
}

/**
 * A tap on a listing card's button (https://core.telegram.org/bots/api#callbackquery) as the message it stands for,
 * in the chat of the card it was under: its event id is the update_id, like a message's. In a group the answer
 * replies to the card. A tap whose data is not a card's, or whose card Telegram no longer sends along, is only
 * answered.
 */
function parseTap(
  update: TelegramUpdate,
  query: NonNullable<TelegramUpdate["callback_query"]>,
  context: UpdateContext,
): ParsedUpdate {
  const tap = cardTapMessage(query.data ?? "");
  const card = query.message;
  if (!tap || !card || query.from.is_bot) return { kind: "tap", callbackQueryId: query.id };
  const isGroup = card.chat.type === "group" || card.chat.type === "supergroup";
  return {
    kind: "message",
    callbackQueryId: query.id,
    message: {
      channel: CHANNEL,
      botId: context.botId,
      eventId: String(update.update_id),
      target: {
        chatId: String(card.chat.id),
        isGroup,
        threadId: card.is_topic_message ? optionalId(card.message_thread_id) : undefined,
        replyToMessageId: isGroup ? String(card.message_id) : undefined,
      },
      user: {
        id: String(query.from.id),
        name: displayName(query.from),
        handle: query.from.username ? `@${query.from.username}` : undefined,
        link: query.from.username ? `https://t.me/${query.from.username}` : undefined,
      },
      text: tap.text,
      media: [],
      button: tap.button,
      receivedAt: context.now?.() ?? new Date(),
    },
  };
}

interface Addressing {
  toBot: boolean;
  /** The text with the bot's mentions removed and a command's `@botname` dropped. */
  text: string;
}

/** Whether a message addresses the bot, and its text without the mention. Entity offsets are UTF-16 units, as in JS. */
function addressing(text: string, entities: TelegramEntity[], message: TelegramMessage, bot: BotIdentity): Addressing {
  const handle = `@${bot.username}`.toLowerCase();
  let toBot = isReplyToBot(message, bot);
  let result = text;
  // Right to left, so earlier offsets stay valid while cutting.
  for (const entity of [...entities].sort((a, b) => b.offset - a.offset)) {
    const piece = text.slice(entity.offset, entity.offset + entity.length);
    const mentionsBot =
      (entity.type === "mention" && piece.toLowerCase() === handle) ||
      (entity.type === "text_mention" && entity.user?.id === bot.id);
    if (mentionsBot) {
      toBot = true;
      result = result.slice(0, entity.offset) + result.slice(entity.offset + entity.length);
    } else if (entity.type === "bot_command" && entity.offset === 0) {
      // `/cmd@otherbot` is for another bot; `/cmd` and `/cmd@ourbot` are for us.
      const at = piece.indexOf("@");
      if (at === -1) toBot = true;
      else if (piece.slice(at).toLowerCase() === handle) {
        toBot = true;
        result = result.slice(0, at) + result.slice(entity.length);
      }
    }
  }
  return { toBot, text: tidy(result) };
}

/**
 * A reply to one of the bot's messages. In forum topics every message "replies" to the topic's creation
 * message, which is not a reply to the bot even when the bot created the topic.
 */
function isReplyToBot(message: TelegramMessage, bot: BotIdentity): boolean {
  const replied = message.reply_to_message;
  if (!replied || replied.forum_topic_created) return false;
  return replied.from?.id === bot.id;
}

/** Joins what was around a removed mention: "@bot, hi" → "hi"; "hi @bot there" → "hi there". */
function tidy(text: string): string {
  return text
    .replace(/[ \t]{2,}/g, " ")
    .replace(/^[\s,:;]+/, "")
    .trim();
}

/**
 * The files a message carries (at most one kind per message). A photo comes in several sizes; the last is the
 * largest (https://core.telegram.org/bots/api#photosize). Animations also set `document` (an MP4). Stickers, bare
 * map pins, polls, dice and games cannot be forwarded: they become an `unsupported` item, which the bridge answers
 * with the text saying what it can read instead of staying silent.
 */
function mediaOf(message: TelegramMessage): MediaRef[] {
  const photo = message.photo?.at(-1);
  if (photo) return [{ kind: "image", platformId: photo.file_id, mimeType: "image/jpeg", sizeBytes: photo.file_size }];
  type File = {
    file_id: string;
    mime_type?: string | undefined;
    file_size?: number | undefined;
    file_name?: string | undefined;
    duration?: number | undefined;
  };
  const files: [MediaRef["kind"], File][] = [];
  if (message.voice) files.push(["voice", message.voice]);
  if (message.audio) files.push(["audio", message.audio]);
  if (message.video) files.push(["video", message.video]);
  if (message.video_note) files.push(["video", { ...message.video_note, mime_type: "video/mp4" }]);
  if (message.document) files.push(["document", message.document]);
  const [first] = files;
  if (first) {
    const [kind, file] = first;
    return [
      {
        kind,
        platformId: file.file_id,
        mimeType: file.mime_type,
        sizeBytes: file.file_size,
        durationSeconds: file.duration,
        fileName: file.file_name,
      },
    ];
  }
  const label = message.sticker
    ? "sticker"
    : message.location && !message.venue
      ? "location"
      : message.poll
        ? "poll"
        : message.dice
          ? "dice"
          : message.game
            ? "game"
            : undefined;
  return label ? [{ kind: "unsupported", label, platformId: String(message.message_id) }] : [];
}

/**
 * A shared place or contact as a line of text the chatbot can use (an address, a phone number); a map pin without a
 * name or address means nothing to it and is refused instead (see {@link mediaOf}).
 */
function sharedText(message: TelegramMessage): string | undefined {
  if (message.venue) return `📍 ${[message.venue.title, message.venue.address].filter(Boolean).join(", ")}`;
  const contact = message.contact;
  if (contact)
    return `Contact: ${[contact.first_name, contact.last_name, contact.phone_number].filter(Boolean).join(" ")}`;
  return undefined;
}

function displayName(user: TelegramUser): string | undefined {
  const name = [user.first_name, user.last_name].filter(Boolean).join(" ").trim();
  return name || user.username || undefined;
}

function optionalId(id: number | undefined): string | undefined {
  return id === undefined ? undefined : String(id);
}

function ignoredKind(update: TelegramUpdate): string {
  const kind = Object.keys(update).find((key) => key !== "update_id");
  return kind ? `${kind} update` : "empty update";
}
