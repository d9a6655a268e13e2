import { ChatbotApiError, type ChatbotSettings } from "../client/index.js";

/** What a user reads when the chatbot's limits refuse a question and neither the chatbot nor the API words it. */
export const DEFAULT_LIMIT_TEXT = "Sorry, I can't take more questions right now. Please try again a little later.";

/** Whether the chatbot API refused a question for its limits (RateLimitCount per RateLimitTime, MessageLimit). */
export function isLimitRefusal(error: unknown): error is ChatbotApiError {
  return error instanceof ChatbotApiError && error.status === 429 && error.envelope;
}

/**
 * What the user reads when the chatbot's rate or monthly limit refused their question: the chatbot owner's
 * `RateLimitMessage`; where the settings cannot be read (the hosted platform has no `Get`), the refusal's own
 * `Message`, which the API fills with the same text; else a plain default. When the API said when questions are
 * taken again (Retry-After), the user is told.
 */
export function limitRefusalText(error: ChatbotApiError, settings: ChatbotSettings | undefined): string {
  const words = settings?.RateLimitMessage?.trim() || shortSentence(error.detail) || DEFAULT_LIMIT_TEXT;
  const after = error.retryAfterMs;
  if (after === undefined || after <= 0) return words;
  const minutes = Math.ceil(after / 60_000);
  const when = after < 60_000 ? "in a minute" : minutes < 120 ? `in about ${minutes} minutes` : "in a few hours";
  return `${words} You can write again ${when}.`;
}

function shortSentence(text: string): string | undefined {
  const trimmed = text.trim();
  return trimmed && trimmed.length <= 300 ? trimmed : undefined;
}
