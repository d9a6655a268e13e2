/**
 * Chatbot markdown → WhatsApp formatting (https://faq.whatsapp.com/539178204879377).
 *
 * WhatsApp knows bold, italic, strike, inline code, monospace blocks, "- " and "1. " lists and "> " quotes, nothing
 * else: headings become bold lines, links "text (url)" (WhatsApp links bare addresses itself), tables monospace
 * blocks. It has no escape character: see `src/markdown/strays.ts` for how literal markers stay literal, and
 * `format-inline.ts` for when a span is shown. Spans are closed and reopened at line ends, so nothing relies on
 * WhatsApp formatting across lines.
 *
 * Blocks come from the one block parser (`src/markdown/blocks.ts`, `src/markdown/chat-blocks.ts`) and rendered here (`WHATSAPP`).
 */

import { type ChatStyle, renderChatMarkdown } from "../../src/markdown/chat-blocks.js";
import { GRAVE, ZWSP } from "../../src/markdown/strays.js";
import { plainInline, renderHeading, renderInline } from "./format-inline.js";

/**
 * Renders the chatbot's markdown as WhatsApp formatting (https://faq.whatsapp.com/539178204879377): *bold*,
 * _italic_, ~strike~, `inline code`, ```monospace blocks```, "- " / "1. " lists, "> " quotes; headings as bold
 * lines; links as "text (url)" or the bare url when the text is the url (WhatsApp linkifies bare URLs; it has no link
 * markup); images as their link; tables as monospace blocks; rules as a line of "───". Literal and unbalanced
 * markers stay literal, emphasis WhatsApp could not show is plain text; deterministic, and never throws.
 */
export function markdownToWhatsApp(markdown: string): string {
  return renderChatMarkdown(markdown, WHATSAPP);
}

/** WhatsApp's length of `markdown` once rendered (UTF-16 code units, never fewer than WhatsApp counts), for splitting. */
export function measureWhatsApp(markdown: string): number {
  return markdownToWhatsApp(markdown).length;
}

const WHATSAPP: ChatStyle = {
  paragraph: (text) => textLines(renderInline(text)),
  heading: (text) => {
    const title = renderHeading(text);
    return title === "" ? [] : textLines(title);
  },
  inline: renderInline,
  listIndent: "  ",
  bullet: () => "-",
  // Inline formatting dropped, link addresses in parentheses.
  tableCell: plainInline,
  // WhatsApp has no escape character: code goes into the block as it is.
  escapeCode: (code) => code,
  // A monospace block inside a quote would take the quote's "> " into it.
  quotedCode: (line) => `\`${line.trim().replace(/`/g, GRAVE)}\``,
};

/** Lines of text: one starting with `>` would be a quote, and a zero-width space before it keeps it text. */
function textLines(rendered: string): string[] {
  return rendered.split("\n").map((line) => (line.startsWith(">") ? `${ZWSP}${line}` : line));
}
