/**
 * Chatbot markdown → Telegram's HTML parse mode (https://core.telegram.org/bots/api#html-style).
 *
 * HTML rather than MarkdownV2: MarkdownV2 makes 18 characters reserved everywhere, so any text the renderer does
 * not understand breaks the whole message ("can't parse entities"); in HTML only `<`, `>` and `&` must be escaped.
 * Telegram supports no lists, headings or tables: lists become "• " lines, headings bold lines, table rows plain
 * lines. Telegram's nesting rules are kept: nothing inside `<code>`/`<pre>`, no `<pre>` inside `<blockquote>`, no
 * blockquote inside another, no link inside a link, and no tag nested in itself.
 */

import { escapeHtml, type InlineTag, renderInline } from "./format-inline.js";

export { escapeHtml, safeHref } from "./format-inline.js";

const FENCE_OPEN = /^( {0,3})(`{3,}|~{3,})[ \t]*([^\s`]*)[^`]*$/;
const HEADING = /^ {0,3}#{1,6}(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;
const RULE = /^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/;
const QUOTE = /^ {0,3}> ?(.*)$/;
const LIST_ITEM = /^([ \t]*)([-+*]|\d{1,9}[.)])[ \t]+(.*)$/;
const TASK = /^\[([ xX])\][ \t]+/;
const TABLE_DELIMITER = /^[ \t]*\|?[ \t]*:?-{3,}:?[ \t]*(?:\|[ \t]*:?-{3,}:?[ \t]*)+\|?[ \t]*$/;
const TABLE_ROW = /^[ \t]*\|.*\|[ \t]*$/;
const BLANK = /^[ \t]*$/;
/** Telegram's `language-…` class takes a word; anything else would be attribute injection. */
const LANGUAGE = /^[A-Za-z0-9_+#.-]{1,32}$/;

interface BlockContext {
  /** Inside a `<blockquote>`: Telegram allows neither `<pre>` nor another blockquote there. */
  inQuote: boolean;
}

/**
 * Renders chatbot markdown (CommonMark-ish, as LLMs write it) as Telegram HTML: `**bold**`/`__bold__` →
 * `<b>`, `*italic*`/`_italic_` → `<i>`, `~~strike~~` → `<s>`, `` `code` `` → `<code>`, fenced blocks →
 * `<pre><code class="language-x">`, `[text](url)` → `<a href>` for http(s) and tg links only, `> quote` →
 * `<blockquote>`. Everything else is text, escaped; unbalanced markers stay literal. The result is always
 * well-formed for Telegram's parser, whatever the input.
 */
export function markdownToTelegramHtml(markdown: string): string {
  const lines = markdown.replace(/\r\n?/g, "\n").split("\n");
  return renderBlocks(lines, { inQuote: false }).trim();
}

/**
 * The length Telegram measures against its 4096-character limit ("1-4096 characters after entities
 * parsing", https://core.telegram.org/bots/api#sendmessage): tags removed, entities decoded, counted in UTF-16
 * code units as Telegram counts entity offsets (so an emoji outside the BMP counts 2: never an underestimate).
 * Telegram also trims leading and trailing whitespace of a message.
 */
export function visibleLength(html: string): number {
  return decodeEntities(html.replace(/<[^>]*>/g, "")).trim().length;
}

/** The visible length of markdown once rendered: the `measure` the reply splitter needs for Telegram. */
export function measureMarkdown(markdown: string): number {
  return visibleLength(markdownToTelegramHtml(markdown));
}

function decodeEntities(text: string): string {
  return text.replace(/&(?:#(\d{1,7})|#x([0-9a-fA-F]{1,6})|(lt|gt|amp|quot));/g, (_all, dec, hex, name) => {
    if (name) return { lt: "<", gt: ">", amp: "&", quot: '"' }[name as "lt" | "gt" | "amp" | "quot"];
    const code = dec !== undefined ? Number(dec) : Number.parseInt(hex as string, 16);
    return code <= 0x10ffff ? String.fromCodePoint(code) : "";
  });
}

function renderBlocks(lines: string[], context: BlockContext): string {
  const out: string[] = [];
  let paragraph: string[] = [];
  const flush = () => {
    if (paragraph.length > 0) out.push(renderInline(paragraph.join("\n"), new Set()));
    paragraph = [];
  };
  for (let k = 0; k < lines.length; k++) {
    const line = lines[k] ?? "";
    const fence = FENCE_OPEN.exec(line);
    if (fence) {
      flush();
      const indent = fence[1]?.length ?? 0;
      const marker = fence[2] ?? "```";
      const body: string[] = [];
      for (k++; k < lines.length; k++) {
        const inner = lines[k] ?? "";
        if (closesFence(inner, marker)) break;
        body.push(inner.replace(new RegExp(`^ {0,${indent}}`), ""));
      }
      out.push(codeBlock(body.join("\n").replace(/\n+$/, ""), fence[3] ?? "", context));
      continue;
    }
    if (BLANK.test(line)) {
      flush();
      if (out.length > 0 && out.at(-1) !== "") out.push("");
      continue;
    }
    if (QUOTE.test(line)) {
      flush();
      const quoted: string[] = [];
      for (; k < lines.length; k++) {
        const match = QUOTE.exec(lines[k] ?? "");
        if (!match) break;
        quoted.push(match[1] ?? "");
      }
      k--;
      const inner = renderBlocks(quoted, { inQuote: true }).trim();
      // Telegram cannot nest blockquotes: an inner quote's lines join the outer one.
      if (inner !== "") out.push(context.inQuote ? inner : `<blockquote>${inner}</blockquote>`);
      continue;
    }
    const heading = HEADING.exec(line);
    if (heading) {
      flush();
      const title = (heading[1] ?? "").trim();
      if (title !== "") out.push(`<b>${renderInline(title, new Set<InlineTag>(["b"]))}</b>`);
      continue;
    }
    if (RULE.test(line)) {
      flush();
      out.push("———");
      continue;
    }
    const item = LIST_ITEM.exec(line);
    if (item) {
      flush();
      out.push(listItem(item[1] ?? "", item[2] ?? "-", item[3] ?? ""));
      continue;
    }
    if (TABLE_DELIMITER.test(line)) continue; // `|---|---|` carries no content
    if (TABLE_ROW.test(line)) {
      flush();
      out.push(tableRow(line));
      continue;
    }
    paragraph.push(line);
  }
  flush();
  return out.join("\n");
}

