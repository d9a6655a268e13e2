import { scanMarkdown } from "./markdown-scan.js";
import { type Boundary, codePointBoundary, type Fence, type Span } from "./markdown-syntax.js";
import { closeFence, closeSpans, reopenFence } from "./partial-markdown.js";

export interface SplitOptions {
  /** The channel's limit per message, in `measure` units. */
  maxLength: number;
  /** Length as the channel counts it (e.g. after rendering markdown to entities); `text.length` by default. */
  measure?: (text: string) => number;
  /** Units kept free below `maxLength`, for what `measure` cannot foresee (default 0). */
  margin?: number;
  /** The text is still streaming: spans open at its end will close later and must not be split either. */
  partial?: boolean;
  /** The first `minCut` characters (markup reopened from the previous piece) are never a piece on their own. */
  minCut?: number;
}

/** One split: `head` is a finished piece; the next piece is `reopen` + `text.slice(restStart)`. */
export interface SplitCut {
  head: string;
  reopen: string;
  restStart: number;
}

/** A limit below which no sensible piece (closing and reopening markup included) fits. */
const MIN_LIMIT = 32;
/** A better kind of boundary wins over a later one only if the piece stays at least this full. */
const MIN_FILL = 0.5;

const KIND_RANK = { paragraph: 5, line: 4, sentence: 2, word: 1 } as const;

/**
 * Splits markdown into pieces that each fit `maxLength` after `margin`: at paragraph ends, else line ends,
 * else sentence ends, else between words, never inside a link or inline code, and inside emphasis only when
 * nothing else fits (then closed and reopened). A code block split across pieces is closed and reopened with
 * its language. Text that fits is returned as it is, in one piece.
 */
export function splitMarkdown(text: string, options: SplitOptions): string[] {
  const pieces: string[] = [];
  let rest = text;
  let minCut = options.minCut ?? 0;
  for (;;) {
    const cut = splitOnce(rest, { ...options, minCut });
    if (!cut) {
      if (rest.slice(minCut).trim() !== "") pieces.push(rest);
      return pieces;
    }
    pieces.push(cut.head);
    rest = cut.reopen + rest.slice(cut.restStart);
    minCut = cut.reopen.length;
  }
}

/** The first split of `text`, or `undefined` when it fits as it is. */
export function splitOnce(text: string, options: SplitOptions): SplitCut | undefined {
  const measure = options.measure ?? ((t: string) => t.length);
  const limit = options.maxLength - (options.margin ?? 0);
  if (limit < MIN_LIMIT) throw new RangeError(`a message limit of ${limit} leaves no room to split markdown`);
  if (measure(text) <= limit) return undefined;
  const partial = options.partial ?? false;
  const minCut = options.minCut ?? 0;
  const fits = (cut: SplitCut) => measure(cut.head) <= limit;

  const candidates = candidatesOf(text, partial, minCut);
  const lastFit = lastIndexWhere(candidates.length, (k) => fits(cutAt(text, candidates[k] as Candidate)));
  const fallback = candidates[lastFit];
  if (!fallback) return hardCut(text, minCut, fits);
  let best = fallback;
  for (let k = lastFit - 1; k >= 0; k--) {
    const candidate = candidates[k] as Candidate;
    if (candidate.index < fallback.index * MIN_FILL) break;
    if (candidate.rank > best.rank) best = candidate;
  }
  const cut = cutAt(text, best);
  return fits(cut) ? cut : cutAt(text, fallback);
}

/**
 * Where the finished blocks of a still-streaming text end: the last paragraph end that is outside code blocks,
 * links and emphasis, with at least `minLength` characters before it (so a message is not a lone short line), or
 * undefined when there is none yet. A paragraph counts as finished once the blank line after it arrived.
 */
