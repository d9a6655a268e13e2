import { readFileSync } from "node:fs";
import { deflateSync } from "node:zlib";

/**
 * Small, real media files generated in memory for the upload and ClientAsk tests: each is a valid file of
 * its format (the server identifies types from the bytes, not the names).
 */

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (const byte of bytes) crc = (CRC_TABLE[(crc ^ byte) & 0xff] ?? 0) ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

function pngChunk(type: string, data: Uint8Array): Buffer {
  const body = Buffer.concat([Buffer.from(type, "latin1"), data]);
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** A valid RGB PNG of `width`×`height` pixels of one colour (signature, IHDR, IDAT, IEND with CRCs). */
export function png(width = 2, height = 2, rgb: [number, number, number] = [37, 99, 235]): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8); // 8-bit depth, truecolour, deflate, no filter, no interlace
  const row = Buffer.concat([Buffer.from([0]), Buffer.alloc(width * 3).fill(Buffer.from(rgb))]);
  const pixels = Buffer.concat(Array.from({ length: height }, () => row));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk("IHDR", header),
    pngChunk("IDAT", deflateSync(pixels)),
    pngChunk("IEND", new Uint8Array(0)),
  ]);
}

/**
 * A GIF89a of 1×1 pixel with `frames` images, each after a graphic control extension (a delay), and the
 * NETSCAPE looping extension when animated — what an animated GIF looks like in the wild.
 */
export function gif(frames: number): Buffer {
  const bytes: number[] = [...Buffer.from("GIF89a", "latin1"), 1, 0, 1, 0, 0x80, 0, 0, 0, 0, 0, 255, 255, 255];
  if (frames > 1) bytes.push(0x21, 0xff, 11, ...Buffer.from("NETSCAPE2.0", "latin1"), 3, 1, 0, 0, 0);
  for (let i = 0; i < frames; i++) {
    bytes.push(0x21, 0xf9, 4, 0, 10, 0, 0, 0); // graphic control: 100 ms delay
    bytes.push(0x2c, 0, 0, 0, 0, 1, 0, 1, 0, 0); // image descriptor 1×1, no local colour table
    bytes.push(2, 2, 0x44, 0x01, 0); // LZW data of one pixel
  }
  bytes.push(0x3b);
  return Buffer.from(bytes);
}

/**
 * A PCM WAV (RIFF/WAVE, fmt, data) of `samples` 16-bit mono samples of a 440 Hz tone at `rate` Hz (8 kHz by
 * default): it lasts `samples / rate` seconds.
 */
export function wav(samples = 800, rate = 8000): Buffer {
  const data = Buffer.alloc(samples * 2);
  for (let i = 0; i < samples; i++)
    data.writeInt16LE(Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / rate)), i * 2);
  const header = Buffer.alloc(44);
  header.write("RIFF", 0, "latin1");
  header.writeUInt32LE(36 + data.length, 4);
  header.write("WAVE", 8, "latin1");
  header.write("fmt ", 12, "latin1");
  header.writeUInt32LE(16, 16); // fmt chunk size
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(1, 22); // mono
  header.writeUInt32LE(rate, 24);
  header.writeUInt32LE(rate * 2, 28); // byte rate
  header.writeUInt16LE(2, 32); // block align
  header.writeUInt16LE(16, 34); // bits per sample
  header.write("data", 36, "latin1");
  header.writeUInt32LE(data.length, 40);
  return Buffer.concat([header, data]);
}

/** Plain UTF-8 text, a format no ask type accepts. */
export function textFile(text = "Three bedrooms, two baths, close to the lake.\n"): Buffer {
  return Buffer.from(text, "utf8");
}

/** A valid PNG padded to exactly `size` bytes with trailing zeros (readers stop at IEND). */
export function paddedPng(size: number): Buffer {
  const image = png();
  if (size < image.length) throw new Error(`a PNG needs at least ${image.length} bytes`);
  const out = Buffer.alloc(size);
  image.copy(out);
  return out;
}

/** A committed real media file from test/fixtures/media (see its README for how each was made). */
export function mediaFixture(
  name:
    | "voice.ogg"
    | "speech.mp3"
    | "speech.flac"
    | "speech-vorbis.ogg"
    | "speech.m4a"
    | "tiny.mp4"
    | "photo.jpg"
    | "photo.webp"
    | "photo.heic",
): Buffer {
  return readFileSync(new URL(`../fixtures/media/${name}`, import.meta.url));
}

/** The length of the speech in the audio fixtures, in seconds (espeak-ng's output: 106,517 samples at 22,050 Hz). */
export const SPEECH_SECONDS = 106_517 / 22_050;
