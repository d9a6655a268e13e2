/**
 * Inline markdown (emphasis, code spans, links, escapes) → the web chat's HTML, over the same inline scan as every
 * channel (`src/markdown/inline-tokens.ts`, `emphasis.ts`), so `2 * 3`, `snake_case_name` and an unbalanced `**` stay
 * literal here as on Telegram. Unlike Telegram, HTML nests freely; bare URLs are linked, since a page does not link
 * them by itself (listings end in their address).
 */

import { type Delimiter, type EmphasisStyle, matchEmphasis } from "../../src/markdown/emphasis.js";
import { type CodeNode, type InlineScan, type TextNode, tokenize } from "../../src/markdown/inline-tokens.js";

interface LinkNode {
  t: "link";
  href: string | undefined;
  label: Node[];
}

type Node = TextNode | CodeNode | LinkNode | { t: "span"; tag: EmphasisStyle; children: Node[] } | Delimiter;

const TAGS: Record<EmphasisStyle, string> = { b: "strong", i: "em", s: "del" };
const AUTOLINK = /^<((?:https?:\/\/|mailto:)[^\s<>]*)>/i;
/** A bare address: up to a space or a character that cannot end it unescaped in text. */
const BARE_URL = /^https?:\/\/[^\s<>"'`]+/i;
/** Punctuation that ends a sentence rather than the address before it. */
const TRAILING = /[.,;:!?)\]*_~]+$/;
/** Links a visitor may follow safely; `javascript:`, `data:` and the rest render as their label. */
const SAFE_SCHEME = /^(?:https?:\/\/|mailto:)[^\s\p{Cc}]+$/iu;

/** Renders one inline run (a paragraph, list item, heading, table cell) as HTML for the page. */
export function renderWebInline(text: string): string {
  return render(parse(text, false));
}

/** Escapes text for HTML content and attribute values. */
export function escapeWebHtml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] ?? c,
  );
}

function safeHref(url: string): string | undefined {
  const trimmed = url.trim();
  return SAFE_SCHEME.test(trimmed) ? escapeWebHtml(trimmed) : undefined;
}

const SCAN: InlineScan<LinkNode> = {
  link: (link) => {
    const label: Node[] = link.label.trim() ? parse(link.label, true) : [{ t: "text", v: link.url }];
    return { t: "link", href: safeHref(link.url), label };
  },
  autolink: (text, at) => {
    if (text[at] === "<") {
      const auto = AUTOLINK.exec(text.slice(at));
      if (auto?.[1] === undefined) return undefined;
      const node: LinkNode = { t: "link", href: safeHref(auto[1]), label: [{ t: "text", v: auto[1] }] };
      return { node, length: auto[0].length };
    }
    if ((text[at] !== "h" && text[at] !== "H") || /[\p{L}\p{N}]/u.test(text[at - 1] ?? "")) return undefined;
    const bare = BARE_URL.exec(text.slice(at))?.[0].replace(TRAILING, "");
    if (!bare || bare.length <= "https://".length) return undefined;
    return { node: { t: "link", href: safeHref(bare), label: [{ t: "text", v: bare }] }, length: bare.length };
  },
};

/** The nodes of an inline run, emphasis matched; inside a link's label (`inLink`) nothing links again. */
function parse(text: string, inLink: boolean): Node[] {
  return matchEmphasis<Node>(tokenize(text, inLink, SCAN), (tag, children) => ({ t: "span", tag, children }));
}

function render(nodes: Node[]): string {
  let html = "";
  for (const node of nodes) {
    switch (node.t) {
      case "text":
        html += escapeWebHtml(node.v);
        break;
      case "delim":
        html += node.ch.repeat(node.len);
        break;
      case "code":
        html += node.v === "" ? "" : `<code>${escapeWebHtml(node.v)}</code>`;
        break;
      case "link": {
        const label = render(node.label);
        html +=
          node.href === undefined || label === ""
            ? label
            : `<a href="${node.href}" target="_blank" rel="noopener noreferrer">${label}</a>`;
        break;
      }
      case "span": {
        const inner = render(node.children);
        html += inner === "" ? "" : `<${TAGS[node.tag]}>${inner}</${TAGS[node.tag]}>`;
        break;
      }
    }
  }
  return html;
}