export function finishedBlocksEnd(text: string, minLength: number): number | undefined {
  let end: number | undefined;
  for (const boundary of scanMarkdown(text, { partial: true, boundaries: true }).boundaries) {
    if (boundary.kind !== "paragraph" || boundary.fence || boundary.spans.length > 0) continue;
    if (boundary.index >= minLength && boundary.index < text.length) end = boundary.index;
  }
  return end;
}

interface Candidate {
  index: number;
  rank: number;
  fence: Fence | undefined;
  emphasis: Span[];
}

/** Boundaries where a piece may end, in order, with the emphasis open there; links and code are never cut. */
function candidatesOf(text: string, partial: boolean, minCut: number): Candidate[] {
  const real = (span: Span) => span.state === "closed" || (partial && span.state === "open");
  const candidates: Candidate[] = [];
  for (const boundary of scanMarkdown(text, { partial, boundaries: true }).boundaries) {
    if (boundary.index <= minCut || boundary.index >= text.length) continue;
    const spans = boundary.spans.filter(real);
    if (spans.some((span) => span.kind !== "emphasis")) continue;
    if (text.slice(minCut, boundary.index).trim() === "") continue;
    candidates.push({
      index: boundary.index,
      rank: rankOf(boundary, spans.length > 0),
      fence: boundary.fence,
      emphasis: spans,
    });
  }
  return candidates;
}

function rankOf(boundary: Boundary, inEmphasis: boolean): number {
  const rank = boundary.fence ? (boundary.kind === "paragraph" ? 3.5 : 3) : KIND_RANK[boundary.kind];
  return inEmphasis ? rank - 10 : rank;
}

function cutAt(text: string, candidate: Candidate): SplitCut {
  const { index, fence, emphasis } = candidate;
  if (fence) {
    const head = closeFence(text.slice(0, index), fence);
    return {
      head: typeof head === "string" ? head : text.slice(0, index),
      reopen: reopenFence(fence),
      restStart: index,
    };
  }
  const head = closeSpans(text.slice(0, index).trimEnd(), emphasis);
  const reopen = emphasis.map((span) => span.delim).join("");
  let restStart = index;
  // Reopened emphasis must touch the word it applies to; otherwise only blank lines go.
  while (restStart < text.length && (text[restStart] === "\n" || (reopen && /\s/.test(text[restStart] ?? "")))) {
    restStart++;
  }
  return { head: typeof head === "string" ? head : text.slice(0, index).trimEnd(), reopen, restStart };
}

/** No boundary fits (a giant word or link): cut at the last character that fits, closing what is open. */
function hardCut(text: string, minCut: number, fits: (cut: SplitCut) => boolean): SplitCut {
  const cutBefore = (index: number): SplitCut => {
    const at = codePointBoundary(text, index);
    const prefix = text.slice(0, at);
    const scan = scanMarkdown(prefix, { partial: true });
    if (scan.fence) {
      const head = closeFence(prefix, scan.fence);
      return { head: typeof head === "string" ? head : prefix, reopen: reopenFence(scan.fence), restStart: at };
    }
    const inline = scan.spans.filter((span) => span.kind !== "link");
    const closed = closeSpans(prefix, inline);
    const reopen = inline.map((span) => span.delim).join("");
    return { head: typeof closed === "string" ? closed : prefix, reopen, restStart: at };
  };
  const first = minCut + (codePointBoundary(text, minCut + 1) > minCut ? 1 : 2);
  const count = text.length - first;
  const last = lastIndexWhere(count, (k) => fits(cutBefore(first + k)));
  return cutBefore(first + Math.max(0, last));
}

/** The largest k in [0, count) with `ok(k)`, assuming `ok` holds up to some k and not after; -1 if none. */
function lastIndexWhere(count: number, ok: (k: number) => boolean): number {
  let low = 0;
  let high = count - 1;
  let found = -1;
  while (low <= high) {
    const mid = (low + high) >>> 1;
    if (ok(mid)) {
      found = mid;
      low = mid + 1;
    } else high = mid - 1;
  }
  return found;
}
