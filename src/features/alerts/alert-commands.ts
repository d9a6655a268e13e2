/** An alerts command in a user's message. */
export type AlertCommand =
  /** `/alert`: starts the guided flow that saves a search. */
  | { kind: "alert" }
  /** `/alerts`: lists the saved searches. */
  | { kind: "list" }
  /** `/alerts remove <n>`: removes the n-th saved search (1-based, as listed). */
  | { kind: "remove"; index: number }
  /** `/stop` or "stop" alone: ends every alert (the opt-out every channel honours). */
  | { kind: "stop" };

/**
 * Recognises the alerts commands, in any letter case and also as Telegram's `/alerts@botname`; "stop" counts only
 * as the whole message, so that a question mentioning it still goes to the chatbot.
 */
export function alertCommandIn(text: string): AlertCommand | undefined {
  const trimmed = text.trim();
  if (/^stop[.!]?$/i.test(trimmed)) return { kind: "stop" };
  const slash = /^\/(alerts?|stop)(?:@\w+)?(?:\s+(.*))?$/is.exec(trimmed);
  if (!slash) return undefined;
  const name = slash[1]?.toLowerCase();
  if (name === "stop") return { kind: "stop" };
  if (name === "alert") return { kind: "alert" };
  const remove = /^remove\s+#?(\d+)$/i.exec(slash[2]?.trim() ?? "");
  return remove ? { kind: "remove", index: Number(remove[1]) } : { kind: "list" };
}
