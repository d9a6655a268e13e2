import { setImmediate as nextTurn } from "node:timers/promises";
import type { EngineEvent } from "../types.js";

/** Words per fragment: a few at a time reads like typing without one event per word. */
const WORDS_PER_FRAGMENT = 3;

/**
 * Splits a text into fragments of a few words that concatenate back to it exactly. Cuts fall only after
 * whitespace, so no word or URL is ever split, and a line end closes a fragment so lines arrive whole.
 */
export function fragmentsOf(text: string): string[] {
  const fragments: string[] = [];
  let current = "";
  let words = 0;
  for (const word of text.split(/(?<=\s)(?=\S)/)) {
    current += word;
    // Leading whitespace of the text comes as a piece of its own; it is no word.
    if (word.trim() !== "") words++;
    if (words >= WORDS_PER_FRAGMENT || word.includes("\n")) {
      fragments.push(current);
      current = "";
      words = 0;
    }
  }
  if (current !== "") fragments.push(current);
  return fragments;
}

/**
 * Yields a text as `text` events. Between fragments it waits one event-loop turn: a consumer pulling in a tight
 * loop would otherwise starve I/O, and the socket close that fires `signal` would only be seen after the end.
 * Once `signal` has fired nothing more is yielded.
 */
export async function* streamFragments(text: string, signal: AbortSignal): AsyncGenerator<EngineEvent> {
  for (const fragment of fragmentsOf(text)) {
    if (signal.aborted) return;
    yield { type: "text", text: fragment };
    await nextTurn();
  }
}
