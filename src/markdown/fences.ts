/**
 * Code fences, as both the block parser (`blocks.ts`) and the streaming view of a growing answer
 * (`src/bridge/reply/markdown-scan.ts`) read them, so that what one closes the other renders as code.
 *
 * CommonMark's rules, widened where chatbots mean a fence: the fence may be indented by tabs or any number of spaces
 * (under a list item, typically), and so may the line that closes it.
 */

const OPENING = /^([ \t]*)(`{3,}|~{3,})(.*)$/;
const CLOSING = /^[ \t]*(`{3,}|~{3,})[ \t]*$/;

/** An opening fence line, taken apart. */
export interface FenceLine {
  indent: string;
  /** The fence itself, e.g. ```` ``` ```` or `~~~~`. */
  marker: string;
  /** The info string, untrimmed. */
  info: string;
}

/** The fence `line` opens, or undefined; a backtick fence's info string holds no backtick (it is inline code). */
export function openingFence(line: string): FenceLine | undefined {
  const open = OPENING.exec(line);
  if (!open?.[2]) return undefined;
  const info = open[3] ?? "";
  if (open[2].startsWith("`") && info.includes("`")) return undefined;
  return { indent: open[1] ?? "", marker: open[2], info };
}

/** Whether `line` closes a block opened by `marker`: the same character, at least as many. */
export function closesFence(line: string, marker: string): boolean {
  const close = CLOSING.exec(line);
  return close?.[1] !== undefined && close[1][0] === marker[0] && close[1].length >= marker.length;
}

/** The language of an info string: its first word. */
export function fenceLanguage(info: string): string {
  return info.trim().split(/\s/, 1)[0] ?? "";
}