function closesFence(line: string, marker: string): boolean {
  const match = /^ {0,3}(`{3,}|~{3,})[ \t]*$/.exec(line);
  return match?.[1] !== undefined && match[1][0] === marker[0] && match[1].length >= marker.length;
}

function codeBlock(code: string, language: string, context: BlockContext): string {
  if (code.trim() === "") return "";
  const escaped = escapeHtml(code);
  // No <pre> inside a blockquote; the lines stay monospace as inline code.
  if (context.inQuote) return `<code>${escaped}</code>`;
  return LANGUAGE.test(language)
    ? `<pre><code class="language-${language}">${escaped}</code></pre>`
    : `<pre>${escaped}</pre>`;
}

function listItem(indent: string, marker: string, content: string): string {
  // Nested lists keep their depth, two spaces a level (tabs count as one level).
  const depth = Math.floor(indent.replace(/\t/g, "  ").length / 2);
  const lead = "  ".repeat(Math.min(depth, 6));
  const bullet = /\d/.test(marker) ? `${marker.slice(0, -1)}.` : "•";
  const task = TASK.exec(content);
  if (task) return `${lead}${task[1] === " " ? "☐" : "☑"} ${renderInline(content.slice(task[0].length), new Set())}`;
  return `${lead}${bullet} ${renderInline(content, new Set())}`;
}

function tableRow(line: string): string {
  // An escaped `\|` belongs to its cell.
  const cells = line
    .trim()
    .slice(1, -1)
    .split(/(?<!\\)\|/);
  return cells.map((cell) => renderInline(cell.trim(), new Set())).join(" | ");
}
