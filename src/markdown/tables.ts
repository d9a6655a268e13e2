/**
 * Table delimiter rows (`|--|--|`, `| :--- | ---: |`), as both the block parser (`blocks.ts`) and the streaming view
 * of a growing answer (`src/bridge/reply/markdown-scan.ts`) read them: one dash per column is enough, as in GFM.
 */

const DELIMITER = /^[ \t]*\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)+\|?[ \t]*$/;
/** What a delimiter row looks like while it is still being typed (possibly nothing yet). */
const DELIMITER_PREFIX = /^[ \t]*\|?(?:[ \t]*:?-*:?[ \t]*\|?)*$/;

/** Whether `line` is a table's delimiter row, which makes the line above it a table's header. */
export function isTableDelimiter(line: string): boolean {
  return DELIMITER.test(line);
}

/** Whether `line`, the last of a growing text, may still become a delimiter row. */
export function mayBecomeTableDelimiter(line: string): boolean {
  return DELIMITER_PREFIX.test(line);
}
