import { findBacktickRun, runLength } from "./code-spans.js";

/** An inline link as written: which URLs may become links is the renderer's policy, not the parser's. */
export interface ParsedLink {
  /** The raw label between the brackets, still to be parsed as inline markdown. */
  label: string;
  /** The destination, trimmed, without its angle brackets or title. */
  url: string;
  /** Index just after the closing `)`. */
  end: number;
}

/** `[label](url "title")` starting at the `[`; undefined when it is not a complete link. */
export function parseLink(text: string, open: number): ParsedLink | undefined {
  let depth = 0;
  let close = -1;
  for (let k = open; k < text.length; k++) {
    const c = text[k];
    if (c === "\\") k++;
    else if (c === "`") {
      // A code span in the label hides its brackets.
      const run = runLength(text, k, "`");
      const end = findBacktickRun(text, k + run, run);
      k = end === -1 ? k + run - 1 : end + run - 1;
    } else if (c === "[") depth++;
    else if (c === "]" && --depth === 0) {
      close = k;
      break;
    }
  }
  if (close === -1 || text[close + 1] !== "(") return undefined;
  let parens = 1;
  let k = close + 2;
  for (; k < text.length && parens > 0; k++) {
    const c = text[k];
    if (c === "\\") k++;
    else if (c === "(") parens++;
    else if (c === ")") parens--;
    else if (c === "\n") return undefined;
  }
  if (parens > 0) return undefined;
  const target = /^<([^<>\n]*)>|^(\S*)/.exec(text.slice(close + 2, k - 1).trim());
  return { label: text.slice(open + 1, close), url: (target?.[1] ?? target?.[2] ?? "").trim(), end: k };
}
