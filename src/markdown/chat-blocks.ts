/**
 * The blocks of the plain-text chat renderers (Slack mrkdwn, WhatsApp), which know neither headings, nested lists
 * nor tables: code and tables become ``` blocks (tables as aligned monospace columns), quotes `> ` lines, rules a
 * line of "───"; the platform's `ChatStyle` renders the text in them.
 */

import { type BlockStyle, type ColumnAlign, renderBlocks } from "./blocks.js";
import { PLACEHOLDERS, resolveStrays, ZWSP } from "./strays.js";

const BLANK = /^[ \t]*$/;

/** What a chat platform makes of the text in each block. */
export interface ChatStyle {
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
export function renderChatMarkdown(markdown: string, style: ChatStyle): string {
  return resolveStrays(renderBlocks(markdown.replace(PLACEHOLDERS, ""), chatBlocks(style)));
}

function chatBlocks(style: ChatStyle): BlockStyle {
  return {
    paragraph: style.paragraph,
    heading: style.heading,
    inline: style.inline,
    listIndent: style.listIndent,
    bullet: style.bullet,
    code: (lines, _language, inQuote) => preformatted(lines, style, inQuote),
    table: (rows, align, inQuote) => preformatted(columns(rows, align, style), style, inQuote),
    // A line holding only `>` is not a quote in Slack, so blank lines inside a quote are dropped.
    quote: (lines) => lines.filter((line) => line.trim() !== "").map((line) => `> ${line}`),
    rule: "───",
  };
}

/** Code or a table: a ``` block, or inside a quote a line of inline code per line. */
function preformatted(lines: string[], style: ChatStyle, inQuote: boolean): string[] {
  const body = [...lines];
  while (body.length > 0 && BLANK.test(body.at(-1) ?? "")) body.pop();
  if (body.every((line) => BLANK.test(line))) return [];
  if (inQuote) return body.map((line) => (BLANK.test(line) ? "" : style.quotedCode(line)));
  // The language is dropped: neither platform highlights anything. A ``` inside the code would end the block early.
  const code = style.escapeCode(body.join("\n")).replace(/`{3,}/g, (run) => [...run].join(ZWSP));
  return [`\`\`\`\n${code}\n\`\`\``];
}

/** A table as aligned plain-text columns, each cell as the style's plain text, a rule under the header. */
function columns(cells: string[][], align: ColumnAlign[], style: ChatStyle): string[] {
  const [header = [], ...body] = cells;
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
