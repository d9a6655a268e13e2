/**
 * Inline chatbot markdown (emphasis, code spans, links and autolinks, backslash escapes) → WhatsApp formatting.
 *
 * The CommonMark parsing, the inline nodes and the stray-marker lookalikes are shared in `src/markdown/`; what is
 * WhatsApp's is here: links written out as text, and the word boundaries a span needs. WhatsApp formats only where a
 * marker has a space, punctuation or the line's edge outside and a non-space inside; where the chatbot's emphasis
 * would have a letter outside (`**bold**word`), the span is dropped for its plain text rather than leaving markers on
 * screen.
 */

import {
  angleAutolink,
  bareUrl,
  type ChatNode,
  type LinkNode,
  linkNode,
  MARKUP,
  parseChatInline,
  plainText,
  wrap,
} from "../../src/markdown/chat-inline.js";
import type { EmphasisStyle } from "../../src/markdown/emphasis.js";
import type { InlineScan } from "../../src/markdown/inline-tokens.js";
import { GRAVE, strayPlaceholders } from "../../src/markdown/strays.js";

const EMAIL = /<([\w.+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+)>/y;
/** Only these are shown as links; `javascript:`, `data:` and the rest keep just their text. */
const SAFE_URL = /^(?:https?:\/\/|mailto:)[^\s\p{Cc}]+$/iu;
/** What may stand outside a marker: whitespace or punctuation, but no marker (ours or a stray placeholder). */
const BOUNDARY = /[\s\p{P}]/u;
const NOT_BOUNDARY = /[*_~`\ue000-\ue003]/;

/** One inline run (paragraph, list item, quote line) as WhatsApp text, literal markers still placeholders. */
export function renderInline(text: string): string {
  return render(parse(text), new Set(), "", "");
}

/** A heading: the run in bold, when WhatsApp can show it so. */
export function renderHeading(text: string): string {
  const children = parse(text);
  return render([{ t: "span", mark: "b", children, depth: 1 }], new Set(), "", "");
}

/** The text of an inline run without markup, links as "text (url)", for table cells. */
export function plainInline(text: string): string {
  return plain(parse(text));
}

/** WhatsApp links bare URLs and e-mail addresses itself: links keep their address, shown after the text. */
const SCAN: InlineScan<LinkNode> = {
  link: (link) => linkNode(link, shownUrl(link.url), SCAN),
  autolink: (text, at) => {
    const c = text[at];
    if (c === "<") return angleAutolink(text, at, EMAIL, shownUrl);
    // A bare URL is kept as it is, so that its `_` and `*` are neither emphasis nor lookalikes.
    return c === "h" || c === "H" ? bareUrl(text, at, trimUrl, (url) => url) : undefined;
  },
  // `2*3*4` is arithmetic, not emphasis WhatsApp could not show anyway; between letters CommonMark's rules stand, so
  // that `**bold**word` is matched and then shown plain rather than with stray markers.
  wordChar: (ch) => /\p{N}/u.test(ch),
};

function parse(text: string): ChatNode[] {
  return parseChatInline(text, false, SCAN);
}

/** GFM's autolink rule: trailing punctuation, and a closing parenthesis without an opening one, end the URL. */
function trimUrl(url: string): string {
  const open = url.split("(").length - 1;
  let close = url.split(")").length - 1;
  let end = url.length;
  for (;;) {
    const last = url[end - 1] ?? "";
    if (/[?!.,:;*_~'"]/.test(last) || (last === ")" && close > open)) {
      if (last === ")") close--;
      end--;
    } else return url.slice(0, end);
  }
}

/** The address as shown (a `mailto:` without its scheme), or undefined for a scheme not shown. */
function shownUrl(url: string): string | undefined {
  const trimmed = url.trim();
  if (!SAFE_URL.test(trimmed)) return undefined;
  return trimmed.replace(/^mailto:/i, "");
}

function boundary(ch: string): boolean {
  return ch === "" || (BOUNDARY.test(ch) && !NOT_BOUNDARY.test(ch));
}

/**
 * Renders `nodes` between `left` and `right`, the characters just outside them in the message ("" for a line's
 * edge or a marker of the enclosing span): each span knows what it will touch before it decides to show markers.
 */
function render(nodes: ChatNode[], active: ReadonlySet<EmphasisStyle>, left: string, right: string): string {
  let out = "";
  // The last character is kept aside: reading it back from the growing string would flatten it every time.
  let last = left;
  for (let k = 0; k < nodes.length; k++) {
    const next = nodes[k + 1];
    const piece = renderNode(nodes[k] as ChatNode, active, last, next === undefined ? right : firstChar(next));
    if (piece === "") continue;
    out += piece;
    last = piece.at(-1) ?? "";
  }
  return out;
}

function renderNode(node: ChatNode, active: ReadonlySet<EmphasisStyle>, before: string, after: string): string {
  switch (node.t) {
    case "text":
      return strayPlaceholders(node.v);
    case "delim":
      return strayPlaceholders(node.ch.repeat(node.len));
    case "code": {
      const code = node.v.trim();
      // Outside word boundaries the backticks would show: the code is shown as plain text instead.
      if (code === "" || !boundary(before) || !boundary(after)) return strayPlaceholders(node.v);
      return `\`${code.replace(/`/g, GRAVE)}\``;
    }
    case "link":
      if (node.url === undefined) return render(node.label, active, before, after);
      if (isBare(node)) return node.url;
      return `${render(node.label, active, before, " ")} (${node.url})`;
    case "span": {
      // A style inside itself adds nothing; an address at the end could take the closing marker into the link.
      const shown = !active.has(node.mark) && boundary(before) && boundary(after) && !endsWithLink(node.children);
      if (!shown) return render(node.children, active, before, after);
      const inner = render(node.children, new Set([...active, node.mark]), "", "");
      return inner.trim() === "" ? inner : wrap(inner, MARKUP[node.mark]);
    }
  }
}

/** The first character a node renders as, or a marker when that depends on how it renders (not a boundary). */
function firstChar(node: ChatNode): string {
  switch (node.t) {
    case "text":
      return node.v[0] ?? "";
    case "delim":
      return node.ch;
    case "code":
      return node.v !== "" && node.v.trim() === "" ? " " : "`";
    case "link":
      return node.url !== undefined && isBare(node) ? (node.url[0] ?? "") : firstChar(node.label[0] as ChatNode);
    case "span":
      return MARKUP[node.mark];
  }
}

/** Whether a link is shown as its address alone: its text is the address (with or without `mailto:`). */
function isBare(node: LinkNode): node is LinkNode & { url: string } {
  const label = plain(node.label);
  return node.url !== undefined && (label === node.url || label === `mailto:${node.url}`);
}

function endsWithLink(nodes: ChatNode[]): boolean {
  const last = nodes.at(-1);
  return last?.t === "link" ? last.url !== undefined : last?.t === "span" && endsWithLink(last.children);
}

/** The text of inline nodes without markup; a link's address follows its text unless they are the same. */
function plain(nodes: ChatNode[]): string {
  return plainText(nodes, (link) => !isBare(link));
}
