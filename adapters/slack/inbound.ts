import { cardTapMessage, type InboundMessage, type MediaRef, type ReplyTarget } from "../../src/plugin/plugin-api.js";
import { CONTENT_SUBTYPES } from "./schema.js";

/** The bot as Slack knows it (from auth.test): needed to drop its own messages and to see mentions of it. */
export interface SlackBotIdentity {
  /** The bot user's id (`U…`), as in `<@U…>` mentions. */
  userId: string;
  /** The bot's id (`B…`), set on the messages it posts. */
  botId?: string | undefined;
}

/** What one Events API event means for the bridge. */
export type ParsedSlackEvent = { kind: "message"; message: InboundMessage } | { kind: "ignored"; reason: string };

/** Where the parsed messages are said to come from. */
export interface SlackEventContext {
  bot: SlackBotIdentity;
  /** The bot of this deployment (`default` unless several are configured). */
  botId: string;
  /** The workspace the event came from (the envelope's team_id), for streaming answers into channels. */
  teamId?: string | undefined;
  /** The message is in a channel thread the bot takes part in ({@link SlackThreads}): no mention needed. */
  joinedThread?: boolean | undefined;
  now?: () => Date;
}

/** The fields of a Slack message event the bridge reads (https://docs.slack.dev/reference/events/message). */
export interface SlackMessageEvent {
  type: string;
  subtype?: string;
  user?: string;
  bot_id?: string;
  text?: string;
  ts: string;
  thread_ts?: string;
  channel: string;
  channel_type?: string;
  team?: string;
  files?: SlackFile[];
}

interface SlackFile {
  id: string;
  name?: string;
  mimetype?: string;
  size?: number;
  url_private_download?: string;
  url_private?: string;
}

const CHANNEL = "slack";

/**
 * Reads a `message` or `app_mention` event. Direct messages (`channel_type` `im`) are all answered, in the thread
 * they were written in (assistant threads) or in the DM itself. In channels only messages that mention the bot,
 * or follow up in a thread the bot takes part in, count, and the answer goes in the message's thread (a new one
 * under the message when it was not in a thread); the mention is removed from the question. A mention arrives twice (`message` and `app_mention`, with different
 * event ids), so the event id the bridge deduplicates on is the message's channel and `ts`, which also covers
 * Slack's retries. The bot's own messages and other bots are ignored. A new assistant thread is greeted.
 */
export function parseSlackEvent(
  event: SlackMessageEvent | AssistantThreadStarted,
  context: SlackEventContext,
): ParsedSlackEvent {
  if (isThreadStarted(event)) return threadStarted(event, context);
  if (event.type !== "message" && event.type !== "app_mention")
    return { kind: "ignored", reason: `${event.type} event` };
  if (event.subtype !== undefined && !CONTENT_SUBTYPES.has(event.subtype)) {
    return { kind: "ignored", reason: `${event.subtype} message` };
  }
  if (event.bot_id !== undefined || !event.user) return { kind: "ignored", reason: "not from a person" };
  if (event.user === context.bot.userId) return { kind: "ignored", reason: "the bot's own message" };
  const direct = event.channel_type === "im" || event.channel.startsWith("D");
  const mention = `<@${context.bot.userId}>`;
  const raw = event.text ?? "";
  if (!direct && !raw.includes(mention) && !context.joinedThread) {
    return { kind: "ignored", reason: "channel message not addressed to the bot" };
  }
  const media = (event.files ?? []).map(mediaOf);
  const text = tidy(raw.replaceAll(mention, ""));
  if (text === "" && media.length === 0) return { kind: "ignored", reason: "nothing but the mention" };
  const recipient = { userId: event.user, teamId: event.team ?? context.teamId };
  const target: ReplyTarget = direct
    ? { chatId: event.channel, isGroup: false, threadId: event.thread_ts, recipient }
    : {
        chatId: event.channel,
        isGroup: true,
        threadId: event.thread_ts ?? event.ts,
        replyToMessageId: event.ts,
        recipient,
      };
  return {
    kind: "message",
    message: {
      channel: CHANNEL,
      botId: context.botId,
      eventId: `${event.channel}:${event.ts}`,
      target,
      user: { id: event.user, handle: `<@${event.user}>`, link: conversationLink(recipient.teamId, event.channel) },
      text: decodeEntities(text),
      media,
      receivedAt: context.now?.() ?? new Date(),
    },
  };
}

function isThreadStarted(event: SlackMessageEvent | AssistantThreadStarted): event is AssistantThreadStarted {
  return event.type === "assistant_thread_started";
}

/** Opens the conversation in Slack's web client (which hands over to the desktop app). */
function conversationLink(teamId: string | undefined, channel: string): string | undefined {
  return teamId ? `https://app.slack.com/client/${teamId}/${channel}` : undefined;
}

/** https://docs.slack.dev/reference/events/assistant_thread_started */
export interface AssistantThreadStarted {
  type: "assistant_thread_started";
  event_ts?: string;
  assistant_thread: { user_id: string; channel_id: string; thread_ts: string };
}

