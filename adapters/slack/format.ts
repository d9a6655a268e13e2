/**
 * Chatbot markdown → Slack mrkdwn (https://docs.slack.dev/messaging/formatting-message-text).
 *
 * mrkdwn knows bold, italic, strike, code, preformatted blocks, quotes and `<url|text>` links, nothing else: headings
 * become bold lines, lists "•"/"◦" lines, tables preformatted text. It has no backslash escape either, only the
 * entities for `&`, `<` and `>`, so text is kept from turning into markup by other means: stray `*`, `_`, `~` and
 * backticks that could pair up become lookalikes (see `resolveStrays`), a line of text starting with `>` gets a soft
 * hyphen in front, and `@here`-style words a zero-width joiner. Slack formats only at word boundaries and (as far as
 * anyone has seen) within one line, so spans are closed and reopened at line ends, and a zero-width space sets a
 * marker off from a letter it touches (`touches`).
 *
 * Nothing in `src/bridge/reply/` renders (its scanner only tracks open constructs for streaming and splitting) and
 * Telegram's inline parser is private to that adapter, so CommonMark's delimiter matching is done here again.
 */

const FENCE_OPEN = /^([ \t]*)(`{3,}|~{3,})[^`]*$/;
const FENCE_CLOSE = /^[ \t]*(`{3,}|~{3,})[ \t]*$/;
const HEADING = /^ {0,3}#{1,6}(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;
const RULE = /^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/;
const QUOTE = /^ {0,3}>[ \t]?(.*)$/;
const QUOTES = /^(?: {0,3}>[ \t]?)+/;
const LIST_ITEM = /^([ \t]*)([-+*]|\d{1,9}[.)])[ \t]+(.*)$/;
const TASK = /^\[([ xX])\][ \t]+/;
const TABLE_DELIMITER = /^[ \t]*\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)+\|?[ \t]*$/;
const BLANK = /^[ \t]*$/;

const ESCAPABLE = /[!-/:-@[-`{-~]/;
const WHITESPACE = /\s/u;
const PUNCTUATION = /[\p{P}\p{S}]/u;
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

const ZWSP = "\u200b";
const SOFT_HYPHEN = "\u00ad";
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
const PLACEHOLDERS = /[\ue000-\ue003]/g;
const PLACEHOLDER_OF: Record<string, string> = Object.fromEntries(STRAYS.map((s) => [s.marker, s.placeholder]));

type Mark = "b" | "i" | "s";
/** Emphasis nested deeper than this stays literal, so that rendering it recursively cannot exhaust the stack. */
const MAX_NESTING = 16;
const MARKUP: Record<Mark, string> = { b: "*", i: "_", s: "~" };

type Node =
  | { t: "text"; v: string }
  | { t: "code"; v: string }
  | { t: "link"; url: string | undefined; label: Node[] }
  | { t: "span"; mark: Mark; children: Node[]; depth: number }
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

interface BlockContext {
  /** Inside a quote: Slack puts no preformatted block there, and quotes do not nest. */
  inQuote: boolean;
}

/**
 * Renders the chatbot's markdown (CommonMark-ish: **bold**, __bold__, *italic*, _italic_, ~~strike~~, `code`, ```
 * fences with optional language, [text](url), <https://autolinks>, bare URLs, # headings, - / * / + / 1. lists
 * (nested by indentation), > quotes, --- rules, tables as preformatted text, images ![alt](url) as links) as Slack
 * mrkdwn (https://docs.slack.dev/messaging/formatting-message-text): *bold*, _italic_, ~strike~, `code`, ```pre```,
 * <url|text> links, headings as bold lines, bullets as "•" (nested ones indented with spaces and "◦"), numbered
 * lists kept, > quotes, rules as a line of "───". Markers inside words (snake_case, 2*3*4) and unbalanced ones stay
 * literal; the result is deterministic and never mentions or notifies anyone.
 */
export function markdownToMrkdwn(markdown: string): string {
  const lines = markdown.replace(/\r\n?/g, "\n").replace(PLACEHOLDERS, "").split("\n");
  return resolveStrays(renderBlocks(lines, { inQuote: false }).join("\n").trim());
}

/**
 * The length Slack counts for `markdown` once rendered (characters of the mrkdwn), for splitting long answers.
 * Counted in UTF-16 code units, never fewer than Slack's characters, so a piece that fits here fits there.
 */
export function measureMrkdwn(markdown: string): number {
  return markdownToMrkdwn(markdown).length;
}

function renderBlocks(lines: string[], context: BlockContext): string[] {
  const out: string[] = [];
  let paragraph: string[] = [];
  /** Indentation of the list items open at this point, outermost first. */
  let list: number[] = [];
  // Lines are appended one by one: spreading a long answer's lines into `push` would overflow the stack.
  const append = (rendered: string[]) => {
    for (const line of rendered) out.push(line);
  };
  const flush = () => {
    if (paragraph.length > 0) append(paragraphLines(paragraph));
    paragraph = [];
  };
  const block = (rendered: string[]) => {
    flush();
    list = [];
    append(rendered);
  };
  for (let k = 0; k < lines.length; k++) {
    const line = lines[k] ?? "";
    const fence = FENCE_OPEN.exec(line);
    if (fence) {
      const indent = fence[1]?.length ?? 0;
      const marker = fence[2] ?? "```";
      const body: string[] = [];
      for (k++; k < lines.length; k++) {
        const inner = lines[k] ?? "";
        if (closesFence(inner, marker)) break;
        body.push(inner.replace(new RegExp(`^[ \\t]{0,${indent}}`), ""));
      }
      block(preformatted(body, context));
      continue;
    }
    if (BLANK.test(line)) {
      flush();
      if (out.length > 0 && out.at(-1) !== "") out.push("");
      continue;
    }
    if (QUOTE.test(line)) {
      const quoted: string[] = [];
      for (; k < lines.length && QUOTE.test(lines[k] ?? ""); k++) {
        const inner = lines[k] ?? "";
        // A quote inside a quote is flattened at once, which also bounds the recursion.
        quoted.push(context.inQuote ? inner.replace(QUOTES, "") : (QUOTE.exec(inner)?.[1] ?? ""));
      }
      k--;
      // A line holding only `>` is not a quote in Slack, so blank lines inside a quote are dropped.
      const inner = renderBlocks(quoted, { inQuote: true }).filter((rendered) => rendered.trim() !== "");
      block(context.inQuote ? inner : inner.map((rendered) => `> ${rendered}`));
      continue;
    }
    const heading = HEADING.exec(line);
    if (heading) {
      const title = renderInline((heading[1] ?? "").trim(), new Set(["b"]));
      block(title === "" ? [] : [wrap(title, MARKUP.b)]);
      continue;
    }
    if (RULE.test(line)) {
      block(["───"]);
      continue;
    }
    const item = LIST_ITEM.exec(line);
    if (item) {
      flush();
      out.push(listItem(list, item[1] ?? "", item[2] ?? "-", item[3] ?? ""));
      continue;
    }
    if (line.includes("|") && TABLE_DELIMITER.test(lines[k + 1] ?? "")) {
      const rows = [line];
      for (k++; k < lines.length && (lines[k] ?? "").includes("|") && !BLANK.test(lines[k] ?? ""); k++) {
        rows.push(lines[k] ?? "");
      }
      k--;
      block(preformatted(table(rows), context));
      continue;
    }
    if (list.length > 0 && paragraph.length === 0 && /^[ \t]/.test(line)) {
      // An indented line under a list item continues it: it keeps the item's indentation.
      out.push(`${"    ".repeat(Math.min(list.length - 1, 6))}  ${renderInline(line.trim(), new Set())}`);
      continue;
    }
    list = [];
    paragraph.push(line);
  }
  flush();
  return out;
}

function paragraphLines(lines: string[]): string[] {
  const rendered = renderInline(lines.map((line) => line.trim()).join("\n"), new Set());
  // Slack reads `&gt;` at the start of a line as a quote; a soft hyphen in front keeps it text.
  return rendered.split("\n").map((line) => (/^(?:&gt;|＞)/.test(line) ? `${SOFT_HYPHEN}${line}` : line));
}

function closesFence(line: string, marker: string): boolean {
  const match = FENCE_CLOSE.exec(line);
  return match?.[1] !== undefined && match[1][0] === marker[0] && match[1].length >= marker.length;
}

/** Code or a table: a ``` block, or inside a quote (which cannot hold one) a line of inline code per line. */
function preformatted(lines: string[], context: BlockContext): string[] {
  const body = [...lines];
  while (body.length > 0 && BLANK.test(body.at(-1) ?? "")) body.pop();
  if (body.every((line) => BLANK.test(line))) return [];
  if (context.inQuote) return body.map((line) => (BLANK.test(line) ? "" : inlineCode(line)));
  // The language is dropped: mrkdwn highlights nothing. A ``` inside the code would end the block early.
  const code = escapeEntities(body.join("\n")).replace(/`{3,}/g, (run) => [...run].join(ZWSP));
  return [`\`\`\`\n${code}\n\`\`\``];
}

function listItem(list: number[], indent: string, marker: string, content: string): string {
  // Depth comes from the indentation of the items above, whatever step the chatbot indents by (2, 3 or 4).
  const width = indent.replace(/\t/g, "    ").length;
  while (list.length > 0 && (list.at(-1) ?? 0) > width) list.pop();
  if (list.length > 0 && list.at(-1) === width) list.pop();
  list.push(width);
  const depth = list.length - 1;
  const lead = "    ".repeat(Math.min(depth, 6));
  const task = TASK.exec(content);
  if (task) return `${lead}${task[1] === " " ? "☐" : "☑"} ${renderInline(content.slice(task[0].length), new Set())}`;
  const bullet = /\d/.test(marker) ? `${marker.slice(0, -1)}.` : depth === 0 ? "•" : "◦";
  return `${lead}${bullet} ${renderInline(content, new Set())}`;
}

/** A markdown table as aligned plain-text columns (inline formatting dropped, link targets kept in parentheses). */
function table(lines: string[]): string[] {
  const [header = [], delimiter = [], ...body] = lines.map(tableCells);
  const align = delimiter.map((cell) => (cell.endsWith(":") ? (cell.startsWith(":") ? "center" : "right") : "left"));
  const rows = [header, ...body].map((row) =>
    header.map((_, c) => neutralizeMentions(plain(parseInline(row[c] ?? ""), true))),
  );
  const widths = header.map((_, c) => rows.reduce((width, row) => Math.max(width, [...(row[c] ?? "")].length), 0));
  const pad = (cell: string, c: number) => {
    const room = (widths[c] ?? 0) - [...cell].length;
    const left = align[c] === "right" ? room : align[c] === "center" ? Math.floor(room / 2) : 0;
    return " ".repeat(left) + cell + " ".repeat(room - left);
  };
  const rendered = rows.map((row) => row.map(pad).join(" │ ").trimEnd());
  rendered.splice(1, 0, widths.map((width) => "─".repeat(width)).join("─┼─"));
  return rendered;
}

function tableCells(line: string): string[] {
  const row = line
    .trim()
    .replace(/^\|/, "")
    .replace(/(?<!\\)\|$/, "");
  return row.split(/(?<!\\)\|/).map((cell) => cell.trim());
}

function renderInline(text: string, active: ReadonlySet<Mark>): string {
  return render(parseInline(text), active);
}

function parseInline(text: string): Node[] {
  return matchEmphasis(tokenize(text, false));
}

function tokenize(text: string, inLink: boolean): Node[] {
  const nodes: Node[] = [];
  let plainText = "";
  // A `[` after the last `]` cannot start a link: not trying keeps a run of brackets from costing quadratic time.
  const lastBracket = text.lastIndexOf("]");
  const push = (node: Node) => {
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
        const label = link.label.trim() ? matchEmphasis(tokenize(link.label, true)) : [];
        push({ t: "link", url: safeUrl(link.url), label: label.length > 0 ? label : [{ t: "text", v: link.url }] });
        k = link.end;
        continue;
      }
    }
    if (!inLink && c === "<") {
      const auto = sticky(AUTOLINK, text, k) ?? sticky(EMAIL, text, k);
      if (auto?.[1] !== undefined) {
        const email = !auto[1].includes(":");
        const url = safeUrl(email ? `mailto:${auto[1]}` : auto[1]);
        push({ t: "link", url, label: [{ t: "text", v: auto[1] }] });
        k += auto[0].length;
        continue;
      }
    }
    if (!inLink && (c === "h" || c === "H") && !LETTER.test(text[k - 1] ?? "")) {
      const bare = sticky(BARE_URL, text, k);
      const url = bare ? trimUrl(bare[0]) : "";
      if (/^https?:\/\/./i.test(url)) {
        push({ t: "link", url: safeUrl(url), label: [{ t: "text", v: url }] });
        k += url.length;
        continue;
      }
    }
    if (c === "*" || c === "_" || c === "~") {
      const run = runLength(text, k, c);
      // Only `~~` strikes through; a lone `~` (about, approximately) is text.
      if (c === "~" && run !== 2) plainText += c.repeat(run);
      else push(flanking(text, k, run, c));
      k += run;
      continue;
    }
    plainText += c;
    k += 1;
  }
  if (plainText !== "") nodes.push({ t: "text", v: plainText });
  return nodes;
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
  // Unlike CommonMark, `*` and `~~` between two letters (2*3*4) are text, as `_` is (snake_case): Slack could not
  // format there anyway, and a chatbot means them literally.
  const inWord = inWordChar(before) && inWordChar(after);
  const canOpen = ch === "_" ? left && (!right || beforePunct) : left && !inWord;
  const canClose = ch === "_" ? right && (!left || afterPunct) : right && !inWord;
  return { t: "delim", ch, len: run, canOpen, canClose, origLen: run };
}

