import { scanMarkdown } from "./markdown-scan.js";
import { codePointBoundary, type Fence, type Span } from "./markdown-syntax.js";

export { codePointBoundary };

/**
 * Makes a streamed prefix of a markdown answer safe to show. Syntax that may still grow is held back (an
 * unfinished link `[text](ur`, a delimiter run at the very end, a half-typed fence line, a trailing backslash,
 * half a surrogate pair); what is open is closed (a code fence, inline code, `**`, `__`, `*`, `_`, `~~`), and
 * an opener with nothing after it yet is held back rather than closed empty. Text the scanner already knows is
 * literal (say, an unmatched `*` in an earlier paragraph) is shown as it is. The result is `""` when nothing is
 * showable yet. Pure; O(length) per call in the usual case.
 */
export function safePartialMarkdown(text: string): string {
  let shown = text;
  for (;;) {
    const scan = scanMarkdown(shown, { partial: true });
    if (scan.holdFrom < shown.length) {
      shown = shown.slice(0, scan.holdFrom);
      continue;
    }
    const closed = scan.fence ? closeFence(shown, scan.fence) : closeSpans(shown, scan.spans);
    if (typeof closed === "number") {
      shown = shown.slice(0, closed); // an empty construct: show the text before it, try again
      continue;
    }
    // Trailing whitespace is invisible (platforms trim it) and would only cost an edit when a space arrives.
    const trimmed = closed.trimEnd();
    return /[*_~`\\]$/.test(trimmed) && trimmed !== closed ? closed : trimmed;
  }
}

/** The text with what `spans` leaves open closed, or the index to cut at when the innermost span is empty. */
export function closeSpans(text: string, spans: readonly Span[]): string | number {
  const top = spans.at(-1);
  let body = text;
  let suffix = "";
  let rest = spans;
  if (top?.kind === "code") {
    if (text.slice(top.end).trim() === "") return top.start;
    suffix = top.delim;
    rest = spans.slice(0, -1);
  } else if (spans.length > 0) {
    // A closing `**` after a space would not close anything: close right after the last visible character.
    body = text.trimEnd();
    // Nor would one that merges with a literal `*` or `\` before it: hold that character back too.
    const literal = /(?:[*_~]+|\\)$/.exec(body);
    if (literal) return literal.index;
  }
  for (let k = rest.length - 1; k >= 0; k--) {
    const span = rest[k];
    if (span?.kind !== "emphasis") continue;
    if (suffix === "" && body.length <= span.end) return span.start;
    suffix += span.delim;
  }
  return body + suffix;
}

/** The text with its open code block closed, or the index to cut at when the block has no content yet. */
export function closeFence(text: string, fence: Fence): string | number {
  if (text.length <= fence.contentStart || text.slice(fence.contentStart).trim() === "") return fence.start;
  return `${text}${text.endsWith("\n") ? "" : "\n"}${fence.indent}${fence.marker}`;
}

/** What reopens `fence` at the top of the next message: the same fence and language. */
export function reopenFence(fence: Fence): string {
  return `${fence.indent}${fence.marker}${fence.info}\n`;
}

/**
 * The text received so far, made well-formed without dropping anything: a trailing half surrogate pair is
 * removed and an open code block is closed. Used when a stream breaks and the partial answer must be kept.
 */
export function salvagePartialMarkdown(text: string): string {
  const whole = text.slice(0, codePointBoundary(text, text.length));
  const { fence } = scanMarkdown(whole, { partial: false });
  if (!fence) return whole;
  const closed = closeFence(whole, fence);
  return typeof closed === "string" ? closed : whole;
}
