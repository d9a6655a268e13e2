/** Page header size before the segment table (RFC 3533 §6). */
const PAGE_HEADER_BYTES = 27;
/** Opus granule positions always count 48 kHz samples, whatever rate the decoder outputs (RFC 7845 §4). */
const OPUS_GRANULE_RATE = 48_000;

/** What an Ogg file's page headers tell before any packet is decoded. */
export interface OggLayout {
  /**
   * Bytes up to the end of the last complete page. A cut-off last page must not reach the decoders: its missing
   * packets come out of ogg-opus-decoder as seconds of concealment audio that never existed.
   */
  completeLength: number;
  /**
   * Duration the last granule position declares (minus the Opus pre-skip; Vorbis counts samples at the rate of its
   * identification header), or undefined when the first page holds neither an Opus nor a Vorbis header.
   */
  seconds: number | undefined;
}

/**
 * Walks the page headers (no CRC check, no packet decoded): cheap enough to run on every file, so a note that is
 * too long is refused before any decoding. A damaged stretch is skipped by searching for the next capture pattern,
 * as decoders do.
 */
export function readOggLayout(bytes: Uint8Array): OggLayout {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let completeLength = 0;
  let firstPage: { serial: number; body: Uint8Array } | undefined;
  let lastGranule = -1n;
  for (let at = nextCapture(bytes, 0); at >= 0; ) {
    const segments = bytes[at + 26];
    const bodyStart = at + PAGE_HEADER_BYTES + (segments ?? 0);
    if (segments === undefined || bytes[at + 4] !== 0 || bodyStart > bytes.length) {
      at = nextCapture(bytes, at + 1);
      continue;
    }
    let bodyLength = 0;
    for (let i = at + PAGE_HEADER_BYTES; i < bodyStart; i++) bodyLength += bytes[i] ?? 0;
    const end = bodyStart + bodyLength;
    if (end > bytes.length) {
      at = nextCapture(bytes, at + 1);
      continue;
    }
    const serial = view.getUint32(at + 14, true);
    firstPage ??= { serial, body: bytes.subarray(bodyStart, end) };
    // -1 marks a page on which no packet ends; another stream's pages count other samples.
    const granule = view.getBigInt64(at + 6, true);
    if (granule >= 0n && serial === firstPage.serial) lastGranule = granule;
    completeLength = end;
    at = nextCapture(bytes, end);
  }
  const seconds = firstPage && lastGranule >= 0n ? declaredSeconds(firstPage.body, lastGranule) : undefined;
  return { completeLength, seconds };
}

function declaredSeconds(header: Uint8Array, granule: bigint): number | undefined {
  const view = new DataView(header.buffer, header.byteOffset, header.byteLength);
  if (startsWith(header, "OpusHead") && header.length >= 12) {
    const preSkip = view.getUint16(10, true);
    return Math.max(0, Number(granule) - preSkip) / OPUS_GRANULE_RATE;
  }
  if (startsWith(header, "\x01vorbis") && header.length >= 16) {
    const rate = view.getUint32(12, true);
    return rate > 0 ? Number(granule) / rate : undefined;
  }
  return undefined;
}

/** Offset of the next "OggS" at or after `from`, or -1. */
function nextCapture(bytes: Uint8Array, from: number): number {
  for (let at = bytes.indexOf(0x4f, from); at >= 0; at = bytes.indexOf(0x4f, at + 1)) {
    if (bytes[at + 1] === 0x67 && bytes[at + 2] === 0x67 && bytes[at + 3] === 0x53) return at;
  }
  return -1;
}

function startsWith(bytes: Uint8Array, magic: string): boolean {
  for (let i = 0; i < magic.length; i++) if (bytes[i] !== magic.charCodeAt(i)) return false;
  return true;
}
