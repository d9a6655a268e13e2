import { byteOffset, isSpace, parseError } from "./telegram-markup.js";

type MarkdownEntity =
  | "Bold"
  | "Italic"
  | "Underline"
  | "Strikethrough"
  | "Spoiler"
  | "Code"
  | "Pre"
  | "PreCode"
  | "TextUrl"
  | "CustomEmoji";

const RESERVED = "_*[]()~`>#+-=|{}.!";
/** Longest first, so that `__` opens an underline rather than an italic. */
const OPENERS: [string, MarkdownEntity][] = [
  ["__", "Underline"],
  ["_", "Italic"],
  ["*", "Bold"],
  ["~", "Strikethrough"],
  ["||", "Spoiler"],
  ["`", "Code"],
  ["[", "TextUrl"],
  ["![", "CustomEmoji"],
];
const CLOSERS: Record<MarkdownEntity, string> = {
  Bold: "*",
  Italic: "_",
  Underline: "__",
  Strikethrough: "~",
  Spoiler: "||",
  Code: "`",
  Pre: "```",
  PreCode: "```",
  TextUrl: "]",
  CustomEmoji: "]",
};

/** A backslash escapes any ASCII character. */
const escapable = (md: string, i: number) => md.charCodeAt(i) > 0 && md.charCodeAt(i) <= 126;

/**
 * Telegram's MarkdownV2 (https://core.telegram.org/bots/api#markdownv2-style) after tdlib's parse_markdown_v2: every
 * reserved character is markup or escaped; inside code and pre only "`" is. A `>` starting a line quotes it.
 */
export function parseMarkdownV2(md: string): string {
  let visible = "";
  const open: { type: MarkdownEntity; begin: number }[] = [];
  for (let i = 0; i < md.length; i++) {
    const c = md.charAt(i);
    if (c === "\\" && escapable(md, i + 1)) {
      visible += md.charAt(++i);
      continue;
    }
    const inner = open.at(-1);
    const verbatim = inner?.type === "Code" || inner?.type === "Pre" || inner?.type === "PreCode";
    if (verbatim ? c !== "`" : !RESERVED.includes(c)) {
      visible += c;
      continue;
    }
    if (c === ">" && !verbatim && (i === 0 || md.charAt(i - 1) === "\n")) continue;
    if (inner && md.startsWith(CLOSERS[inner.type], i) && !(inner.type === "Italic" && md.charAt(i + 1) === "_")) {
      i += CLOSERS[inner.type].length - 1;
      if (inner.type === "TextUrl" || inner.type === "CustomEmoji") i = skipUrl(md, i, inner.type);
      open.pop();
      continue;
    }
    const opening = openingAt(md, i);
    if (!opening) throw parseError(`Character '${c}' is reserved and must be escaped with the preceding '\\'`);
    open.push({ type: opening.type, begin: i });
    i = opening.end - 1;
  }
  const unclosed = open.at(-1);
  if (unclosed) {
    throw parseError(`Can't find end of ${unclosed.type} entity at byte offset ${byteOffset(md, unclosed.begin)}`);
  }
  return visible;
}

/** The entity the markup at `i` opens and the index where its content starts. */
function openingAt(md: string, i: number): { type: MarkdownEntity; end: number } | undefined {
  if (md.startsWith("```", i)) {
    const pre = preStart(md, i + 3);
    return { type: pre.hasLanguage ? "PreCode" : "Pre", end: pre.index };
  }
  const [markup, type] = OPENERS.find(([candidate]) => md.startsWith(candidate, i)) ?? [];
  return markup === undefined || type === undefined ? undefined : { type, end: i + markup.length };
}

/** After a link's `]` at `i`: skips its `(url)` and returns the index of the `)`. */
function skipUrl(md: string, i: number, type: "TextUrl" | "CustomEmoji"): number {
  if (md.charAt(i + 1) !== "(") {
    if (type === "CustomEmoji") throw parseError("Custom emoji entity must contain a tg://emoji URL");
    return i; // the link text is the URL
  }
  const start = i + 2;
  for (let j = start; j < md.length; j++) {
    if (md.charAt(j) === "\\" && escapable(md, j + 1)) j++;
    else if (md.charAt(j) === ")") return j;
  }
  const what = type === "TextUrl" ? "a URL" : "a custom emoji URL";
  throw parseError(`Can't find end of ${what} at byte offset ${byteOffset(md, start)}`);
}

/** After an opening ```: skips the language (a word followed by a space) and one line break. */
function preStart(md: string, i: number): { index: number; hasLanguage: boolean } {
  let languageEnd = i;
  while (languageEnd < md.length && !isSpace(md.charAt(languageEnd)) && md.charAt(languageEnd) !== "`") languageEnd++;
  const hasLanguage = languageEnd !== i && languageEnd < md.length && md.charAt(languageEnd) !== "`";
  let index = hasLanguage ? languageEnd : i;
  const first = md.charAt(index);
  if (first === "\n" || first === "\r") {
    const second = md.charAt(index + 1);
    index += (second === "\n" || second === "\r") && second !== first ? 2 : 1;
  }
  return { index, hasLanguage };
}

const LEGACY_MARKUP = /^[_*`[]$/;

/** Telegram's legacy Markdown, as tdlib's parse_markdown reads it: `*bold*`, `_italic_`, code, pre, links; no nesting. */
export function parseMarkdown(md: string): string {
  let visible = "";
  for (let i = 0; i < md.length; i++) {
    const c = md.charAt(i);
    if (c === "\\" && LEGACY_MARKUP.test(md.charAt(i + 1))) {
      visible += md.charAt(++i);
      continue;
    }
    if (!LEGACY_MARKUP.test(c)) {
      visible += c;
      continue;
    }
    const pre = md.startsWith("```", i);
    const end = pre ? "```" : c === "[" ? "]" : c;
    const start = pre ? preStart(md, i + 3).index : i + 1;
    const close = md.indexOf(end, start);
    if (close < 0) throw parseError(`Can't find end of the entity starting at byte offset ${byteOffset(md, i)}`);
    visible += md.slice(start, close);
    i = close + end.length - 1;
    if (c === "[" && md.charAt(i + 1) === "(") {
      const paren = md.indexOf(")", i + 2);
      i = paren < 0 ? md.length : paren;
    }
  }
  return visible;
}
