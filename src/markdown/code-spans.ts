/** Backtick runs and code spans as CommonMark reads them, for the chat renderers' inline parsers. */

/** How many `ch` stand in a row from `at`. */
export function runLength(text: string, at: number, ch: string): number {
  let end = at;
  while (text[end] === ch) end++;
  return end - at;
}

/** Start of the next backtick run of exactly `run` characters after `from`, or -1. */
export function findBacktickRun(text: string, from: number, run: number): number {
  for (let k = text.indexOf("`", from); k !== -1; ) {
    const length = runLength(text, k, "`");
    if (length === run) return k;
    k = text.indexOf("`", k + length);
  }
  return -1;
}

/** CommonMark: line endings become spaces, and one space each side is stripped when both are there. */
export function codeSpanContent(raw: string): string {
  const content = raw.replace(/\n/g, " ");
  return /^ .*[^ ].* $/s.test(content) ? content.slice(1, -1) : content;
}
