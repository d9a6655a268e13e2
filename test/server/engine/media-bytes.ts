/**
 * Hand-built media headers for the duration readers: RIFF files with any chunks in any order, and MP4 boxes
 * (`ftyp`, `moov` › `mvhd` in version 0 or 1, `mdat` with a 64-bit size).
 */

/** One RIFF chunk: id, little-endian size, payload, and the pad byte an odd size needs. */
export function riffChunk(id: string, payload: Uint8Array, declaredSize = payload.length): Buffer {
  const header = Buffer.alloc(8);
  header.write(id, 0, "latin1");
  header.writeUInt32LE(declaredSize, 4);
  return Buffer.concat([header, payload, Buffer.alloc(payload.length % 2)]);
}

/** A `fmt ` payload of PCM audio; `extra` bytes make the 18-byte WAVEFORMATEX some writers use. */
export function fmtPayload(options: { rate: number; channels: number; bits: number; extra?: number }): Buffer {
  const { rate, channels, bits, extra = 0 } = options;
  const payload = Buffer.alloc(16 + extra);
  const blockAlign = (channels * bits) / 8;
  payload.writeUInt16LE(1, 0);
  payload.writeUInt16LE(channels, 2);
  payload.writeUInt32LE(rate, 4);
  payload.writeUInt32LE(rate * blockAlign, 8);
  payload.writeUInt16LE(blockAlign, 12);
  payload.writeUInt16LE(bits, 14);
  return payload;
}

/** A RIFF/WAVE file of the given chunks, in that order. */
export function riffWave(...chunks: Buffer[]): Buffer {
  const body = Buffer.concat([Buffer.from("WAVE", "latin1"), ...chunks]);
  const header = Buffer.alloc(8);
  header.write("RIFF", 0, "latin1");
  header.writeUInt32LE(body.length, 4);
  return Buffer.concat([header, body]);
}

/** An MP4 box with a 32-bit size, or a 64-bit one (size field 1) when `large`. */
export function box(type: string, payload: Uint8Array, large = false): Buffer {
  const header = Buffer.alloc(large ? 16 : 8);
  header.writeUInt32BE(large ? 1 : header.length + payload.length, 0);
  header.write(type, 4, "latin1");
  if (large) header.writeBigUInt64BE(BigInt(header.length + payload.length), 8);
  return Buffer.concat([header, payload]);
}

/** A movie header: version 0 (32-bit times and duration) or 1 (64-bit), then rate, volume and matrix filler. */
export function mvhd(timescale: number, duration: bigint, version: 0 | 1 = 0): Buffer {
  const wide = version === 1;
  const head = Buffer.alloc(wide ? 32 : 20);
  head.writeUInt8(version, 0);
  head.writeUInt32BE(timescale, wide ? 20 : 12);
  if (wide) head.writeBigUInt64BE(duration, 24);
  else head.writeUInt32BE(Number(duration), 16);
  return box("mvhd", Buffer.concat([head, Buffer.alloc(80)]));
}

/** The `ftyp` box of an ISO MP4, by which the server identifies the file as video/mp4. */
export const FTYP = box("ftyp", Buffer.from("isom\0\0\x02\0isomiso2mp41", "latin1"));

/** An MP4 of `seconds` (timescale 1000) with its `moov` before a small `mdat`, as `-movflags +faststart` writes. */
export function mp4(seconds: number): Buffer {
  return Buffer.concat([FTYP, box("moov", mvhd(1000, BigInt(seconds * 1000))), box("mdat", Buffer.alloc(64))]);
}
