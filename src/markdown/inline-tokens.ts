/**
 * The first pass of inline parsing: backslash escapes, code spans, links and delimiter runs, in one left-to-right
 * scan. Links and autolinks become whatever node the renderer builds (its URL policy decides what may link);
 * emphasis is matched afterwards over the delimiter runs left between them.
 */

import { codeSpanContent, findBacktickRun, runLength } from "./code-spans.js";
import { type Delimiter, flanking } from "./emphasis.js";
import { type ParsedLink, parseLink } from "./inline-links.js";

const ESCAPABLE = /[!-/:-@[-`{-~]/;

/** Literal text, already unescaped. */
export interface TextNode {
  t: "text";
  v: string;
}

/** A code span's content. */
export interface CodeNode {
  t: "code";
  v: string;
}

/** What a renderer adds to the scan: its link nodes, its autolinks, its word rule for delimiters. */
export interface InlineScan<L> {
  /** The node for a complete `[label](url)`, or `![alt](url)` read as a link to the image. */
  link(link: ParsedLink): L;
  /** The autolink (or bare URL) starting at `at` and its length, or undefined when there is none. */
  autolink(text: string, at: number): { node: L; length: number } | undefined;
  /** Characters between which `*` and `~~` are text; see `flanking`. */
  wordChar?: (ch: string) => boolean;
}

/** Splits `text` into text, code, link and delimiter nodes; inside a link's label (`inLink`) nothing links again. */
export function tokenize<L>(
  text: string,
  inLink: boolean,
  scan: InlineScan<L>,
): (TextNode | CodeNode | Delimiter | L)[] {
  const nodes: (TextNode | CodeNode | Delimiter | L)[] = [];
  let plainText = "";
  // A `[` after the last `]` cannot start a link: not trying keeps a run of brackets from costing quadratic time.
  const lastBracket = text.lastIndexOf("]");
  const push = (node: CodeNode | Delimiter | L) => {
    if (plainText !== "") nodes.push({ t: "text", v: plainText });
    plainText = "";
    nodes.push(node);
  };
  for (let k = 0; k < text.length; ) {
    const c = text[k] as string;
    if (c === "\\" && ESCAPABLE.test(text[k + 1] ?? "")) {
      plainText += text[k + 1];
      k += 2;
      continue;
    }
    if (c === "`") {
      const run = runLength(text, k, "`");
      const close = findBacktickRun(text, k + run, run);
      if (close === -1) {
        plainText += "`".repeat(run);
        k += run;
        continue;
      }
      push({ t: "code", v: codeSpanContent(text.slice(k + run, close)) });
      k = close + run;
      continue;
    }
    if (!inLink && k < lastBracket && (c === "[" || (c === "!" && text[k + 1] === "["))) {
      const link = parseLink(text, c === "!" ? k + 1 : k);
      if (link) {
        push(scan.link(link));
        k = link.end;
        continue;
      }
    }
    const auto = inLink ? undefined : scan.autolink(text, k);
    if (auto) {
      push(auto.node);
      k += auto.length;
      continue;
    }
    if (c === "*" || c === "_" || c === "~") {
      const run = runLength(text, k, c);
      // Only `~~` strikes through; a lone `~` (about, approximately) is text.
      if (c === "~" && run !== 2) plainText += c.repeat(run);
      else push(flanking(text, k, run, c, scan.wordChar));
      k += run;
      continue;
    }
    plainText += c;
    k += 1;
  }
  if (plainText !== "") nodes.push({ t: "text", v: plainText });
  return nodes;
}
