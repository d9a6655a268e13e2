/**
 * Inline chatbot markdown (emphasis, code spans, links and autolinks, backslash escapes) → Slack mrkdwn: text is
 * escaped, mass mentions are neutralised, and literal markers Slack could pair up become lookalikes.
 *
 * The CommonMark parsing (code spans, links, delimiter matching) is shared with Telegram in `adapters/markdown/`.
 */

import { type Delimiter, matchEmphasis } from "../markdown/emphasis.js";
import { type CodeNode, type InlineScan, type TextNode, tokenize } from "../markdown/inline-tokens.js";

const LETTER = /[\p{L}\p{N}]/u;
/** Scripts written without spaces: a `*` between two of their characters is not "inside a word". */
const SPACELESS = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u;
const AUTOLINK = /<([A-Za-z][A-Za-z0-9+.-]{1,31}:[^\s<>]*)>/y;
const EMAIL = /<([\w.!#$%&'*+/=?^`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9-]+)*)>/y;
const BARE_URL = /https?:\/\/[^\s<>]+/iy;
/** Only these become links; `javascript:`, `data:`, `slack:` and the rest stay text. */
const SAFE_URL = /^(?:https?:\/\/|mailto:)[^\s\p{Cc}]+$/iu;
/**
 * Slack notifies a whole channel for these words when a message is sent with `link_names`; a zero-width joiner
 * after the `@` breaks the keyword without changing what people see. (`<!here>` and `<@U…>` need nothing: their
 * `<` is escaped like any other.)
 */
const MASS_MENTION = /(?<![A-Za-z0-9])@(?=(?:here|channel|everyone)(?![A-Za-z0-9]))/gi;

export const ZWSP = "\u200b";
/**
 * Stands in for `|` in link text, and reads the same: Slack has no escape for `|` (only the three entities), and
 * which `|` of several separates a link's URL from its text is nowhere documented.
 */
const DIVIDES = "∣";
/** Inline code cannot contain a backtick in Slack; the modifier letter looks the same. */
const GRAVE = "ˋ";
/** The rendered markup Slack parses; outside code and links, every real one in the output is ours. */
const MARKER = /[*_~`]/;
/** Characters a marker may touch and still be parsed by Slack: whitespace, ASCII punctuation, placeholders. */
const LOOSE = /[\s!-/:-@[-`{-~\ue000-\ue003]/;

/**
 * While rendering, a literal `*`, `_`, `~` or backtick from the text is a private-use placeholder, so that
 * `resolveStrays` can tell it from markup in the finished message; the input's own such characters are dropped.
 */
const STRAYS = [
  { placeholder: "\ue000", marker: "*", lookalike: "∗", run: /[*\ue000]+/g },
  { placeholder: "\ue001", marker: "_", lookalike: "ˍ", run: /[_\ue001]+/g },
  { placeholder: "\ue002", marker: "~", lookalike: "∼", run: /[~\ue002]+/g },
  { placeholder: "\ue003", marker: "`", lookalike: GRAVE, run: /[`\ue003]+/g },
] as const;
export const PLACEHOLDERS = /[\ue000-\ue003]/g;
const PLACEHOLDER_OF: Record<string, string> = Object.fromEntries(STRAYS.map((s) => [s.marker, s.placeholder]));

type Mark = "b" | "i" | "s";
/** Emphasis nested deeper than this stays literal, so that rendering it recursively cannot exhaust the stack. */
const MAX_NESTING = 16;
export const MARKUP: Record<Mark, string> = { b: "*", i: "_", s: "~" };

interface LinkNode {
  t: "link";
  url: string | undefined;
  label: Node[];
}

type Node = TextNode | CodeNode | LinkNode | { t: "span"; mark: Mark; children: Node[]; depth: number } | Delimiter;

export function renderInline(text: string, active: ReadonlySet<Mark>): string {
  return render(parseInline(text), active);
}

export function parseInline(text: string): Node[] {
  return parse(text, false);
}

/** Slack's links: markdown links, `<…>` autolinks and emails, and bare http(s) URLs; `safeUrl` decides which link. */
const SCAN: InlineScan<LinkNode> = {
  link: (link) => {
    const label = link.label.trim() ? parse(link.label, true) : [];
    return { t: "link", url: safeUrl(link.url), label: label.length > 0 ? label : [{ t: "text", v: link.url }] };
  },
  autolink: (text, at) => {
    const c = text[at];
    if (c === "<") {
      const auto = sticky(AUTOLINK, text, at) ?? sticky(EMAIL, text, at);
      if (auto?.[1] === undefined) return undefined;
      const email = !auto[1].includes(":");
      const url = safeUrl(email ? `mailto:${auto[1]}` : auto[1]);
      return { node: { t: "link", url, label: [{ t: "text", v: auto[1] }] }, length: auto[0].length };
    }
    if ((c === "h" || c === "H") && !LETTER.test(text[at - 1] ?? "")) {
      const bare = sticky(BARE_URL, text, at);
      const url = bare ? trimUrl(bare[0]) : "";
      if (/^https?:\/\/./i.test(url)) {
        return { node: { t: "link", url: safeUrl(url), label: [{ t: "text", v: url }] }, length: url.length };
      }
    }
    return undefined;
  },
  // Unlike CommonMark, `*` and `~~` between two letters (2*3*4) are text, as `_` is (snake_case): Slack could not
  // format there anyway, and a chatbot means them literally.
  wordChar: (ch) => LETTER.test(ch) && !SPACELESS.test(ch),
};

/** The nodes of an inline run, emphasis matched; inside a link's label (`inLink`) nothing links again. */
function parse(text: string, inLink: boolean): Node[] {
  return matchEmphasis<Node>(tokenize(text, inLink, SCAN), (mark, children) => {
    const depth = 1 + children.reduce((deepest, node) => Math.max(deepest, node.t === "span" ? node.depth : 0), 0);
    // Too deep: the closer stays literal, and whatever would enclose this span is too deep as well.
    return depth > MAX_NESTING ? undefined : { t: "span", mark, children, depth };
  });
}

function sticky(pattern: RegExp, text: string, at: number): RegExpExecArray | null {
  pattern.lastIndex = at;
  return pattern.exec(text);
}

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

function render(nodes: Node[], active: ReadonlySet<Mark>): string {
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

function renderNode(node: Node, active: ReadonlySet<Mark>): string {
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

/** Wraps each line in `marker` separately: Slack ends formatting at a line break. */
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

export function inlineCode(code: string): string {
  return `\`${escapeEntities(code).replace(/`/g, GRAVE)}\``;
}

function linkMarkup(url: string, label: Node[]): string {
  const text = plain(label, false).replace(/\s+/g, " ").trim();
  // `<`, `>` and `|` would end the link early; percent-encoded they mean the same to the browser.
  const target = url.replace(/&/g, "&amp;").replace(/[<>|]/g, (c) => encodeURIComponent(c));
  if (text === "" || text === url) return `<${target}>`;
  return `<${target}|${escapeText(text).replace(/\|/g, DIVIDES)}>`;
}

/** The text of inline nodes without markup; `withUrls` adds a link's target after its label. */
export function plain(nodes: Node[], withUrls: boolean): string {
  let text = "";
  for (const node of nodes) {
    if (node.t === "text" || node.t === "code") text += node.v;
    else if (node.t === "delim") text += node.ch.repeat(node.len);
    else if (node.t === "span") text += plain(node.children, withUrls);
    else {
      const label = plain(node.label, withUrls);
      text += withUrls && node.url !== undefined && node.url !== label ? `${label} (${node.url})` : label;
    }
  }
  return text;
}

export function escapeEntities(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

export function neutralizeMentions(text: string): string {
  return text.replace(MASS_MENTION, "@\u200d");
}

/** Text outside code: the three escapes, mass mentions broken, literal markers as placeholders. */
function escapeText(text: string): string {
  return neutralizeMentions(escapeEntities(text)).replace(/[*_~`]/g, (c) => PLACEHOLDER_OF[c] ?? c);
}

/**
 * Gives every placeholder its character back, or a lookalike (∗ ˍ ∼ ˋ) where Slack could pair it with another
 * marker of the same kind and format (or break) what lies between. A marker can open when it does not follow a
 * letter or digit and is followed by something other than a space, and close the other way round; a run of
 * placeholders is risky when it could open before a marker in a later run that can close, or close after one in an
 * earlier run that can open (within one run there is nothing to format: `**` alone stays as it is).
 * This is deliberately wider than Slack's parser, whose rules are unpublished; the one-line limit is not relied on.
 * Why not a zero-width space: Slack treats it as a word boundary, so next to a marker it enables formatting rather
 * than preventing it.
 */
export function resolveStrays(text: string): string {
  let out = text;
  for (const { placeholder, marker, lookalike, run } of STRAYS) {
    if (!out.includes(placeholder)) continue;
    const source = out;
    const word = (k: number) => /[A-Za-z0-9]/.test(source[k] ?? "");
    const space = (k: number) => source[k] === undefined || /\s/.test(source[k] ?? "");
    const opens = (k: number) => !word(k - 1) && !space(k + 1);
    const closes = (k: number) => !space(k - 1) && !word(k + 1);
    let firstOpener = Number.POSITIVE_INFINITY;
    let lastCloser = -1;
    for (let k = 0; k < source.length; k++) {
      if (source[k] !== marker && source[k] !== placeholder) continue;
      if (opens(k)) firstOpener = Math.min(firstOpener, k);
      if (closes(k)) lastCloser = k;
    }
    out = source.replace(run, (found: string, at: number) => {
      if (!found.includes(placeholder)) return found;
      const end = at + found.length;
      // Next to a marker of ours it would change that marker's run (`**x*` is not `*` then `*x*`).
      let risky = found.includes(marker);
      for (let k = at; k < end; k++) risky ||= (opens(k) && lastCloser >= end) || (closes(k) && firstOpener < at);
      return found.replaceAll(placeholder, risky ? lookalike : marker);
    });
  }
  return out;
}
