import type { Attachment } from "./types.js";

/** A RIFF chunk's or an MP4 box's place in the file. */
interface Span {
  type: string;
  /** Where the payload starts. */
  start: number;
  /** Where the payload ends, never past the end of the bytes (a cut file keeps what it has). */
  end: number;
}

const fourCc = (bytes: Uint8Array, at: number) => String.fromCharCode(...bytes.subarray(at, at + 4));
const view = (bytes: Uint8Array) => new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);

/** The chunks of a RIFF body from `start` to `end`: 4-character id, 32-bit little-endian size, payload padded to even. */
function* riffChunks(bytes: Uint8Array, start: number, end: number): Generator<Span> {
  const data = view(bytes);
  let at = start;
  while (at + 8 <= end) {
    const size = data.getUint32(at + 4, true);
    const payload = at + 8;
    yield { type: fourCc(bytes, at), start: payload, end: Math.min(end, payload + size) };
    at = payload + size + (size % 2);
  }
}

/**
 * The length of a WAV in seconds: the `data` chunk's size over the `fmt ` chunk's byte rate, found by walking
 * the chunks, since `LIST`, `fact` or `JUNK` chunks often sit between them. Undefined when it is no RIFF/WAVE
 * or a chunk is missing.
 */
export function wavSeconds(bytes: Uint8Array): number | undefined {
  if (bytes.length < 12 || fourCc(bytes, 0) !== "RIFF" || fourCc(bytes, 8) !== "WAVE") return undefined;
  let byteRate: number | undefined;
  let dataBytes: number | undefined;
  for (const chunk of riffChunks(bytes, 12, bytes.length)) {
    if (chunk.type === "fmt " && chunk.end - chunk.start >= 16) {
      const fmt = view(bytes.subarray(chunk.start, chunk.end));
      // Some writers leave the byte rate at 0; sample rate × block align is the same number.
      byteRate = fmt.getUint32(8, true) || fmt.getUint32(4, true) * fmt.getUint16(12, true);
    } else if (chunk.type === "data") {
      // A streamed WAV declares 0 or 0xFFFFFFFF; the span is clamped to the bytes, which is what there is.
      dataBytes = chunk.end - chunk.start;
    }
    if (byteRate !== undefined && dataBytes !== undefined) break;
  }
  return byteRate && dataBytes !== undefined ? dataBytes / byteRate : undefined;
}

/** The boxes of an ISO BMFF range: 32-bit big-endian size (1: a 64-bit size follows, 0: up to the end) and type. */
function* mp4Boxes(bytes: Uint8Array, start: number, end: number): Generator<Span> {
  const data = view(bytes);
  let at = start;
  while (at + 8 <= end) {
    let size = data.getUint32(at);
    let header = 8;
    if (size === 1) {
      if (at + 16 > end) return;
      size = Number(data.getBigUint64(at + 8));
      header = 16;
    } else if (size === 0) {
      size = end - at;
    }
    if (size < header) return;
    yield { type: fourCc(bytes, at + 4), start: at + header, end: Math.min(end, at + size) };
    at += size;
  }
}

/**
 * The length of an MP4 in seconds from the movie header (`moov` › `mvhd`: duration over timescale), wherever
 * `moov` sits. Undefined when there is none, or it gives no duration (fragmented files leave it 0).
 */
export function mp4Seconds(bytes: Uint8Array): number | undefined {
  for (const box of mp4Boxes(bytes, 0, bytes.length)) {
    if (box.type !== "moov") continue;
    for (const inner of mp4Boxes(bytes, box.start, box.end)) {
      if (inner.type !== "mvhd") continue;
      const header = view(bytes.subarray(inner.start, inner.end));
      const version = header.byteLength > 0 ? header.getUint8(0) : undefined;
      // Version 0 has 32-bit creation and modification times and duration, version 1 64-bit ones.
      const wide = version === 1;
      const [timescaleAt, durationAt] = wide ? [20, 24] : [12, 16];
      if ((version !== 0 && !wide) || header.byteLength < durationAt + (wide ? 8 : 4)) return undefined;
      const timescale = header.getUint32(timescaleAt);
      const duration = wide ? header.getBigUint64(durationAt) : BigInt(header.getUint32(durationAt));
      // All ones means "unknown" in either width.
      const unknown = duration === (wide ? 0xffff_ffff_ffff_ffffn : 0xffff_ffffn);
      return timescale > 0 && duration > 0n && !unknown ? Number(duration) / timescale : undefined;
    }
    return undefined;
  }
  return undefined;
}

/**
 * How long a recording or video is, in whole seconds (at least 1), read from its header: WAV audio and MP4
 * video. Undefined for images, other containers and headers that cannot be read.
 */
export function mediaSeconds(attachment: Attachment): number | undefined {
  const seconds =
    attachment.kind === "audio"
      ? wavSeconds(attachment.bytes)
      : attachment.mime === "video/mp4"
        ? mp4Seconds(attachment.bytes)
        : undefined;
  return seconds === undefined ? undefined : Math.max(1, Math.round(seconds));
}