function inWordChar(ch: string): boolean {
  return LETTER.test(ch) && !SPACELESS.test(ch);
}

interface ParsedLink {
  label: string;
  url: string;
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
  const target = /^<([^<>\n]*)>|^(\S*)/.exec(text.slice(close + 2, k - 1).trim());
  return { label: text.slice(open + 1, close), url: (target?.[1] ?? target?.[2] ?? "").trim(), end: k };
}

function safeUrl(url: string): string | undefined {
  const trimmed = url.trim();
  return SAFE_URL.test(trimmed) ? trimmed : undefined;
}

/** CommonMark's "process emphasis", on a flat node list: innermost matches first, leftovers stay literal. */
function matchEmphasis(nodes: Node[]): Node[] {
  /** Delimiters at or below this index can no longer open anything. */
  let floor = -1;
  for (let c = 0; c < nodes.length; ) {
    const closer = nodes[c];
    if (closer?.t !== "delim" || !closer.canClose) {
      c++;
      continue;
    }
    const o = findOpener(nodes, c, closer, floor);
    if (o === -1) {
      c++;
      continue;
    }
    const opener = nodes[o] as Delimiter;
    const used = closer.ch === "~" || (opener.len >= 2 && closer.len >= 2) ? 2 : 1;
    const mark = closer.ch === "~" ? "s" : used === 2 ? "b" : "i";
    const children = nodes.slice(o + 1, c);
    const depth = 1 + children.reduce((deepest, node) => Math.max(deepest, node.t === "span" ? node.depth : 0), 0);
    if (depth > MAX_NESTING) {
      // Whatever would enclose this span is too deep as well.
      floor = c;
      c++;
      continue;
    }
    nodes.splice(o + 1, c - o - 1, { t: "span", mark, children, depth });
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

function findOpener(nodes: Node[], c: number, closer: Delimiter, floor: number): number {
  for (let o = c - 1; o > floor; o--) {
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
function wrap(inner: string, marker: string): string {
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

function inlineCode(code: string): string {
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
function plain(nodes: Node[], withUrls: boolean): string {
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

function escapeEntities(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

function neutralizeMentions(text: string): string {
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
function resolveStrays(text: string): string {
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
