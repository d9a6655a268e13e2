import { badRequest } from "./telegram-errors.js";

/** Telegram's refusal of markup its parser rejects. */
export const parseError = (why: string) => badRequest(`can't parse entities: ${why}`);

/** tdlib reports positions in UTF-8 bytes. */
export const byteOffset = (text: string, index: number) => Buffer.byteLength(text.slice(0, index));
/** Whitespace as tdlib's parsers read it. */
export const isSpace = (c: string) => /^[ \t\n\v\r]$/.test(c);
