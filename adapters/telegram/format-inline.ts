/**
 * Inline markdown (emphasis, code spans, links, escapes) → Telegram HTML. Code spans and links are found
 * first, then emphasis is matched over what is left with CommonMark's delimiter rules (flanking, the rule of
 * three), so `2 * 3`, `snake_case_name` and an unbalanced `**` stay literal instead of breaking the message.
 */

import { type Delimiter, type EmphasisStyle, matchEmphasis } from "../../src/markdown/emphasis.js";
import { type CodeNode, type InlineScan, type TextNode, tokenize } from "../../src/markdown/inline-tokens.js";

/**
 * Tags an inline run may be inside. One is never nested in itself, and none contains `<code>`: Telegram's
 * entities "bold, italic, underline, strikethrough, and spoiler … can contain … any other entities, except pre and
 * code"; "all other entities can't contain each other" (https://core.telegram.org/bots/api#formatting-options).
 */
export type InlineTag = "b" | "i" | "s" | "a";

interface LinkNode {
  t: "link";
  href: string | undefined;
  label: Node[];
}

type Node = TextNode | CodeNode | LinkNode | { t: "span"; tag: EmphasisStyle; children: Node[] } | Delimiter;

const AUTOLINK = /^<((?:https?|tg):\/\/[^\s<>]*)>/i;
/** Link schemes Telegram opens safely; `javascript:`, `data:`, `file:` and the rest become plain text. */
const SAFE_SCHEME = /^(?:https?|tg):\/\/[^\s\p{Cc}]+$/iu;

/** Renders one inline run (a paragraph, list item, heading, table cell) as Telegram HTML. */
export function renderInline(text: string, active: ReadonlySet<InlineTag>): string {
  return render(parse(text, active.has("a")), active);
}

/** Escapes text for Telegram HTML: `&`, `<` and `>` are the only characters its parser reserves. */
export function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/** The link target as an attribute value, or undefined when it is not an http(s) or tg link. */
export function safeHref(url: string): string | undefined {
  const trimmed = url.trim();
  if (!SAFE_SCHEME.test(trimmed)) return undefined;
  return escapeHtml(trimmed).replace(/"/g, "&quot;");
}

/** Telegram's links and autolinks: only a URL `safeHref` accepts gets an href, the rest render as their label. */
const SCAN: InlineScan<LinkNode> = {
  link: (link) => {
    const label: Node[] = link.label.trim() ? parse(link.label, true) : [{ t: "text", v: link.url }];
    return { t: "link", href: safeHref(link.url), label };
  },
  autolink: (text, at) => {
    const auto = text[at] === "<" ? AUTOLINK.exec(text.slice(at)) : null;
    if (auto?.[1] === undefined) return undefined;
    return { node: { t: "link", href: safeHref(auto[1]), label: [{ t: "text", v: auto[1] }] }, length: auto[0].length };
  },
};

/** The nodes of an inline run, emphasis matched; inside a link's label (`inLink`) nothing links again. */
function parse(text: string, inLink: boolean): Node[] {
  return matchEmphasis<Node>(tokenize(text, inLink, SCAN), (tag, children) => ({ t: "span", tag, children }));
}

function render(nodes: Node[], active: ReadonlySet<InlineTag>): string {
  let html = "";
  for (const node of nodes) {
    switch (node.t) {
      case "text":
        html += escapeHtml(node.v);
        break;
      case "delim":
        html += node.ch.repeat(node.len);
        break;
      case "code":
        // Telegram lets no entity contain code except a blockquote: inside bold or a link it stays plain text.
        html += node.v === "" || active.size > 0 ? escapeHtml(node.v) : `<code>${escapeHtml(node.v)}</code>`;
        break;
      case "link": {
        const label = render(node.label, new Set([...active, "a"]));
        html += node.href === undefined || label === "" ? label : `<a href="${node.href}">${label}</a>`;
        break;
      }
      case "span": {
        const inner = render(node.children, new Set([...active, node.tag]));
        html += active.has(node.tag) || inner === "" ? inner : `<${node.tag}>${inner}</${node.tag}>`;
        break;
      }
    }
  }
  return html;
}
