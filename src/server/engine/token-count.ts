import { countTokens } from "gpt-tokenizer";

/** Special tokens such as `<|endoftext|>` typed by a user are plain text here, not a reason to throw. */
const PLAIN_TEXT = { disallowedSpecial: new Set<string>() };

/** Tokens of one text with the o200k encoding (GPT-4o and later), the same count for every engine. */
function tokensOf(text: string): number {
  return text === "" ? 0 : countTokens(text, PLAIN_TEXT);
}

/** The parts of one exchange: what the model read and what it wrote. */
export interface Exchange {
  system: string;
  history: { content: string }[];
  question: string;
  answer: string;
}

/** `totalToken` of an answer: prompt (system message, history, question) plus the answer. */
export function exchangeTokens(exchange: Exchange): number {
  let total = tokensOf(exchange.system) + tokensOf(exchange.question) + tokensOf(exchange.answer);
  for (const message of exchange.history) total += tokensOf(message.content);
  return total;
}
