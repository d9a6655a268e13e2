import { HANDOFF_BUTTONS } from "./handoff-texts.js";

/** What a user's message says about talking to a person. */
export type HandoffIntent = "human" | "bot";

/** What gives the conversation back to the bot besides /bot, sent as the whole message (a handoff must not end by accident). */
const BOT_PHRASES = [
  "bot",
  "back to the bot",
  "talk to the bot",
  "talk to the assistant",
  "volver al bot",
  "hablar con el bot",
  "retour au bot",
  "voltar ao bot",
  "zurück zum bot",
];

/** One-word phrases ("agent") count only in messages this short, so "I am an agent myself" is not a request. */
const SHORT_MESSAGE_WORDS = 4;

/** Lower case, accents kept, punctuation turned into spaces: "Talk to a HUMAN, please!" → "talk to a human please". */
function normalise(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim();
}

/**
 * Whether a message asks for a person (`/human`, the offered button, or one of the configured phrases) or for the
 * bot back (`/bot`, or a message that is only "back to the bot", "volver al bot"… in one of five languages).
 * Phrases match as whole words anywhere in the message; a one-word phrase only when the message has at most four
 * words.
 */
export function handoffIntent(text: string, keywords: string[]): HandoffIntent | undefined {
  const slash = /^\/(human|bot)(@\w+)?(\s|$)/i.exec(text.trim());
  if (slash) return slash[1]?.toLowerCase() as HandoffIntent;
  const words = normalise(text);
  if (words === "") return undefined;
  if (HANDOFF_BUTTONS.some((button) => words === normalise(button))) return "human";
  if (BOT_PHRASES.includes(words)) return "bot";
  const short = words.split(" ").length <= SHORT_MESSAGE_WORDS;
  for (const keyword of keywords) {
    const phrase = normalise(keyword);
    if (phrase === "" || (!phrase.includes(" ") && !short)) continue;
    if (` ${words} `.includes(` ${phrase} `)) return "human";
  }
  return undefined;
}
