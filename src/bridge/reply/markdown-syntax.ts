/** The markdown constructs the reply pipeline tracks (see `markdown-scan.ts`), and code point boundaries. */

/** An inline construct the scanner opened. */
export interface Span {
  kind: "emphasis" | "code" | "link";
  /** The opening delimiter: `**`, `__`, `*`, `_`, `~~`, a backtick run, or `[`. */
  delim: string;
  /** Index of the opening delimiter (of the `!` for an image). */
  start: number;
  /** Index just after the opening delimiter. */
  end: number;
  /** `open` where the scan stopped, `closed` when matched, `dead` when it turned out to be literal text. */
  state: "open" | "closed" | "dead";
  /** Links: inside `(…)` after `](`, with the depth of nested parentheses. */
  inUrl?: boolean;
  parens?: number;
}

/** A fenced code block (an unclosed one runs to the end of the text, as in CommonMark). */
export interface Fence {
  indent: string;
  /** The fence itself, e.g. ```` ``` ```` or `~~~~`. */
  marker: string;
  /** The info string (language), trimmed. */
  info: string;
  start: number;
  /** Index of the first content line. */
  contentStart: number;
  closed: boolean;
}

/** How good a place to split: a paragraph end beats a line end, a sentence end, a word end. */
export type BoundaryKind = "paragraph" | "line" | "sentence" | "word";

/** A place where the text may be split: the next piece starts at `index`. */
export interface Boundary {
  index: number;
  kind: BoundaryKind;
  /** The code block the boundary lies in, if any. */
  fence: Fence | undefined;
  /** Inline spans open there (their final `state` tells whether they were real). */
  spans: readonly Span[];
}

export interface ScanResult {
  /** The code block still open at the end. */
  fence: Fence | undefined;
  /** Inline spans open at the end, outermost first (partial scans only; a complete text has none). */
  spans: Span[];
  /** Partial scans: where trailing syntax that may still grow begins (`text.length` when none). */
  holdFrom: number;
  /** Split points, in order (only when asked for). */
  boundaries: Boundary[];
}

export interface ScanOptions {
  /** The text is a streamed prefix: constructs open at the end may still close. */
  partial: boolean;
  boundaries?: boolean;
}

/** Largest index ≤ `index` that does not separate the halves of a surrogate pair. */
export function codePointBoundary(text: string, index: number): number {
  if (index <= 0) return 0;
  const at = Math.min(index, text.length);
  return isHighSurrogate(text.charCodeAt(at - 1)) ? at - 1 : at;
}

export function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
