/**
 * A long Ogg/Opus voice note made from a short one by repeating its audio pages: sequence numbers, granule
 * positions and CRCs rewritten, so decoders and duration checks see one valid stream (RFC 3533, RFC 7845).
 */

const PAGE_HEADER_BYTES = 27;
const CONTINUED = 0x01;
const END_OF_STREAM = 0x04;

/** Ogg's CRC-32: polynomial 0x04c11db7, not reflected, initial value 0, no final XOR. */
const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let crc = n << 24;
  for (let bit = 0; bit < 8; bit++) crc = crc & 0x80000000 ? (crc << 1) ^ 0x04c11db7 : crc << 1;
  return crc >>> 0;
});

function oggCrc(page: Uint8Array): number {
  let crc = 0;
  for (const byte of page) crc = ((crc << 8) ^ (CRC_TABLE[((crc >>> 24) ^ byte) & 0xff] ?? 0)) >>> 0;
  return crc;
}

interface Page {
  bytes: Uint8Array;
  granule: bigint;
  /** 48 kHz samples of the packets that end on this page. */
  samples: number;
}

/** Splits the file into pages, counting each page's samples from its packets' TOC bytes (RFC 6716 §3.1). */
function pages(file: Uint8Array): Page[] {
  const view = new DataView(file.buffer, file.byteOffset, file.byteLength);
  const out: Page[] = [];
  for (let at = 0; at < file.length; ) {
    const segments = file[at + 26] ?? 0;
    if ((file[at + 5] ?? 0) & CONTINUED) throw new Error("packets spanning pages are not supported");
    const lacing = file.subarray(at + PAGE_HEADER_BYTES, at + PAGE_HEADER_BYTES + segments);
    let packetStart = at + PAGE_HEADER_BYTES + segments;
    let packetLength = 0;
    let samples = 0;
    for (const value of lacing) {
      packetLength += value;
      if (value === 255) continue;
      samples += packetSamples(file.subarray(packetStart, packetStart + packetLength));
      packetStart += packetLength;
      packetLength = 0;
    }
    const end = packetStart + packetLength;
    out.push({ bytes: file.subarray(at, end), granule: view.getBigInt64(at + 6, true), samples });
    at = end;
  }
  return out;
}

/** Samples at 48 kHz in one Opus packet; header packets (OpusHead, OpusTags) count none. */
function packetSamples(packet: Uint8Array): number {
  const toc = packet[0];
  if (toc === undefined || String.fromCharCode(...packet.subarray(0, 4)) === "Opus") return 0;
  const config = toc >> 3;
  const frameSize =
    config < 12
      ? [480, 960, 1920, 2880][config % 4] // SILK: 10, 20, 40, 60 ms
      : config < 16
        ? [480, 960][config % 2] // hybrid: 10, 20 ms
        : [120, 240, 480, 960][config % 4]; // CELT: 2.5, 5, 10, 20 ms
  const code = toc & 3;
  const frames = code === 0 ? 1 : code < 3 ? 2 : (packet[1] ?? 0) & 0x3f;
  return (frameSize ?? 0) * frames;
}

/**
 * `file`'s audio pages `times` over after its header pages. Every page but the last carries the position of its
 * last whole packet; the last keeps the original end trim, so the note lasts `times` × the original's packets,
 * less that trim.
 */
export function repeatOggOpus(file: Uint8Array, times: number): Uint8Array {
  const all = pages(file);
  const headers = all.filter((page) => page.samples === 0);
  const audio = all.filter((page) => page.samples > 0);
  const last = audio.at(-1);
  if (!last) throw new Error("no audio pages");
  const perCopy = audio.reduce((sum, page) => sum + page.samples, 0);
  const out: Uint8Array[] = headers.map((page) => page.bytes);
  let sequence = headers.length;
  let position = 0n;
  for (let copy = 0; copy < times; copy++) {
    for (const page of audio) {
      const bytes = Uint8Array.from(page.bytes);
      const view = new DataView(bytes.buffer);
      const final = copy === times - 1 && page === last;
      position += BigInt(page.samples);
      bytes[5] = (bytes[5] ?? 0) & ~END_OF_STREAM;
      if (final) bytes[5] = (bytes[5] ?? 0) | END_OF_STREAM;
      view.setBigInt64(6, final ? BigInt(copy * perCopy) + page.granule : position, true);
      view.setUint32(18, sequence++, true);
      view.setUint32(22, 0, true);
      view.setUint32(22, oggCrc(bytes), true);
      out.push(bytes);
    }
  }
  return Buffer.concat(out);
}
