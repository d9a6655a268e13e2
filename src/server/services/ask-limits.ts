import type { Chatbot } from "../domain.js";
import { ApiError } from "../http/api-error.js";
import type { ApiStore } from "../store/api-store.js";
import { monthStart } from "./zoned-time.js";

/**
 * Refuses a question when the chatbot's limits are reached: RateLimitCount questions per RateLimitTime
 * seconds (a sliding window; 0 = no limit) answer 429 with the owner's RateLimitMessage as `Message`, so a
 * client that shows `Message` shows the owner's words; MessageLimit questions per calendar month in the
 * chatbot's TimeZone (-1 = unlimited) answer 429 saying so.
 */
export async function enforceLimits(store: ApiStore, chatbot: Chatbot, now: Date): Promise<void> {
  const { RateLimitCount, RateLimitTime, RateLimitMessage, MessageLimit, TimeZone } = chatbot.settings;
  if (RateLimitCount > 0) {
    const since = new Date(now.getTime() - RateLimitTime * 1000);
    if ((await store.messages.countSince(chatbot.id, "User", since)) >= RateLimitCount) {
      throw new ApiError(429, RateLimitMessage || `At most ${RateLimitCount} messages per ${RateLimitTime} seconds`);
    }
  }
  if (MessageLimit >= 0) {
    const used = await store.messages.countSince(chatbot.id, "User", monthStart(now, TimeZone));
    if (used >= MessageLimit) {
      throw new ApiError(429, `This chatbot has used its MessageLimit of ${MessageLimit} messages for this month`);
    }
  }
}
