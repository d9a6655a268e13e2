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
 * Block structure is here; inline rendering, escaping and the stray-marker lookalikes are in `format-inline.ts`.
 */

import {
  escapeEntities,
  inlineCode,
  MARKUP,
  neutralizeMentions,
  PLACEHOLDERS,
  parseInline,
  plain,
  renderInline,
  resolveStrays,
  wrap,
  ZWSP,
} from "./format-inline.js";

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

const SOFT_HYPHEN = "\u00ad";

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