/**
 * A person opened a new assistant thread with the app: the bridge greets them as it greets `/start`, with the
 * chatbot's WelcomeMessage and its suggested questions (which Slack shows as the thread's suggested prompts).
 */
function threadStarted(event: AssistantThreadStarted, context: SlackEventContext): ParsedSlackEvent {
  const { user_id: userId, channel_id: channel, thread_ts: threadTs } = event.assistant_thread;
  return {
    kind: "message",
    message: {
      channel: CHANNEL,
      botId: context.botId,
      eventId: `${channel}:${threadTs}:started`,
      target: { chatId: channel, isGroup: false, threadId: threadTs, recipient: { userId, teamId: context.teamId } },
      user: { id: userId },
      text: "/start",
      media: [],
      receivedAt: context.now?.() ?? new Date(),
    },
  };
}

/** Slack escapes `&`, `<` and `>` in message text; the chatbot reads what the person typed. */
function decodeEntities(text: string): string {
  return text.replaceAll("&lt;", "<").replaceAll("&gt;", ">").replaceAll("&amp;", "&");
}

/** Joins what was around a removed mention: "<@bot>, hi" → "hi". */
function tidy(text: string): string {
  return text
    .replace(/[ \t]{2,}/g, " ")
    .replace(/^[\s,:;]+/, "")
    .trim();
}

function mediaOf(file: SlackFile): MediaRef {
  const mime = file.mimetype ?? "";
  const kind: MediaRef["kind"] = mime.startsWith("image/")
    ? "image"
    : mime.startsWith("audio/")
      ? "audio"
      : mime.startsWith("video/")
        ? "video"
        : "document";
  return {
    kind,
    // The private download URL is the handle: the channel fetches it with the bot token (files:read).
    platformId: file.url_private_download ?? file.url_private ?? file.id,
    mimeType: file.mimetype,
    sizeBytes: file.size,
    fileName: file.name,
  };
}

/**
 * The action ids of a listing card's buttons: `chatbridge_card_<action>`, and `chatbridge_card_details` for its link.
 * A tap on a listing card's button (`chatbridge_card_<action>`, its value `card:<action>:<MLS>`): the question it
 * stands for, asked in the conversation the card was posted in, like a quick reply. The Details link's tap (Slack
 * reports link buttons too) is ignored: the browser opened the page.
 */
export const CARD_ACTION = /^chatbridge_card_[a-z_]+$/;

/** A listing card's tap as the message it stands for (see {@link CARD_ACTION}). */
export function parseCardTap(click: QuickReplyClick, context: SlackEventContext): ParsedSlackEvent {
  const action = click.actions.find((candidate) => CARD_ACTION.test(candidate.action_id));
  const tap = cardTapMessage(action?.value ?? "");
  if (!action || !tap) return { kind: "ignored", reason: "not a listing card's action" };
  const parsed = parseQuickReply(
    {
      ...click,
      actions: [{ ...action, action_id: "chatbridge_quick_reply_0", value: tap.text }],
    },
    context,
  );
  if (parsed.kind !== "message") return parsed;
  return { kind: "message", message: { ...parsed.message, button: tap.button } };
}

/** The action id prefix of the quick-reply buttons the channel attaches (`chatbridge_quick_reply_<n>`). */
export const QUICK_REPLY_ACTION = /^chatbridge_quick_reply_\d+$/;

/** The fields of a `block_actions` payload the bridge reads (https://docs.slack.dev/reference/interaction-payloads/block_actions-payload). */
export interface QuickReplyClick {
  user: { id: string; team_id?: string };
  team?: { id: string } | null;
  channel?: { id: string };
  message?: { ts: string; thread_ts?: string };
  actions: { action_id: string; value?: string; action_ts: string }[];
}

/**
 * A tap on a quick-reply button: the question on the button, asked by whoever tapped it, in the conversation the
 * buttons were posted in (the DM, or the thread of the message). The tap's own time makes the event id, so two taps
 * ask twice and a redelivered one once.
 */
export function parseQuickReply(click: QuickReplyClick, context: SlackEventContext): ParsedSlackEvent {
  const action = click.actions.find((candidate) => QUICK_REPLY_ACTION.test(candidate.action_id));
  const channel = click.channel?.id;
  const message = click.message;
  if (!action?.value || !channel || !message) return { kind: "ignored", reason: "not a quick reply" };
  const direct = channel.startsWith("D");
  const recipient = { userId: click.user.id, teamId: click.user.team_id ?? click.team?.id ?? context.teamId };
  const target: ReplyTarget = direct
    ? { chatId: channel, isGroup: false, threadId: message.thread_ts, recipient }
    : { chatId: channel, isGroup: true, threadId: message.thread_ts ?? message.ts, recipient };
  return {
    kind: "message",
    message: {
      channel: CHANNEL,
      botId: context.botId,
      eventId: `${channel}:${message.ts}:${action.action_ts}`,
      target,
      user: { id: click.user.id },
      text: action.value,
      media: [],
      receivedAt: context.now?.() ?? new Date(),
    },
  };
}
