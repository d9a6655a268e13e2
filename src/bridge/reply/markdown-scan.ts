/**
 * A small, forgiving scanner for the markdown chatbots write: code fences, inline code, links, emphasis
 * (`**`, `__`, `*`, `_`, `~~`) and backslash escapes, with CommonMark's flanking rules so that `2 * 3`,
 * `snake_case` and list bullets are not mistaken for emphasis. It is not a renderer: it only tells which
 * constructs are open where, so streamed text can be closed safely and long text split between constructs.
 */

import { closesFence, openingFence } from "../../markdown/fences.js";
import { isTableDelimiter, mayBecomeTableDelimiter } from "../../markdown/tables.js";
import {
  type Boundary,
  type BoundaryKind,
  type Fence,
  isHighSurrogate,
  type ScanOptions,
  type ScanResult,
  type Span,
} from "./markdown-syntax.js";

const SPECIAL = /[\n\\`[\]()*_~ \t。！？]/g;
const FENCE_PREFIX = /^[ \t]*(`{1,2}|~{1,2})$/;
const HEADING = /^ {0,3}#{1,6}(?:[ \t]|$)/;
const BLOCK_START = /^ {0,3}(?:#{1,6}(?:[ \t]|$)|[-+*](?:[ \t]|$)|\d{1,9}[.)](?:[ \t]|$)|>)/;
const BLANK = /^[ \t]*$/;
const PUNCTUATION = /[\p{P}\p{S}]/u;
const WHITESPACE = /\s/;
const ESCAPABLE = /[!-/:-@[-`{-~]/;
const SENTENCE_END = /[.!?…]/;
const SENTENCE_CLOSERS = /["'’”)\]*_~»]/;
const NONE: readonly Span[] = Object.freeze([]);

/** Scans `text` once, in O(length). */
export function scanMarkdown(text: string, options: ScanOptions): ScanResult {
  return new Scanner(text, options).run();
}

class Scanner {
  private readonly n: number;
  private readonly stack: Span[] = [];
  private readonly boundaries: Boundary[] = [];
  private fence: Fence | undefined;
  private holdFrom: number;
  private previousBlank = false;
  private previousClosedFence = false;

  constructor(
    private readonly text: string,
    private readonly options: ScanOptions,
  ) {
    this.n = text.length;
    this.holdFrom = text.length;
  }

  run(): ScanResult {
    const { text, n } = this;
    for (let start = 0; start <= n; ) {
      const newline = text.indexOf("\n", start);
      const end = newline === -1 ? n : newline;
      // Without a newline the last line of a partial text may still grow.
      const complete = newline !== -1 || !this.options.partial;
      const inlineFrom = this.lineStart(start, end, complete);
      if (inlineFrom !== undefined) this.inline(inlineFrom, end);
      if (newline === -1) break;
      this.lineEnd();
      start = newline + 1;
    }
    this.finish();
    return { fence: this.fence, spans: this.stack, holdFrom: this.holdFrom, boundaries: this.boundaries };
  }

  /** Handles block syntax at the start of a line; returns where inline scanning starts, if it does. */
  private lineStart(start: number, end: number, complete: boolean): number | undefined {
    const line = this.text.slice(start, end);
    const blank = BLANK.test(line);
    const fence = this.fence;
    if (fence) {
      const closes = closesFence(line, fence.marker);
      if (!closes && start > fence.contentStart) this.boundary(start, blank ? "paragraph" : "line");
      if (closes && complete) {
        fence.closed = true;
        this.fence = undefined;
        this.previousClosedFence = true;
      } else if (!complete && (closes || (FENCE_PREFIX.test(line) && line.trim()[0] === fence.marker[0]))) {
        this.hold(start); // a closing fence being typed
      }
      this.previousBlank = false;
      return undefined;
    }
    // Fences are read as the renderers' block parser reads them (`src/markdown/fences.ts`), tab-indented ones too.
    const open = openingFence(line);
    const opensFence = open !== undefined;
    if (start > 0) {
      const paragraph = this.previousBlank || this.previousClosedFence || opensFence || HEADING.test(line);
      this.boundary(start, paragraph ? "paragraph" : "line");
    }
    this.previousBlank = blank;
    this.previousClosedFence = false;
    if (blank) {
      this.inTable = false;
      this.endBlock();
      return undefined;
    }
    if (open) {
      if (!complete) this.hold(start); // the language may still be arriving
      this.endBlock();
      this.fence = {
        indent: open.indent,
        marker: open.marker,
        info: open.info.trim(),
        start,
        contentStart: end + 1,
        closed: false,
      };
      return undefined;
    }
    if (!complete && FENCE_PREFIX.test(line)) this.hold(start);
    this.tableLine(line, start, end, complete);
    if (BLOCK_START.test(line)) this.endBlock();
    this.inHeading = HEADING.test(line);
    return start;
  }

  private inHeading = false;
  /** The line before was a table's header or row: a line with `|` continues the table. */
  private inTable = false;

  /**
   * A line with `|` may be a table's header, which the renderers show as a table only once the delimiter row under
   * it arrived: until then it is held back, so that its pipes never show as text.
   */
  private tableLine(line: string, start: number, end: number, complete: boolean): void {
    const { text } = this;
    const nextEnd = text.indexOf("\n", end + 1);
    const next = complete ? text.slice(end + 1, nextEnd === -1 ? text.length : nextEnd) : "";
    const header = line.includes("|") && !this.inTable;
    if (header && this.options.partial && (!complete || (nextEnd === -1 && mayBecomeTableDelimiter(next)))) {
      this.hold(start);
    }
    this.inTable = line.includes("|") && (this.inTable || (complete && isTableDelimiter(next)));
  }

  private lineEnd(): void {
    const top = this.stack.at(-1);
    // A link destination cannot continue on the next line.
    if (top?.kind === "link" && top.inUrl) this.kill(this.stack.length - 1);
    if (this.inHeading) this.endBlock();
    this.inHeading = false;
  }

  private inline(from: number, end: number): void {
    const { text, n, stack } = this;
    const partialEnd = this.options.partial;
    SPECIAL.lastIndex = from;
    for (let match = SPECIAL.exec(text); match && match.index < end; match = SPECIAL.exec(text)) {
      const i = match.index;
      const ch = text[i] ?? "";
      const top = stack.at(-1);
      if (top?.kind === "code") {
        if (ch === "`") {
          const runEnd = this.runEnd(i, "`");
          if (partialEnd && runEnd === n)
            this.hold(i); // the run may still grow past the opener's length
          else if (runEnd - i === top.delim.length) {
            top.state = "closed";
            stack.pop();
          }
          SPECIAL.lastIndex = runEnd;
        }
        continue;
      }
      if (top?.kind === "link" && top.inUrl) {
        if (ch === "(") top.parens = (top.parens ?? 0) + 1;
        else if (ch === ")" && top.parens) top.parens -= 1;
        else if (ch === ")") {
          top.state = "closed";
          stack.pop();
        }
        continue;
      }
      if (ch === "\\") {
        if (i + 1 < end && ESCAPABLE.test(text[i + 1] ?? "")) SPECIAL.lastIndex = i + 2;
        else if (partialEnd && i + 1 === n) this.hold(i); // it may escape what comes next
      } else if (ch === "`") {
        const runEnd = this.runEnd(i, "`");
        if (partialEnd && runEnd === n) this.hold(i);
        else stack.push({ kind: "code", delim: text.slice(i, runEnd), start: i, end: runEnd, state: "open" });
        SPECIAL.lastIndex = runEnd;
      } else if (ch === "[") {
        if (!stack.some((span) => span.kind === "link")) {
          const start = i > 0 && text[i - 1] === "!" ? i - 1 : i;
          stack.push({ kind: "link", delim: "[", start, end: i + 1, state: "open" });
        }
      } else if (ch === "]") {
        this.closeLinkText(i);
      } else if (ch === "*" || ch === "_" || ch === "~") {
        SPECIAL.lastIndex = this.delimiterRun(i, ch);
      } else if (ch === " " || ch === "\t") {
        let j = i;
        while (text[j] === " " || text[j] === "\t") j++;
        if (i > from && j < end) this.boundary(j, this.endsSentence(i) ? "sentence" : "word");
        SPECIAL.lastIndex = j;
      } else if (ch === "。" || ch === "！" || ch === "？") {
        if (i + 1 < end) this.boundary(i + 1, "sentence");
      }
    }
  }

  private closeLinkText(i: number): void {
    const index = this.stack.findIndex((span) => span.kind === "link");
    const link = this.stack[index];
    if (!link) return;
    if (this.text[i + 1] === "(") {
      // Emphasis opened inside the link text cannot continue past it.
      for (let k = this.stack.length - 1; k > index; k--) this.kill(k);
      link.inUrl = true;
      link.parens = 0;
      SPECIAL.lastIndex = i + 2;
    } else if (!(this.options.partial && i + 1 === this.n)) {
      link.state = "dead"; // `[text]` without a destination is plain text
      this.stack.splice(index, 1);
    }
  }

  /** Applies a run of `*`, `_` or `~` as closer and/or opener; returns the index after the run. */
  private delimiterRun(i: number, ch: string): number {
    const { text, n } = this;
    const runEnd = this.runEnd(i, ch);
    if (this.options.partial && runEnd === n) {
      this.hold(i); // `*` may become `**`
      return runEnd;
    }
    const length = runEnd - i;
    let usable = ch === "~" ? (length === 2 ? 2 : 0) : length <= 3 ? length : 0;
    if (usable === 0) return runEnd;
    const before = i > 0 ? (text[i - 1] ?? " ") : " ";
    const after = runEnd < n ? (text[runEnd] ?? " ") : " ";
    const left = !isSpace(after) && (!isPunctuation(after) || isSpace(before) || isPunctuation(before));
    const right = !isSpace(before) && (!isPunctuation(before) || isSpace(after) || isPunctuation(after));
    // `_` may not open or close inside a word (snake_case), `*` may.
    const canOpen = ch === "_" ? left && (!right || isPunctuation(before)) : left;
    const canClose = ch === "_" ? right && (!left || isPunctuation(after)) : right;
    if (canClose) usable = this.closeEmphasis(ch, usable);
    if (canOpen && usable > 0) {
      let at = runEnd - usable;
      for (const size of usable === 3 ? [2, 1] : [usable]) {
        this.stack.push({ kind: "emphasis", delim: ch.repeat(size), start: at, end: at + size, state: "open" });
        at += size;
      }
    }
    return runEnd;
  }

  /** Closes open emphasis of the same character, innermost first; returns the delimiters left over. */
  private closeEmphasis(ch: string, count: number): number {
    const stack = this.stack;
    while (count > 0) {
      let k = stack.length - 1;
      while (k >= 0 && stack[k]?.kind === "emphasis" && stack[k]?.delim[0] !== ch) k--;
      const opener = stack[k];
      if (opener?.kind !== "emphasis" || opener.delim.length > count) break;
      for (let above = stack.length - 1; above > k; above--) this.kill(above);
      opener.state = "closed";
      stack.pop();
      count -= opener.delim.length;
    }
    return count;
  }

  private endsSentence(spaceAt: number): boolean {
    let k = spaceAt - 1;
    while (k > 0 && SENTENCE_CLOSERS.test(this.text[k] ?? "")) k--;
    return SENTENCE_END.test(this.text[k] ?? "");
  }

  private runEnd(i: number, ch: string): number {
    let j = i;
    while (this.text[j] === ch) j++;
    return j;
  }

  /** A block ended: whatever inline syntax is still open in it was literal text. */
  private endBlock(): void {
    for (let k = this.stack.length - 1; k >= 0; k--) this.kill(k);
  }

  private kill(k: number): void {
    const span = this.stack[k];
    if (span) span.state = "dead";
    this.stack.splice(k, 1);
  }

  private finish(): void {
    const { text, n } = this;
    if (!this.options.partial) {
      this.endBlock();
      return;
    }
    const link = this.stack.find((span) => span.kind === "link");
    if (link) this.hold(link.start); // `[text` or `[text](ur` may still become a link
    const last = text.charCodeAt(n - 1);
    if (isHighSurrogate(last) || last === 0x200d) this.hold(n - 1); // half a character, or a joiner mid-emoji
  }

  private boundary(index: number, kind: BoundaryKind): void {
    if (!this.options.boundaries) return;
    const spans = this.stack.length > 0 ? [...this.stack] : NONE;
    this.boundaries.push({ index, kind, fence: this.fence, spans });
  }

  private hold(index: number): void {
    if (index < this.holdFrom) this.holdFrom = index;
  }
}

function isSpace(ch: string): boolean {
  return WHITESPACE.test(ch);
}

function isPunctuation(ch: string): boolean {
  return PUNCTUATION.test(ch);
}
