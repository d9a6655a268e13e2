/**
 * Inline markdown (emphasis, code spans, links, escapes) → Telegram HTML. Code spans and links are found
 * first, then emphasis is matched over what is left with CommonMark's delimiter rules (flanking, the rule of
 * three), so `2 * 3`, `snake_case_name` and an unbalanced `**` stay literal instead of breaking the message.
 */

/**
 * Tags an inline run may be inside. One is never nested in itself, and none contains `<code>`: Telegram's
 * entities "bold, italic, underline, strikethrough, and spoiler … can contain … any other entities, except pre and
 * code"; "all other entities can't contain each other" (https://core.telegram.org/bots/api#formatting-options).
 */
export type InlineTag = "b" | "i" | "s" | "a";

type Node =
  | { t: "text"; v: string }
  | { t: "code"; v: string }
  | { t: "link"; href: string | undefined; label: Node[] }
  | { t: "span"; tag: "b" | "i" | "s"; children: Node[] }
  | Delimiter;

interface Delimiter {
  t: "delim";
  ch: "*" | "_" | "~";
  len: number;
  canOpen: boolean;
  canClose: boolean;
  /** The run's length before matching, for the rule of three. */
  origLen: number;
}

const ESCAPABLE = /[!-/:-@[-`{-~]/;
const WHITESPACE = /\s/u;
const PUNCTUATION = /[\p{P}\p{S}]/u;
const AUTOLINK = /^<((?:https?|tg):\/\/[^\s<>]*)>/i;
/** Link schemes Telegram opens safely; `javascript:`, `data:`, `file:` and the rest become plain text. */
const SAFE_SCHEME = /^(?:https?|tg):\/\/[^\s\p{Cc}]+$/iu;

/** Renders one inline run (a paragraph, list item, heading, table cell) as Telegram HTML. */
export function renderInline(text: string, active: ReadonlySet<InlineTag>): string {
  return render(matchEmphasis(tokenize(text, active.has("a"))), active);
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

function tokenize(text: string, inLink: boolean): Node[] {
  const nodes: Node[] = [];
  let plain = "";
  const push = (node: Node) => {
    if (plain !== "") nodes.push({ t: "text", v: plain });
    plain = "";
    nodes.push(node);
  };
  for (let k = 0; k < text.length; ) {
    const c = text[k] as string;
    if (c === "\\" && ESCAPABLE.test(text[k + 1] ?? "")) {
      plain += text[k + 1];
      k += 2;
      continue;
    }
    if (c === "`") {
      const run = runLength(text, k, "`");
      const close = findBacktickRun(text, k + run, run);
      if (close === -1) {
        plain += "`".repeat(run);
        k += run;
        continue;
      }
      push({ t: "code", v: codeSpanContent(text.slice(k + run, close)) });
      k = close + run;
      continue;
    }
    if (!inLink && (c === "[" || (c === "!" && text[k + 1] === "["))) {
      const link = parseLink(text, c === "!" ? k + 1 : k);
      if (link) {
        const label: Node[] = link.label.trim()
          ? matchEmphasis(tokenize(link.label, true))
          : [{ t: "text", v: link.url }];
        push({ t: "link", href: link.href, label });
        k = link.end;
        continue;
      }
    }
    if (!inLink && c === "<") {
      const auto = AUTOLINK.exec(text.slice(k));
      if (auto?.[1] !== undefined) {
        push({ t: "link", href: safeHref(auto[1]), label: [{ t: "text", v: auto[1] }] });
        k += auto[0].length;
        continue;
      }
    }
    if (c === "*" || c === "_" || c === "~") {
      const run = runLength(text, k, c);
      const delimiter = flanking(text, k, run, c);
      // Only `~~` strikes through; a lone `~` (about, approximately) is text.
      if (c === "~" && run !== 2) plain += c.repeat(run);
      else push(delimiter);
      k += run;
      continue;
    }
    plain += c;
    k += 1;
  }
  if (plain !== "") nodes.push({ t: "text", v: plain });
  return nodes;
}

function runLength(text: string, at: number, ch: string): number {
  let end = at;
  while (text[end] === ch) end++;
  return end - at;
}

/** Start of the next backtick run of exactly `run` characters after `from`, or -1. */
function findBacktickRun(text: string, from: number, run: number): number {
  for (let k = text.indexOf("`", from); k !== -1; ) {
    const length = runLength(text, k, "`");
    if (length === run) return k;
    k = text.indexOf("`", k + length);
  }
  return -1;
}

