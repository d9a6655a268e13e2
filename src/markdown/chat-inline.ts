/**
 * The inline nodes of the plain-text chat renderers (Slack mrkdwn, WhatsApp): what they parse into and the helpers
 * that do not depend on the platform. Which URLs link, how spans show and how text is escaped stay in the adapters.
 */

import { type Delimiter, type EmphasisStyle, matchEmphasis } from "./emphasis.js";
import type { ParsedLink } from "./inline-links.js";
import { type CodeNode, type InlineScan, type TextNode, tokenize } from "./inline-tokens.js";

const AUTOLINK = /<([A-Za-z][A-Za-z0-9+.-]{1,31}:[^\s<>]*)>/y;
const BARE_URL = /https?:\/\/[^\s<>]+/iy;
const LETTER = /[\p{L}\p{N}]/u;

/** Emphasis nested deeper than this stays literal, so that rendering it recursively cannot exhaust the stack. */
const MAX_NESTING = 16;

/** The markers both platforms format with: `*bold*`, `_italic_`, `~strike~`. */
export const MARKUP: Record<EmphasisStyle, string> = { b: "*", i: "_", s: "~" };

/** A link, autolink or bare URL. */
export interface LinkNode {
  t: "link";
  /** The URL as the platform takes it, or undefined when it may not be shown as a link (only the label is). */
  url: string | undefined;
  label: ChatNode[];
}

/** Matched emphasis; `depth` counts the spans it holds, itself included. */
export interface SpanNode {
  t: "span";
  mark: EmphasisStyle;
  children: ChatNode[];
  depth: number;
}

export type ChatNode = TextNode | CodeNode | LinkNode | SpanNode | Delimiter;

/** The nodes of an inline run, emphasis matched; inside a link's label (`inLink`) nothing links again. */
export function parseChatInline(text: string, inLink: boolean, scan: InlineScan<LinkNode>): ChatNode[] {
  return matchEmphasis<ChatNode>(tokenize(text, inLink, scan), (mark, children) => {
    const depth = 1 + children.reduce((deepest, node) => Math.max(deepest, node.t === "span" ? node.depth : 0), 0);
    // Too deep: the closer stays literal, and whatever would enclose this span is too deep as well.
    return depth > MAX_NESTING ? undefined : { t: "span", mark, children, depth };
  });
}

/** A markdown link's node, `url` as the platform's policy has it: its label parsed, or its URL when it has none. */
export function linkNode(link: ParsedLink, url: string | undefined, scan: InlineScan<LinkNode>): LinkNode {
  const label = link.label.trim() ? parseChatInline(link.label, true, scan) : [];
  return { t: "link", url, label: label.length > 0 ? label : [{ t: "text", v: link.url }] };
}

/**
 * The `<scheme:…>` or `<address>` autolink at `at`, `email` being the platform's (sticky) pattern for addresses;
 * `url` is the platform's policy for the URL, an address given as `mailto:`.
 */
export function angleAutolink(
  text: string,
  at: number,
  email: RegExp,
  url: (url: string) => string | undefined,
): { node: LinkNode; length: number } | undefined {
  const auto = sticky(AUTOLINK, text, at) ?? sticky(email, text, at);
  if (auto?.[1] === undefined) return undefined;
  const target = url(auto[1].includes(":") ? auto[1] : `mailto:${auto[1]}`);
  return { node: { t: "link", url: target, label: [{ t: "text", v: auto[1] }] }, length: auto[0].length };
}

/**
 * The bare http(s) URL starting at `at` (not inside a word), cut by the platform's `trim` of trailing characters;
 * `url` is the platform's policy for it.
 */
export function bareUrl(
  text: string,
  at: number,
  trim: (url: string) => string,
  url: (url: string) => string | undefined,
): { node: LinkNode; length: number } | undefined {
  if (LETTER.test(text[at - 1] ?? "")) return undefined;
  const bare = sticky(BARE_URL, text, at);
  const found = bare ? trim(bare[0]) : "";
  if (!/^https?:\/\/./i.test(found)) return undefined;
  return { node: { t: "link", url: url(found), label: [{ t: "text", v: found }] }, length: found.length };
}

/** `pattern` (a sticky regex) matched at `at`. */
function sticky(pattern: RegExp, text: string, at: number): RegExpExecArray | null {
  pattern.lastIndex = at;
  return pattern.exec(text);
}

/**
 * Wraps each line in `marker` separately, spaces outside: Slack ends formatting at a line break, and WhatsApp wants a
 * non-space inside each marker.
 */
export function wrap(inner: string, marker: string): string {
  return inner
    .split("\n")
    .map((line) => {
      const content = line.trim();
      if (content === "") return line;
      const start = line.indexOf(content);
      return `${line.slice(0, start)}${marker}${content}${marker}${line.slice(start + content.length)}`;
    })
    .join("\n");
}

/** The text of inline nodes without markup; a link's URL follows its label in parentheses when `withUrl` says so. */
export function plainText(nodes: ChatNode[], withUrl: (link: LinkNode, label: string) => boolean): string {
  let text = "";
  for (const node of nodes) {
    if (node.t === "text" || node.t === "code") text += node.v;
    else if (node.t === "delim") text += node.ch.repeat(node.len);
    else if (node.t === "span") text += plainText(node.children, withUrl);
    else {
      const label = plainText(node.label, withUrl);
      text += node.url !== undefined && withUrl(node, label) ? `${label} (${node.url})` : label;
    }
  }
  return text;
}
