import { refuse } from "./slack-errors.js";
import { filledParam, type Params } from "./slack-params.js";

/** `text` longer than this is refused (https://api.slack.com/changelog/2018-04-truncating-really-long-messages). */
const MAX_TEXT_LENGTH = 40_000;
/** "Limit this field to 12,000 characters" (chat.startStream / appendStream docs; chat.update likewise). */
const MAX_MARKDOWN_LENGTH = 12_000;
/** Block Kit: at most 50 blocks per message. */
const MAX_BLOCKS = 50;

/** What a message shows, as chat.postMessage or chat.update set it. */
export interface MessageContent {
  text: string;
  format: "mrkdwn" | "markdown";
  blocks: unknown[] | undefined;
}

/** The content of a post or update: `text` and/or `blocks`, or `markdown_text` alone. Throws Slack's refusals. */
export function messageContent(params: Params): MessageContent {
  const text = filledParam(params.text);
  const markdown = filledParam(params.markdown_text);
  const blocks = blocksOf(params.blocks);
  if (markdown !== undefined && (text !== undefined || blocks !== undefined)) throw refuse("invalid_arguments");
  if (markdown !== undefined) return { text: checkedMarkdown(markdown), format: "markdown", blocks: undefined };
  if (text === undefined && blocks === undefined) throw refuse("no_text");
  if (text !== undefined && text.length > MAX_TEXT_LENGTH) throw refuse("msg_too_long");
  return { text: text ?? "", format: "mrkdwn", blocks };
}

/**
 * The markdown a stream call adds: `markdown_text` followed by the text of its `markdown_text` chunks (WebClient's
 * `chatStream` helper sends chunks). Undefined when the call has neither; other chunk types show no text here.
 */
export function streamedMarkdown(params: Params): string | undefined {
  const chunks = params.chunks ?? [];
  if (!Array.isArray(chunks)) throw refuse("invalid_arguments");
  const markdown = filledParam(params.markdown_text);
  if (markdown === undefined && chunks.length === 0) return undefined;
  const chunkText = chunks
    .map((chunk: { type?: unknown; text?: unknown }) => (chunk?.type === "markdown_text" ? String(chunk.text) : ""))
    .join("");
  return checkedMarkdown((markdown ?? "") + chunkText);
}

/** The `blocks` argument: undefined when absent or empty, else an array of at most 50. */
export function blocksOf(value: unknown): unknown[] | undefined {
  if (value === undefined || value === "") return undefined;
  if (!Array.isArray(value)) throw refuse("invalid_blocks_format");
  if (value.length > MAX_BLOCKS) throw refuse("invalid_blocks");
  return value.length === 0 ? undefined : value;
}

/** Markdown within the 12,000-character limit. */
function checkedMarkdown(markdown: string): string {
  // The emulator's own name: the error Slack answers over the limit is not documented.
  if (markdown.length > MAX_MARKDOWN_LENGTH) throw refuse("markdown_text_too_long");
  return markdown;
}
