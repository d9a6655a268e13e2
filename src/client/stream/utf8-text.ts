const STREAM = { stream: true };

/**
 * One decoder for every decoding: it holds nothing between calls, and each decoder costs about 1.3 KB outside
 * the heap, which one per answer under way would multiply. In stream mode, which Node 20 decodes several
 * times faster; keeping a U+FEFF that opens the text, as the body's decoder keeps it there.
 */
const decoder = new TextDecoder("utf-8", { fatal: false, ignoreBOM: true });

/**
 * The text of UTF-8 bytes that are all of a text (a line, a value) between ASCII bytes of the body, as the body's
 * decoder makes it there: bad bytes as U+FFFD, a character cut at the end as one bad character, U+FEFF kept.
 */
export function decodeUtf8(bytes: Uint8Array): string {
  const text = decoder.decode(bytes, STREAM);
  // Ending on ASCII leaves nothing pending; otherwise flushing ends a cut character and cleans up for the next call.
  return (bytes[bytes.length - 1] ?? 0) >= 0x80 ? text + decoder.decode() : text;
}
