/** A bridge command in a user's message: `/start` greets, `/reset` (or the reset keyword) starts afresh. */
export type BridgeCommand = "start" | "reset";

/**
 * Recognises `/start` and `/reset` (also as Telegram's `/reset@botname`), and the configured reset keyword
 * sent alone, in any letter case.
 */
export function commandIn(text: string, resetKeyword: string | undefined): BridgeCommand | undefined {
  const trimmed = text.trim();
  const slash = /^\/(start|reset)(@\w+)?(\s|$)/i.exec(trimmed);
  if (slash) return slash[1]?.toLowerCase() as BridgeCommand;
  if (resetKeyword && trimmed.toLowerCase() === resetKeyword.trim().toLowerCase()) return "reset";
  return undefined;
}
