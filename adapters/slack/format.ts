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
 * Blocks come from the one block parser (`src/markdown/blocks.ts`, `src/markdown/chat-blocks.ts`) and rendered here (`MRKDWN`); inline rendering and escaping are
 * in `format-inline.ts`, the stray-marker lookalikes in `src/markdown/strays.ts`.
 */

import { type ChatStyle, renderChatMarkdown } from "../../src/markdown/chat-blocks.js";
import { MARKUP, wrap } from "../../src/markdown/chat-inline.js";
import { escapeEntities, inlineCode, neutralizeMentions, parseInline, plain, renderInline } from "./format-inline.js";

const SOFT_HYPHEN = "\u00ad";

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
  return renderChatMarkdown(markdown, MRKDWN);
}

/**
 * The length Slack counts for `markdown` once rendered (characters of the mrkdwn), for splitting long answers.
 * Counted in UTF-16 code units, never fewer than Slack's characters, so a piece that fits here fits there.
 */
export function measureMrkdwn(markdown: string): number {
  return markdownToMrkdwn(markdown).length;
}

const MRKDWN: ChatStyle = {
  paragraph: (text) => {
    const rendered = renderInline(text, new Set());
    // Slack reads `&gt;` at the start of a line as a quote; a soft hyphen in front keeps it text.
    return rendered.split("\n").map((line) => (/^(?:&gt;|＞)/.test(line) ? `${SOFT_HYPHEN}${line}` : line));
  },
  heading: (text) => {
    const title = renderInline(text, new Set(["b"]));
    return title === "" ? [] : [wrap(title, MARKUP.b)];
  },
  inline: (text) => renderInline(text, new Set()),
  listIndent: "    ",
  bullet: (depth) => (depth === 0 ? "•" : "◦"),
  // Inline formatting dropped, link targets kept in parentheses.
  tableCell: (cell) => neutralizeMentions(plain(parseInline(cell), true)),
  // Code needs the three entities like any text.
  escapeCode: escapeEntities,
  // Slack puts no preformatted block inside a quote, and quotes do not nest.
  quotedCode: inlineCode,
};
