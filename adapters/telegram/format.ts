/**
 * Chatbot markdown → Telegram's HTML parse mode (https://core.telegram.org/bots/api#html-style).
 *
 * HTML rather than MarkdownV2: MarkdownV2 makes 18 characters reserved everywhere, so any text the renderer does
 * not understand breaks the whole message ("can't parse entities"); in HTML only `<`, `>` and `&` must be escaped.
 * Telegram supports no lists, headings or tables: lists become "• " lines, headings bold lines, table rows plain
 * lines. Telegram's nesting rules are kept: nothing inside `<code>`/`<pre>`, no `<pre>` inside `<blockquote>`, no
 * blockquote inside another, no link inside a link, and no tag nested in itself.
 */

import { type BlockStyle, renderBlocks } from "../../src/markdown/blocks.js";
import { escapeHtml, type InlineTag, renderInline } from "./format-inline.js";

export { escapeHtml, safeHref } from "./format-inline.js";

/** Telegram's `language-…` class takes a word; anything else would be attribute injection. */
const LANGUAGE = /^[A-Za-z0-9_+#.-]{1,32}$/;
const NONE: ReadonlySet<InlineTag> = new Set();

/**
 * Renders chatbot markdown (CommonMark-ish with GitHub's tables and task lists, as LLMs write it) as Telegram HTML:
 * `**bold**`/`__bold__` → `<b>`, `*italic*`/`_italic_` → `<i>`, `~~strike~~` → `<s>`, `` `code` `` → `<code>`,
 * code blocks → `<pre><code class="language-x">`, `[text](url)` → `<a href>` for http(s) and tg links only,
 * `> quote` → `<blockquote>`. Everything else is text, escaped; unbalanced markers stay literal. The result is always
 * well-formed for Telegram's parser, whatever the input. Blocks come from the one block parser
 * (`src/markdown/blocks.ts`), so Telegram sees the same tables, code blocks and lists as the other channels.
 */
export function markdownToTelegramHtml(markdown: string): string {
  return renderBlocks(markdown, TELEGRAM);
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

const TELEGRAM: BlockStyle = {
  paragraph: (text) => [renderInline(text, NONE)],
  heading: (title) => (title === "" ? [] : [`<b>${renderInline(title, new Set<InlineTag>(["b"]))}</b>`]),
  inline: (text) => renderInline(text, NONE),
  // Nested lists keep their depth, two spaces a level.
  listIndent: "  ",
  bullet: () => "•",
  code: (lines, language, inQuote) => codeBlock(lines.join("\n").replace(/\n+$/, ""), language, inQuote),
  // Table rows as lines of cells (Telegram has no tables), the delimiter row dropped.
  table: (rows) => rows.map((cells) => cells.map((cell) => renderInline(cell, NONE)).join(" | ")),
  // Telegram cannot nest blockquotes: an inner quote's lines have joined the outer one.
  quote: (lines) => {
    const inner = lines.join("\n").trim();
    return inner === "" ? [] : [`<blockquote>${inner}</blockquote>`];
  },
  rule: "———",
};

function codeBlock(code: string, language: string, inQuote: boolean): string[] {
  if (code.trim() === "") return [];
  const escaped = escapeHtml(code);
  // No <pre> inside a blockquote; the lines stay monospace as inline code.
  if (inQuote) return [`<code>${escaped}</code>`];
  return [
    LANGUAGE.test(language)
      ? `<pre><code class="language-${language}">${escaped}</code></pre>`
      : `<pre>${escaped}</pre>`,
  ];
}
