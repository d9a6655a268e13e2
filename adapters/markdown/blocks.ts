/**
 * Block structure for the plain-text chat renderers (Slack mrkdwn, WhatsApp), which know neither headings, nested
 * lists nor tables: fences, quotes, headings, rules, lists nested by indentation and tables as aligned monospace
 * columns are found here, and each block is rendered by the platform's `BlockStyle`.
 */

import { PLACEHOLDERS, resolveStrays, ZWSP } from "./strays.js";

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

/** What a platform makes of each block; the lines it returns are the message's lines. */
export interface BlockStyle {
  /** A paragraph, its lines trimmed and joined with "\n". */
  paragraph(text: string): string[];
  /** A heading's title, trimmed (possibly empty). */
  heading(title: string): string[];
  /** A list item's or its continuation's inline content. */
  inline(text: string): string;
  /** The indentation one level of list nesting adds. */
  listIndent: string;
  /** The bullet of an unordered list item at `depth` (0 for the outermost). */
  bullet(depth: number): string;
  /** A table cell as plain text. */
  tableCell(cell: string): string;
  /** The text of a code block, escaped as the platform needs. */
  escapeCode(code: string): string;
  /** A non-blank line of code or table inside a quote, which gets no block of its own: as inline code. */
  quotedCode(line: string): string;
}

/**
 * Renders chatbot markdown with `style`: the input's own stray placeholders are dropped, and the literal markers
 * left as placeholders by the style become their characters or lookalikes (`resolveStrays`).
 */
export function renderMarkdown(markdown: string, style: BlockStyle): string {
  const lines = markdown.replace(/\r\n?/g, "\n").replace(PLACEHOLDERS, "").split("\n");
  return resolveStrays(renderBlocks(lines, style, false).join("\n").trim());
}

/** `inQuote`: inside a quote, which holds no code block and no other quote. */
function renderBlocks(lines: string[], style: BlockStyle, inQuote: boolean): string[] {
  const out: string[] = [];
  let paragraph: string[] = [];
  /** Indentation of the list items open at this point, outermost first. */
  let list: number[] = [];
  // Lines are appended one by one: spreading a long answer's lines into `push` would overflow the stack.
  const append = (rendered: string[]) => {
    for (const line of rendered) out.push(line);
  };
  const flush = () => {
    if (paragraph.length > 0) append(style.paragraph(paragraph.map((line) => line.trim()).join("\n")));
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
      block(preformatted(body, style, inQuote));
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
        quoted.push(inQuote ? inner.replace(QUOTES, "") : (QUOTE.exec(inner)?.[1] ?? ""));
      }
      k--;
      // A line holding only `>` is not a quote in Slack, so blank lines inside a quote are dropped.
      const inner = renderBlocks(quoted, style, true).filter((rendered) => rendered.trim() !== "");
      block(inQuote ? inner : inner.map((rendered) => `> ${rendered}`));
      continue;
    }
    const heading = HEADING.exec(line);
    if (heading) {
      block(style.heading((heading[1] ?? "").trim()));
      continue;
    }
    if (RULE.test(line)) {
      block(["───"]);
      continue;
    }
    const item = LIST_ITEM.exec(line);
    if (item) {
      flush();
      out.push(listItem(list, style, item[1] ?? "", item[2] ?? "-", item[3] ?? ""));
      continue;
    }
    if (line.includes("|") && TABLE_DELIMITER.test(lines[k + 1] ?? "")) {
      const rows = [line];
      for (k++; k < lines.length && (lines[k] ?? "").includes("|") && !BLANK.test(lines[k] ?? ""); k++) {
        rows.push(lines[k] ?? "");
      }
      k--;
      block(preformatted(table(rows, style), style, inQuote));
      continue;
    }
    if (list.length > 0 && paragraph.length === 0 && /^[ \t]/.test(line)) {
      // An indented line under a list item continues it: it keeps the item's indentation.
      out.push(`${style.listIndent.repeat(Math.min(list.length - 1, 6))}  ${style.inline(line.trim())}`);
      continue;
    }
    list = [];
    paragraph.push(line);
  }
  flush();
  return out;
}

function closesFence(line: string, marker: string): boolean {
  const match = FENCE_CLOSE.exec(line);
  return match?.[1] !== undefined && match[1][0] === marker[0] && match[1].length >= marker.length;
}

/** Code or a table: a ``` block, or inside a quote a line of inline code per line. */
function preformatted(lines: string[], style: BlockStyle, inQuote: boolean): string[] {
  const body = [...lines];
  while (body.length > 0 && BLANK.test(body.at(-1) ?? "")) body.pop();
  if (body.every((line) => BLANK.test(line))) return [];
  if (inQuote) return body.map((line) => (BLANK.test(line) ? "" : style.quotedCode(line)));
  // The language is dropped: neither platform highlights anything. A ``` inside the code would end the block early.
  const code = style.escapeCode(body.join("\n")).replace(/`{3,}/g, (run) => [...run].join(ZWSP));
  return [`\`\`\`\n${code}\n\`\`\``];
}

function listItem(list: number[], style: BlockStyle, indent: string, marker: string, content: string): string {
  // Depth comes from the indentation of the items above, whatever step the chatbot indents by (2, 3 or 4).
  const width = indent.replace(/\t/g, "    ").length;
  while (list.length > 0 && (list.at(-1) ?? 0) > width) list.pop();
  if (list.length > 0 && list.at(-1) === width) list.pop();
  list.push(width);
  const depth = list.length - 1;
  const lead = style.listIndent.repeat(Math.min(depth, 6));
  const task = TASK.exec(content);
  if (task) return `${lead}${task[1] === " " ? "☐" : "☑"} ${style.inline(content.slice(task[0].length))}`;
  const bullet = /\d/.test(marker) ? `${marker.slice(0, -1)}.` : style.bullet(depth);
  return `${lead}${bullet} ${style.inline(content)}`;
}

/** A markdown table as aligned plain-text columns, each cell as the style's plain text. */
function table(lines: string[], style: BlockStyle): string[] {
  const [header = [], delimiter = [], ...body] = lines.map(tableCells);
  const align = delimiter.map((cell) => (cell.endsWith(":") ? (cell.startsWith(":") ? "center" : "right") : "left"));
  const rows = [header, ...body].map((row) => header.map((_, c) => style.tableCell(row[c] ?? "")));
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
