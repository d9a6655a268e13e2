import { byteOffset, isSpace, parseError } from "./telegram-markup.js";

const HTML_TAGS = new Set("b strong i em u ins s strike del span tg-spoiler a code pre tg-emoji blockquote".split(" "));
const NAMED_ENTITIES = new Map([
  ["lt", "<"],
  ["gt", ">"],
  ["amp", "&"],
  ["quot", '"'],
]);
const ENTITY = /&(?:#x([0-9a-fA-F]*)|#(\d*)|([a-zA-Z]*))(;?)/y;

/**
 * Telegram's HTML parse mode (https://core.telegram.org/bots/api#html-style) as tdlib's parse_html reads it: its
 * tags only, balanced (`</>` closes any); an `&` that starts no known entity stays text, as tdlib keeps it.
 */
export function parseHtml(html: string): string {
  let visible = "";
  const open: string[] = [];
  for (let i = 0; i < html.length; ) {
    const c = html.charAt(i);
    const entity = c === "&" ? decodeEntity(html, i) : undefined;
    if (entity) {
      visible += entity.char;
      i = entity.end;
    } else if (c !== "<") {
      visible += c;
      i++;
    } else {
      i = html.charAt(i + 1) === "/" ? closeTag(html, i, open) : openTag(html, i, open);
    }
  }
  const unclosed = open.at(-1);
  if (unclosed !== undefined) throw parseError(`Can't find end tag corresponding to start tag "${unclosed}"`);
  return visible;
}

/** Reads the start tag at `begin` onto `open`; returns the index after it. */
function openTag(html: string, begin: number, open: string[]): number {
  const at = `at byte offset ${byteOffset(html, begin)}`;
  let i = begin + 1;
  while (i < html.length && !isSpace(html.charAt(i)) && html.charAt(i) !== ">") i++;
  if (i >= html.length) throw parseError(`Unclosed start tag ${at}`);
  const tag = html.slice(begin + 1, i).toLowerCase();
  if (!HTML_TAGS.has(tag)) throw parseError(`Unsupported start tag "${tag}" ${at}`);
  const attributes = new Map<string, string>();
  for (;;) {
    while (isSpace(html.charAt(i))) i++;
    if (i >= html.length) throw parseError(`Unclosed start tag ${at}`);
    if (html.charAt(i) === ">") break;
    const nameStart = i;
    while (i < html.length && !isSpace(html.charAt(i)) && html.charAt(i) !== "=" && html.charAt(i) !== ">") i++;
    const name = html.slice(nameStart, i).toLowerCase();
    if (name === "") throw parseError(`Empty attribute name in the tag "${tag}" ${at}`);
    while (isSpace(html.charAt(i))) i++;
    if (html.charAt(i) !== "=") {
      attributes.set(name, "");
      continue;
    }
    i++;
    while (isSpace(html.charAt(i))) i++;
    if (i >= html.length) throw parseError(`Unclosed start tag "${tag}" ${at}`);
    const quote = html.charAt(i);
    let value = "";
    if (quote === '"' || quote === "'") {
      for (i++; i < html.length && html.charAt(i) !== quote; ) {
        const entity = decodeEntity(html, i);
        value += entity ? entity.char : html.charAt(i);
        i = entity ? entity.end : i + 1;
      }
      i++;
    } else {
      const tokenStart = i;
      while (/^[A-Za-z0-9.-]$/.test(html.charAt(i))) i++;
      value = html.slice(tokenStart, i).toLowerCase();
      if (i < html.length && !isSpace(html.charAt(i)) && html.charAt(i) !== ">") {
        throw parseError(`Unexpected end of name token at byte offset ${byteOffset(html, tokenStart)}`);
      }
    }
    attributes.set(name, value);
  }
  if (tag === "span" && attributes.get("class") !== "tg-spoiler") {
    throw parseError(`Tag "span" must have class "tg-spoiler" ${at}`);
  }
  if (tag === "tg-emoji" && !/^[1-9]\d*$/.test(attributes.get("emoji-id") ?? "")) {
    throw parseError("Invalid custom emoji identifier specified");
  }
  open.push(tag);
  return i + 1;
}

/** Reads the end tag at `begin`, closing the innermost open tag; returns the index after it. */
function closeTag(html: string, begin: number, open: string[]): number {
  const at = `at byte offset ${byteOffset(html, begin)}`;
  const expected = open.pop();
  if (expected === undefined) throw parseError(`Unexpected end tag ${at}`);
  let i = begin + 2;
  while (i < html.length && !isSpace(html.charAt(i)) && html.charAt(i) !== ">") i++;
  const tag = html.slice(begin + 2, i).toLowerCase();
  while (isSpace(html.charAt(i))) i++;
  if (html.charAt(i) !== ">") throw parseError(`Unclosed end tag ${at}`);
  if (tag !== "" && tag !== expected) {
    throw parseError(`Unmatched end tag ${at}, expected "</${expected}>", found "</${tag}>"`);
  }
  return i + 1;
}

/** The character an entity at `i` stands for and the index after it; undefined when tdlib keeps the `&` as text. */
function decodeEntity(html: string, i: number): { char: string; end: number } | undefined {
  ENTITY.lastIndex = i;
  const [text = "", hex, decimal, name, semicolon = ""] = ENTITY.exec(html) ?? [];
  let char: string | undefined;
  if (name !== undefined) {
    char = NAMED_ENTITIES.get(name);
  } else {
    const code = hex !== undefined ? Number.parseInt(hex, 16) : Number.parseInt(decimal ?? "", 10);
    // tdlib gives up on references of 10 characters or more.
    if (code > 0 && code < 0x10ffff && text.length - semicolon.length < 10) char = String.fromCodePoint(code);
  }
  return char === undefined ? undefined : { char, end: i + text.length };
}
