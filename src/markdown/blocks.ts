/**
 * The one block parser of the bridge's renderers: every channel (Telegram HTML, Slack mrkdwn, WhatsApp) gets its
 * fences, quotes, headings, rules, lists nested by indentation and tables from here, so what is a table or a code
 * block is decided once and all platforms agree. Each block is drawn by the platform's `BlockStyle`; inline runs are
 * handed over as markdown, for the platform's inline renderer.
 *
 * The rules follow CommonMark and GitHub's tables, widened where chatbots mean more than they wrote: a fence may be
 * indented by tabs or any spaces (`fences.ts`), and a table delimiter needs one dash per column (`tables.ts`).
 */

import { closesFence, fenceLanguage, openingFence } from "./fences.js";
import { isTableDelimiter } from "./tables.js";

const HEADING = /^ {0,3}#{1,6}(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;
const RULE = /^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/;
const QUOTE = /^ {0,3}>[ \t]?(.*)$/;
const QUOTES = /^(?: {0,3}>[ \t]?)+/;
const LIST_ITEM = /^([ \t]*)([-+*]|\d{1,9}[.)])[ \t]+(.*)$/;
const TASK = /^\[([ xX])\][ \t]+/;
const BLANK = /^[ \t]*$/;

/** A table column's alignment, from its delimiter row. */
export type ColumnAlign = "left" | "right" | "center";

/** What a platform makes of each block; the lines it returns are the message's lines. */
export interface BlockStyle {
  /** A paragraph's inline markdown, its lines trimmed and joined with "\n". */
  paragraph(text: string): string[];
  /** A heading's title, trimmed (possibly empty). */
  heading(title: string): string[];
  /** A list item's or its continuation's inline markdown. */
  inline(text: string): string;
  /** The indentation one level of list nesting adds. */
  listIndent: string;
  /** The bullet of an unordered list item at `depth` (0 for the outermost). */
  bullet(depth: number): string;
  /** A code block's lines (`language` possibly empty); `inQuote` when inside a quote. */
  code(lines: string[], language: string, inQuote: boolean): string[];
  /** A table: its rows (header first, no delimiter row) of cells as inline markdown, and each column's alignment. */
  table(rows: string[][], align: ColumnAlign[], inQuote: boolean): string[];
  /** A quote around its rendered blocks (a quote inside it already flattened into them). */
  quote(lines: string[]): string[];
  /** A thematic break. */
  rule: string;
}

/** Renders chatbot markdown block by block with `style`: the message's text, trimmed. */
export function renderBlocks(markdown: string, style: BlockStyle): string {
  const lines = markdown.replace(/\r\n?/g, "\n").split("\n");
  return blocks(lines, style, false).join("\n").trim();
}

/** `inQuote`: inside a quote, which holds no other quote (an inner one is flattened into it). */
function blocks(lines: string[], style: BlockStyle, inQuote: boolean): string[] {
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
    const fence = openingFence(line);
    if (fence) {
      const body: string[] = [];
      for (k++; k < lines.length; k++) {
        const inner = lines[k] ?? "";
        if (closesFence(inner, fence.marker)) break;
        body.push(inner.replace(new RegExp(`^[ \\t]{0,${fence.indent.length}}`), ""));
      }
      block(style.code(body, fenceLanguage(fence.info), inQuote));
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
      const inner = blocks(quoted, style, true);
      block(inQuote ? inner : style.quote(inner));
      continue;
    }
    const heading = HEADING.exec(line);
    if (heading) {
      block(style.heading((heading[1] ?? "").trim()));
      continue;
    }
    if (RULE.test(line)) {
      block([style.rule]);
      continue;
    }
    const item = LIST_ITEM.exec(line);
    if (item) {
      flush();
      out.push(listItem(list, style, item[1] ?? "", item[2] ?? "-", item[3] ?? ""));
      continue;
    }
    if (line.includes("|") && isTableDelimiter(lines[k + 1] ?? "")) {
      const rows = [line];
      for (k++; k < lines.length && (lines[k] ?? "").includes("|") && !BLANK.test(lines[k] ?? ""); k++) {
        rows.push(lines[k] ?? "");
      }
      k--;
      const [header = [], delimiter = [], ...body] = rows.map(tableCells);
      block(style.table([header, ...body], delimiter.map(alignOf), inQuote));
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

function alignOf(cell: string): ColumnAlign {
  return cell.endsWith(":") ? (cell.startsWith(":") ? "center" : "right") : "left";
}

/** A row's cells, trimmed; an escaped `\|` belongs to its cell. */
function tableCells(line: string): string[] {
  const row = line
    .trim()
    .replace(/^\|/, "")
    .replace(/(?<!\\)\|$/, "");
  return row.split(/(?<!\\)\|/).map((cell) => cell.trim());
}
