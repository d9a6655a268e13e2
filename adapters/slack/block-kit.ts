/**
 * Slack's limit for a section's text (https://docs.slack.dev/reference/block-kit/blocks/section-block): a text over
 * it makes Slack refuse the whole message, so answers go without buttons and cards are cut to it.
 */
export const SECTION_TEXT_LIMIT = 3_000;

/** Block Kit's limit for a button's text, which suggested prompts' titles share. */
export const BUTTON_TEXT_LIMIT = 75;

/**
 * `text` within `length` characters, ending with "…" when cut: Slack refuses a field over its limit rather than
 * cutting it, and a cut text still reads as one.
 */
export function truncate(text: string, length: number): string {
  return text.length <= length ? text : `${text.slice(0, length - 1)}…`;
}
