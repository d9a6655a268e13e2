import type { InboundMessage } from "./inbound.js";

/** Whether group conversations share one chatbot session per thread or keep one per user. */
export type GroupSessionScope = "thread" | "user";

/**
 * The conversation a message belongs to, which maps to one chatbot session: per chat in private chats (so
 * per user); in groups per thread, or per user within the thread. Prefixed with channel and bot, so the same
 * chat id on two platforms or two bots never collides.
 */
export function conversationKey(
  message: Pick<InboundMessage, "channel" | "botId" | "target" | "user">,
  groupScope: GroupSessionScope,
): string {
  const { target } = message;
  const parts = [message.channel, message.botId, target.chatId];
  if (target.isGroup) {
    parts.push(target.threadId ?? "-");
    if (groupScope === "user") parts.push(message.user.id);
  }
  return parts.map((part) => encodeURIComponent(part)).join(":");
}
