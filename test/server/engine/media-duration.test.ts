import { describe, expect, it } from "vitest";
import { mediaSeconds, mp4Seconds, wavSeconds } from "../../../src/server/engine/media-duration.js";
import { png, wav } from "../../support/media-fixtures.js";
import { box, FTYP, fmtPayload, mp4, mvhd, riffChunk, riffWave } from "./media-bytes.js";

const CD = { rate: 44_100, channels: 2, bits: 16 };

describe("WAV length", () => {
  it("divides the data chunk by the byte rate", () => {
    expect(wavSeconds(wav(96_000))).toBe(12);
    expect(wavSeconds(wav(800))).toBe(0.1);
    expect(wavSeconds(wav(48_000, 16_000))).toBe(3);
  });

  it("walks the chunks: LIST and an odd-sized chunk before data, an 18-byte fmt", () => {
    const file = riffWave(
      riffChunk("fmt ", fmtPayload({ ...CD, extra: 2 })),
      riffChunk("LIST", Buffer.from("INFOISFT\x03\0\0\0ab\0", "latin1")),
      riffChunk("junk", Buffer.alloc(3)),
      riffChunk("data", Buffer.alloc(44_100 * 4 * 5)),
    );
    expect(wavSeconds(file)).toBe(5);
  });

  it("finds fmt after data", () => {
    const file = riffWave(
      riffChunk("data", Buffer.alloc(16_000)),
      riffChunk("fmt ", fmtPayload({ ...CD, rate: 8000, channels: 1 })),
    );
    expect(wavSeconds(file)).toBe(1);
  });

  it("counts the bytes there are when the data size is unknown (streamed) or larger than the file", () => {
    const data = Buffer.alloc(8000 * 2 * 2);
    const fmt = riffChunk("fmt ", fmtPayload({ rate: 8000, channels: 1, bits: 16 }));
    expect(wavSeconds(riffWave(fmt, riffChunk("data", data, 0xffffffff)))).toBe(2);
    expect(wavSeconds(riffWave(fmt, riffChunk("data", data, data.length * 10)))).toBe(2);
  });

  it("gives no length without fmt, without data, or for what is no WAV", () => {
    expect(wavSeconds(riffWave(riffChunk("data", Buffer.alloc(100))))).toBeUndefined();
    expect(wavSeconds(riffWave(riffChunk("fmt ", fmtPayload(CD))))).toBeUndefined();
    expect(
      wavSeconds(riffWave(riffChunk("fmt ", Buffer.alloc(8)), riffChunk("data", Buffer.alloc(8)))),
    ).toBeUndefined();
    expect(wavSeconds(png())).toBeUndefined();
    expect(wavSeconds(new Uint8Array(0))).toBeUndefined();
  });
});

describe("MP4 length", () => {
  it("reads mvhd version 0 and 1", () => {
    expect(mp4Seconds(mp4(3))).toBe(3);
    expect(mp4Seconds(Buffer.concat([FTYP, box("moov", mvhd(600, 75_000n, 1))]))).toBe(125);
  });

  it("finds moov after a 64-bit mdat and after other boxes inside moov", () => {
    const moov = box("moov", Buffer.concat([box("udta", Buffer.alloc(10)), mvhd(90_000, 1_350_000n)]));
    const file = Buffer.concat([FTYP, box("free", Buffer.alloc(4)), box("mdat", Buffer.alloc(32), true), moov]);
    expect(mp4Seconds(file)).toBe(15);
  });

  it("gives no length for an unknown or zero duration, a missing mvhd or moov, or a cut header", () => {
    const only = (header: Buffer) => Buffer.concat([FTYP, box("moov", header)]);
    expect(mp4Seconds(only(mvhd(1000, 0xffffffffn)))).toBeUndefined();
    expect(mp4Seconds(only(mvhd(1000, 0xffff_ffff_ffff_ffffn, 1)))).toBeUndefined();
    expect(mp4Seconds(only(mvhd(1000, 0n)))).toBeUndefined();
    expect(mp4Seconds(only(mvhd(0, 1000n)))).toBeUndefined();
    expect(mp4Seconds(only(box("trak", Buffer.alloc(16))))).toBeUndefined();
    expect(mp4Seconds(only(mvhd(1000, 5000n).subarray(0, 20)))).toBeUndefined();
    expect(mp4Seconds(FTYP)).toBeUndefined();
    expect(mp4Seconds(wav())).toBeUndefined();
  });
});

describe("attachment length", () => {
  it("rounds to whole seconds, at least one, for WAV audio and MP4 video only", () => {
    const audio = (bytes: Buffer) => mediaSeconds({ kind: "audio", mime: "audio/wav", bytes });
    expect(audio(wav(800))).toBe(1);
    expect(audio(wav(99_200))).toBe(12); // 12.4 s
    expect(audio(wav(100_000))).toBe(13); // 12.5 s
    expect(mediaSeconds({ kind: "video", mime: "video/mp4", bytes: mp4(7) })).toBe(7);
    expect(mediaSeconds({ kind: "video", mime: "video/x-matroska", bytes: mp4(7) })).toBeUndefined();
    expect(mediaSeconds({ kind: "image", mime: "image/png", bytes: png() })).toBeUndefined();
  });
});
