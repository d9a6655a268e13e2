/**
 * Inline chatbot markdown (emphasis, code spans, links and autolinks, backslash escapes) → Slack mrkdwn: text is
 * escaped, mass mentions are neutralised, and literal markers Slack could pair up become lookalikes.
 *
 * The CommonMark parsing (code spans, links, delimiter matching) is shared with Telegram in `src/markdown/`, the
 * inline nodes and the stray-marker lookalikes with WhatsApp.
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
import { GRAVE, strayPlaceholders, ZWSP } from "../../src/markdown/strays.js";

const LETTER = /[\p{L}\p{N}]/u;
/** Scripts written without spaces: a `*` between two of their characters is not "inside a word". */
const SPACELESS = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u;
const EMAIL = /<([\w.!#$%&'*+/=?^`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9-]+)*)>/y;
/** Only these become links; `javascript:`, `data:`, `slack:` and the rest stay text. */
const SAFE_URL = /^(?:https?:\/\/|mailto:)[^\s\p{Cc}]+$/iu;
/**
 * Slack notifies a whole channel for these words when a message is sent with `link_names`; a zero-width joiner
 * after the `@` breaks the keyword without changing what people see. (`<!here>` and `<@U…>` need nothing: their
 * `<` is escaped like any other.)
 */
const MASS_MENTION = /(?<![A-Za-z0-9])@(?=(?:here|channel|everyone)(?![A-Za-z0-9]))/gi;

/**
 * Stands in for `|` in link text, and reads the same: Slack has no escape for `|` (only the three entities), and
 * which `|` of several separates a link's URL from its text is nowhere documented.
 */
const DIVIDES = "∣";
/** The rendered markup Slack parses; outside code and links, every real one in the output is ours. */
const MARKER = /[*_~`]/;
/** Characters a marker may touch and still be parsed by Slack: whitespace, ASCII punctuation, placeholders. */
const LOOSE = /[\s!-/:-@[-`{-~\ue000-\ue003]/;

export function renderInline(text: string, active: ReadonlySet<EmphasisStyle>): string {
  return render(parseInline(text), active);
}

export function parseInline(text: string): ChatNode[] {
  return parseChatInline(text, false, SCAN);
}

/** Slack's links: markdown links, `<…>` autolinks and emails, and bare http(s) URLs; `safeUrl` decides which link. */
const SCAN: InlineScan<LinkNode> = {
  link: (link) => linkNode(link, safeUrl(link.url), SCAN),
  autolink: (text, at) => {
    const c = text[at];
    if (c === "<") return angleAutolink(text, at, EMAIL, safeUrl);
    return c === "h" || c === "H" ? bareUrl(text, at, trimUrl, safeUrl) : undefined;
  },
  // Unlike CommonMark, `*` and `~~` between two letters (2*3*4) are text, as `_` is (snake_case): Slack could not
  // format there anyway, and a chatbot means them literally.
  wordChar: (ch) => LETTER.test(ch) && !SPACELESS.test(ch),
};

/** GFM's autolink rule: trailing punctuation, and closing brackets without an opening one, end the URL. */
function trimUrl(url: string): string {
  const count = (ch: string) => url.split(ch).length - 1;
  const unmatched: Record<string, number> = { ")": count(")") - count("("), "]": count("]") - count("[") };
  let end = url.length;
  for (;;) {
    const last = url[end - 1] ?? "";
    if (/[?!.,:;*_~'"]/.test(last)) end--;
    else if ((unmatched[last] ?? 0) > 0) {
      unmatched[last] = (unmatched[last] ?? 0) - 1;
      end--;
    } else return url.slice(0, end);
  }
}

function safeUrl(url: string): string | undefined {
  const trimmed = url.trim();
  return SAFE_URL.test(trimmed) ? trimmed : undefined;
}

function render(nodes: ChatNode[], active: ReadonlySet<EmphasisStyle>): string {
  let out = "";
  // The last character is kept aside: reading it back from the growing string would flatten it every time.
  let last = "";
  for (const node of nodes) {
    const piece = renderNode(node, active);
    if (piece === "") continue;
    if (touches(last, piece[0] ?? "")) out += ZWSP;
    out += piece;
    last = piece.at(-1) ?? "";
  }
  return out;
}

function renderNode(node: ChatNode, active: ReadonlySet<EmphasisStyle>): string {
  switch (node.t) {
    case "text":
      return escapeText(node.v);
    case "delim":
      return escapeText(node.ch.repeat(node.len));
    case "code":
      return node.v.trim() === "" ? escapeText(node.v) : inlineCode(node.v);
    case "link":
      return node.url === undefined ? render(node.label, active) : linkMarkup(node.url, node.label);
    case "span": {
      // Slack cannot nest a style in itself: the inner one is dropped.
      const inner = render(node.children, new Set([...active, node.mark]));
      return active.has(node.mark) ? inner : wrap(inner, MARKUP[node.mark]);
    }
  }
}

/** Whether a zero-width space must go between two pieces: a marker of ours would touch a letter. */
function touches(a: string, b: string): boolean {
  if (a === "" || b === "") return false;
  return (MARKER.test(a) && !LOOSE.test(b)) || (!LOOSE.test(a) && MARKER.test(b));
}

export function inlineCode(code: string): string {
  return `\`${escapeEntities(code).replace(/`/g, GRAVE)}\``;
}

function linkMarkup(url: string, label: ChatNode[]): string {
  const text = plain(label, false).replace(/\s+/g, " ").trim();
  // `<`, `>` and `|` would end the link early; percent-encoded they mean the same to the browser.
  const target = url.replace(/&/g, "&amp;").replace(/[<>|]/g, (c) => encodeURIComponent(c));
  if (text === "" || text === url) return `<${target}>`;
  return `<${target}|${escapeText(text).replace(/\|/g, DIVIDES)}>`;
}

/** The text of inline nodes without markup; `withUrls` adds a link's target after its label. */
export function plain(nodes: ChatNode[], withUrls: boolean): string {
  return plainText(nodes, (link, label) => withUrls && link.url !== label);
}

export function escapeEntities(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

export function neutralizeMentions(text: string): string {
  return text.replace(MASS_MENTION, "@\u200d");
}

/** Text outside code: the three escapes, mass mentions broken, literal markers as placeholders. */
function escapeText(text: string): string {
  return strayPlaceholders(neutralizeMentions(escapeEntities(text)));
}
