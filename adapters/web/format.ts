/**
 * Chatbot markdown → the HTML the web chat page shows, rendered on the server by the one block parser
 * (`src/markdown/blocks.ts`), so the page sees the same tables, code blocks and lists as Telegram, Slack and
 * WhatsApp, and the page itself runs no markdown parser. The page shows it with `white-space: pre-wrap`: the lines
 * of the result are the lines on screen, as in the other channels' texts. Every character of the chatbot's text is
 * escaped and links go to http(s) or mailto addresses only, so nothing the chatbot says can inject markup.
 */

import { type BlockStyle, type ColumnAlign, renderBlocks } from "../../src/markdown/blocks.js";
import { escapeWebHtml, renderWebInline } from "./format-inline.js";

/** A code block's language becomes a class name: a word, or nothing. */
const LANGUAGE = /^[A-Za-z0-9_+#.-]{1,32}$/;

/** Renders chatbot markdown as the page's HTML; `plain` text is only escaped. */
export function markdownToWebHtml(markdown: string): string {
  return renderBlocks(markdown, WEB);
}

/** Plain text (the bridge's own messages) as the page's HTML. */
export function plainToWebHtml(text: string): string {
  return escapeWebHtml(text.trim());
}

/** The visible length of markdown once rendered: tags removed, entities counted as one character. */
export function measureWebHtml(markdown: string): number {
  return markdownToWebHtml(markdown)
    .replace(/<[^>]*>/g, "")
    .replace(/&(?:amp|lt|gt|quot|#39);/g, "&").length;
}

const cell = (tag: "th" | "td", text: string, align: ColumnAlign | undefined) =>
  `<${tag}${align && align !== "left" ? ` class="${align}"` : ""}>${renderWebInline(text)}</${tag}>`;

const WEB: BlockStyle = {
  paragraph: (text) => [renderWebInline(text)],
  heading: (title) => (title === "" ? [] : [`<strong class="heading">${renderWebInline(title)}</strong>`]),
  inline: renderWebInline,
  listIndent: "  ",
  bullet: () => "•",
  code: (lines, language) => {
    const code = lines.join("\n").replace(/\n+$/, "");
    if (code.trim() === "") return [];
    const kind = LANGUAGE.test(language) ? ` class="language-${language}"` : "";
    return [`<pre><code${kind}>${escapeWebHtml(code)}</code></pre>`];
  },
  // A real table, on one line: the page's lines are its text's lines.
  table: ([header = [], ...body], align) => [
    `<table><thead><tr>${header.map((text, k) => cell("th", text, align[k])).join("")}</tr></thead><tbody>${body
      .map((row) => `<tr>${row.map((text, k) => cell("td", text, align[k])).join("")}</tr>`)
      .join("")}</tbody></table>`,
  ],
  quote: (lines) => {
    const inner = lines.join("\n").trim();
    return inner === "" ? [] : [`<blockquote>${inner}</blockquote>`];
  },
  rule: "<hr>",
};
