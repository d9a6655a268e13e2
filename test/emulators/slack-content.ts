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

/** Block Kit's limits on what cards use (https://docs.slack.dev/reference/block-kit). */
const BLOCK_LIMITS = {
  sectionText: 3_000,
  imageUrl: 3_000,
  altText: 2_000,
  elements: 25,
  buttonText: 75,
  actionId: 255,
  value: 2_000,
  url: 3_000,
};

/**
 * The content of a post or update: `text` and/or `blocks`, or `markdown_text` alone. Throws Slack's refusals: blocks
 * that break Block Kit's rules, and an image Slack cannot download (one of `unreachableImages`), are `invalid_blocks`.
 */
export function messageContent(params: Params, unreachableImages: ReadonlySet<string> = new Set()): MessageContent {
  const text = filledParam(params.text);
  const markdown = filledParam(params.markdown_text);
  const blocks = blocksOf(params.blocks);
  if (blocks) checkBlocks(blocks, unreachableImages);
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

/**
 * Checks the blocks cards and quick replies use: sections (text up to 3,000 characters; an `image` accessory with
 * an http(s) `image_url` Slack can download and an `alt_text`) and actions (up to 25 buttons, each with a plain_text
 * text up to 75, an action_id unique in the message, a `value` up to 2,000 and/or a `url`). Other blocks pass.
 */
function checkBlocks(blocks: unknown[], unreachableImages: ReadonlySet<string>): void {
  const actionIds = new Set<string>();
  const within = (value: unknown, max: number) => typeof value === "string" && value !== "" && value.length <= max;
  for (const block of blocks as Record<string, unknown>[]) {
    if (block?.type === "section") {
      const text = block.text as { text?: unknown } | undefined;
      if (text !== undefined && !within(text.text, BLOCK_LIMITS.sectionText)) throw refuse("invalid_blocks");
      const accessory = block.accessory as Record<string, unknown> | undefined;
      if (accessory?.type === "image") {
        const url = accessory.image_url;
        if (!within(url, BLOCK_LIMITS.imageUrl) || !/^https?:\/\//i.test(String(url))) throw refuse("invalid_blocks");
        if (!within(accessory.alt_text, BLOCK_LIMITS.altText)) throw refuse("invalid_blocks");
        // Slack downloads the image while posting: "[ERROR] downloading image failed".
        if (unreachableImages.has(String(url))) throw refuse("invalid_blocks");
      }
    } else if (block?.type === "actions") {
      const elements = block.elements;
      if (!Array.isArray(elements) || elements.length === 0 || elements.length > BLOCK_LIMITS.elements) {
        throw refuse("invalid_blocks");
      }
      for (const element of elements as Record<string, unknown>[]) {
        if (element?.type !== "button") continue;
        const label = element.text as { type?: unknown; text?: unknown } | undefined;
        if (label?.type !== "plain_text" || !within(label.text, BLOCK_LIMITS.buttonText))
          throw refuse("invalid_blocks");
        const actionId = String(element.action_id ?? "");
        if (!within(actionId, BLOCK_LIMITS.actionId) || actionIds.has(actionId)) throw refuse("invalid_blocks");
        actionIds.add(actionId);
        if (element.value !== undefined && !within(element.value, BLOCK_LIMITS.value)) throw refuse("invalid_blocks");
        if (
          element.url !== undefined &&
          !(within(element.url, BLOCK_LIMITS.url) && /^https?:\/\//i.test(String(element.url)))
        ) {
          throw refuse("invalid_blocks");
        }
      }
    }
  }
}

/** Markdown within the 12,000-character limit. */
function checkedMarkdown(markdown: string): string {
  // The emulator's own name: the error Slack answers over the limit is not documented.
  if (markdown.length > MAX_MARKDOWN_LENGTH) throw refuse("markdown_text_too_long");
  return markdown;
}
