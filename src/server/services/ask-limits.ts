import type { Chatbot } from "../domain.js";
import { ApiError } from "../http/api-error.js";
import type { ApiStore } from "../store/api-store.js";

/** The instant a calendar month starts in a time zone (MessageLimit counts per month in the chatbot's zone). */
export function monthStart(now: Date, timeZone: string): Date {
  const parts = new Intl.DateTimeFormat("en-US", { timeZone, year: "numeric", month: "numeric" }).formatToParts(now);
  const year = Number(parts.find((p) => p.type === "year")?.value);
  const month = Number(parts.find((p) => p.type === "month")?.value);
  const wallClock = Date.UTC(year, month - 1, 1);
  // The zone's offset at that wall-clock time, measured rather than assumed (DST changes it).
  let instant = wallClock;
  for (let i = 0; i < 2; i++) instant = wallClock - offsetAt(new Date(instant), timeZone);
  return new Date(instant);
}

function offsetAt(date: Date, timeZone: string): number {
  const parts = new Intl.DateTimeFormat("en-US", {
    timeZone,
    hourCycle: "h23",
    year: "numeric",
    month: "numeric",
    day: "numeric",
    hour: "numeric",
    minute: "numeric",
    second: "numeric",
  }).formatToParts(date);
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value);
  const asUtc = Date.UTC(get("year"), get("month") - 1, get("day"), get("hour"), get("minute"), get("second"));
  return asUtc - Math.floor(date.getTime() / 1000) * 1000;
}

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