/** CommonMark: line endings become spaces, and one space each side is stripped when both are there. */
function codeSpanContent(raw: string): string {
  const content = raw.replace(/\n/g, " ");
  return /^ .*[^ ].* $/s.test(content) ? content.slice(1, -1) : content;
}

function flanking(text: string, at: number, run: number, ch: "*" | "_" | "~"): Delimiter {
  const before = text[at - 1] ?? " ";
  const after = text[at + run] ?? " ";
  const beforeSpace = WHITESPACE.test(before);
  const afterSpace = WHITESPACE.test(after);
  const beforePunct = PUNCTUATION.test(before);
  const afterPunct = PUNCTUATION.test(after);
  const left = !afterSpace && (!afterPunct || beforeSpace || beforePunct);
  const right = !beforeSpace && (!beforePunct || afterSpace || afterPunct);
  // `_` inside a word (snake_case) is never emphasis.
  const canOpen = ch === "_" ? left && (!right || beforePunct) : left;
  const canClose = ch === "_" ? right && (!left || afterPunct) : right;
  return { t: "delim", ch, len: run, canOpen, canClose, origLen: run };
}

interface ParsedLink {
  label: string;
  url: string;
  href: string | undefined;
  end: number;
}

/** `[label](url "title")` starting at the `[`; undefined when it is not a complete link. */
function parseLink(text: string, open: number): ParsedLink | undefined {
  let depth = 0;
  let close = -1;
  for (let k = open; k < text.length; k++) {
    const c = text[k];
    if (c === "\\") k++;
    else if (c === "`") {
      // A code span in the label hides its brackets.
      const run = runLength(text, k, "`");
      const end = findBacktickRun(text, k + run, run);
      k = end === -1 ? k + run - 1 : end + run - 1;
    } else if (c === "[") depth++;
    else if (c === "]" && --depth === 0) {
      close = k;
      break;
    }
  }
  if (close === -1 || text[close + 1] !== "(") return undefined;
  let parens = 1;
  let k = close + 2;
  for (; k < text.length && parens > 0; k++) {
    const c = text[k];
    if (c === "\\") k++;
    else if (c === "(") parens++;
    else if (c === ")") parens--;
    else if (c === "\n") return undefined;
  }
  if (parens > 0) return undefined;
  const inside = text.slice(close + 2, k - 1).trim();
  const target = /^<([^<>\n]*)>|^(\S*)/.exec(inside);
  const url = (target?.[1] ?? target?.[2] ?? "").trim();
  return { label: text.slice(open + 1, close), url, href: safeHref(url), end: k };
}

/** CommonMark's "process emphasis", on a flat node list: innermost matches first, leftovers stay literal. */
function matchEmphasis(nodes: Node[]): Node[] {
  for (let c = 0; c < nodes.length; ) {
    const closer = nodes[c];
    if (closer?.t !== "delim" || !closer.canClose) {
      c++;
      continue;
    }
    const o = findOpener(nodes, c, closer);
    if (o === -1) {
      c++;
      continue;
    }
    const opener = nodes[o] as Delimiter;
    const used = closer.ch === "~" ? 2 : opener.len >= 2 && closer.len >= 2 ? 2 : 1;
    const tag = closer.ch === "~" ? "s" : used === 2 ? "b" : "i";
    const children = nodes.slice(o + 1, c);
    nodes.splice(o + 1, c - o - 1, { t: "span", tag, children });
    opener.len -= used;
    closer.len -= used;
    c = o + 2;
    if (opener.len === 0) {
      nodes.splice(o, 1);
      c--;
    }
    if (closer.len === 0) nodes.splice(c, 1);
  }
  return nodes;
}

function findOpener(nodes: Node[], c: number, closer: Delimiter): number {
  for (let o = c - 1; o >= 0; o--) {
    const node = nodes[o];
    if (node?.t !== "delim" || node.ch !== closer.ch || !node.canOpen || node.len === 0) continue;
    // The rule of three: `*foo**bar*` is one emphasis, not two broken ones.
    const both = node.canClose || closer.canOpen;
    if (both && (node.origLen + closer.origLen) % 3 === 0 && !(node.origLen % 3 === 0 && closer.origLen % 3 === 0))
      continue;
    return o;
  }
  return -1;
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
