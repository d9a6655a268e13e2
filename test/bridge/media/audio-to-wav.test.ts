import { readFileSync } from "node:fs";
import { FLACDecoder } from "@wasm-audio-decoders/flac";
import { OggVorbisDecoder } from "@wasm-audio-decoders/ogg-vorbis";
import { OggOpusDecoder } from "ogg-opus-decoder";
import { afterEach, describe, expect, it, vi } from "vitest";
import { type AudioFormat, audioToWav } from "../../../src/bridge/media/audio-to-wav.js";
import { AudioTooLongError, AudioUnreadableError } from "../../../src/bridge/media/media-errors.js";
import { wav } from "../../support/media-fixtures.js";

const fixture = (name: string) => readFileSync(new URL(`../../fixtures/media/${name}`, import.meta.url));

/** The fixtures' speech lasts 4.83 s (espeak-ng's output, before encoding). */
const SPEECH_SECONDS = 4.83;
const SPEECH_FILES: [AudioFormat, string][] = [
  ["opus", "voice.ogg"],
  ["vorbis", "speech-vorbis.ogg"],
  ["mp3", "speech.mp3"],
  ["flac", "speech.flac"],
];

/** The samples of a WAV, read from its bytes here rather than trusting the code under test. */
function parseWav(bytes: Uint8Array): { samples: Int16Array; dataBytes: number } {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const text = (at: number) => String.fromCharCode(...bytes.subarray(at, at + 4));
  expect(text(0)).toBe("RIFF");
  expect(view.getUint32(4, true)).toBe(bytes.length - 8);
  expect(text(8)).toBe("WAVE");
  let fmtSeen = false;
  for (let at = 12; at + 8 <= bytes.length; ) {
    const size = view.getUint32(at + 4, true);
    const body = at + 8;
    if (text(at) === "fmt ") {
      fmtSeen = true;
      expect(view.getUint16(body, true)).toBe(1); // PCM
      expect(view.getUint16(body + 2, true)).toBe(1); // mono
      expect(view.getUint32(body + 4, true)).toBe(16_000);
      expect(view.getUint32(body + 8, true)).toBe(32_000); // byte rate
      expect(view.getUint16(body + 12, true)).toBe(2); // block align
      expect(view.getUint16(body + 14, true)).toBe(16);
    }
    if (text(at) === "data") {
      expect(fmtSeen).toBe(true);
      expect(body + size).toBe(bytes.length);
      const samples = new Int16Array(size / 2);
      for (let i = 0; i < samples.length; i++) samples[i] = view.getInt16(body + 2 * i, true);
      return { samples, dataBytes: size };
    }
    at = body + size + (size % 2);
  }
  throw new Error("no data chunk");
}

function rms(samples: Int16Array, from = 0, to = samples.length): number {
  let sum = 0;
  for (let i = from; i < to; i++) sum += ((samples[i] ?? 0) / 0x8000) ** 2;
  return Math.sqrt(sum / Math.max(1, to - from));
}

/** Loudness every 20 ms: where the words and pauses are. */
function envelope(samples: Int16Array): number[] {
  return Array.from({ length: Math.floor(samples.length / 320) }, (_, i) => rms(samples, i * 320, (i + 1) * 320));
}

function correlation(a: number[], b: number[]): number {
  const n = Math.min(a.length, b.length);
  const mean = (x: number[]) => x.slice(0, n).reduce((sum, v) => sum + v, 0) / n;
  const [ma, mb] = [mean(a), mean(b)];
  let ab = 0;
  let aa = 0;
  let bb = 0;
  for (let i = 0; i < n; i++) {
    const [da, db] = [(a[i] ?? 0) - ma, (b[i] ?? 0) - mb];
    ab += da * db;
    aa += da * da;
    bb += db * db;
  }
  return ab / Math.sqrt(aa * bb);
}

/** Sign changes per second: twice the frequency of a pure tone. */
function zeroCrossingsPerSecond(samples: Int16Array): number {
  let crossings = 0;
  for (let i = 1; i < samples.length; i++) if ((samples[i - 1] ?? 0) < 0 !== (samples[i] ?? 0) < 0) crossings++;
  return crossings / (samples.length / 16_000);
}

type Encoding = "uint8" | "int16" | "int24" | "int32" | "float32" | "float64";

/**
 * A WAV of `seconds` of a 440 Hz sine at amplitude 0.5 in the left channel (and the right, unless `rightSilent`),
 * in any encoding; `extensible` writes WAVE_FORMAT_EXTENSIBLE with the format in its sub-format GUID.
 */
function toneWav(options: {
  encoding: Encoding;
  rate: number;
  channels: number;
  seconds: number;
  rightSilent?: boolean;
  extensible?: boolean;
}): Uint8Array {
  const { encoding, rate, channels, seconds } = options;
  const bytesPerSample = { uint8: 1, int16: 2, int24: 3, int32: 4, float32: 4, float64: 8 }[encoding];
  const float = encoding.startsWith("float");
  const frames = Math.round(rate * seconds);
  const fmtSize = options.extensible ? 40 : 16;
  const dataBytes = frames * channels * bytesPerSample;
  const bytes = new Uint8Array(12 + 8 + fmtSize + 8 + dataBytes);
  const view = new DataView(bytes.buffer);
  const text = (at: number, value: string) => bytes.set(Buffer.from(value, "latin1"), at);
  text(0, "RIFF");
  view.setUint32(4, bytes.length - 8, true);
  text(8, "WAVE");
  text(12, "fmt ");
  view.setUint32(16, fmtSize, true);
  const format = float ? 3 : 1;
  view.setUint16(20, options.extensible ? 0xfffe : format, true);
  view.setUint16(22, channels, true);
  view.setUint32(24, rate, true);
  view.setUint32(28, rate * channels * bytesPerSample, true);
  view.setUint16(32, channels * bytesPerSample, true);
  view.setUint16(34, bytesPerSample * 8, true);
  if (options.extensible) {
    view.setUint16(36, 22, true); // extension size
    view.setUint16(38, bytesPerSample * 8, true); // valid bits
    view.setUint32(40, channels === 2 ? 3 : 4, true); // channel mask
    view.setUint32(44, format, true); // sub-format GUID, first word; the rest is the standard suffix
    bytes.set([0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0xaa, 0x00, 0x38, 0x9b, 0x71], 48);
  }
  const dataAt = 20 + fmtSize;
  text(dataAt, "data");
  view.setUint32(dataAt + 4, dataBytes, true);
  let at = dataAt + 8;
  for (let frame = 0; frame < frames; frame++) {
    for (let channel = 0; channel < channels; channel++) {
      const x = channel === 1 && options.rightSilent ? 0 : 0.5 * Math.sin((2 * Math.PI * 440 * frame) / rate);
      if (encoding === "uint8") view.setUint8(at, Math.round(128 + x * 127));
      if (encoding === "int16") view.setInt16(at, Math.round(x * 0x7fff), true);
      if (encoding === "int24") {
        const v = Math.round(x * 0x7fffff);
        view.setUint16(at, v & 0xffff, true);
        view.setInt8(at + 2, v >> 16);
      }
      if (encoding === "int32") view.setInt32(at, Math.round(x * 0x7fffffff), true);
      if (encoding === "float32") view.setFloat32(at, x, true);
      if (encoding === "float64") view.setFloat64(at, x, true);
      at += bytesPerSample;
    }
  }
  return bytes;
}

/** Deterministic noise: the same "garbage" on every run. */
function noise(length: number, seed = 7): Uint8Array {
  let state = seed;
  return Uint8Array.from({ length }, () => {
    state = (state * 1_103_515_245 + 12_345) >>> 0;
    return state >>> 24;
  });
}

/** The decoders report broken frames on the console; the tests that feed broken bytes keep it quiet. */
function quietDecoders() {
  vi.spyOn(console, "error").mockImplementation(() => undefined);
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("audioToWav", () => {
  it.each(SPEECH_FILES)(
    "converts %s speech to 16 kHz mono 16-bit WAV of the same length, not silent",
    async (format, file) => {
      const converted = await audioToWav(fixture(file), format, { maxSeconds: 5 });
      const { samples, dataBytes } = parseWav(converted.wav);
      expect(converted.seconds).toBe(dataBytes / 2 / 16_000);
      expect(Math.abs(converted.seconds - SPEECH_SECONDS) / SPEECH_SECONDS).toBeLessThan(0.02);
      expect(rms(samples)).toBeGreaterThan(0.02);
    },
  );

  it("keeps the words where they are in every format: the loudness envelopes agree", async () => {
    const envelopes = new Map<AudioFormat, number[]>();
    for (const [format, file] of SPEECH_FILES) {
      const converted = await audioToWav(fixture(file), format, { maxSeconds: 5 });
      envelopes.set(format, envelope(parseWav(converted.wav).samples));
    }
    const opus = envelopes.get("opus") ?? [];
    for (const format of ["vorbis", "mp3", "flac"] as const) {
      expect(correlation(opus, envelopes.get(format) ?? [])).toBeGreaterThan(0.95);
    }
  });

  it("upsamples an 8 kHz WAV, keeping the tone's pitch and level", async () => {
    // 800 samples of 440 Hz at 8 kHz, amplitude 8000.
    const converted = await audioToWav(wav(800), "wav", { maxSeconds: 5 });
    const { samples } = parseWav(converted.wav);
    expect(samples.length).toBe(1600);
    expect(converted.seconds).toBe(0.1);
    expect(zeroCrossingsPerSecond(samples)).toBeGreaterThan(860);
    expect(zeroCrossingsPerSecond(samples)).toBeLessThan(900);
    expect(rms(samples, 100, 1500)).toBeCloseTo(8000 / 0x8000 / Math.SQRT2, 2);
  });

  it.each([
    { encoding: "uint8", rate: 11_025, channels: 1 },
    { encoding: "int16", rate: 44_100, channels: 2 },
    { encoding: "int24", rate: 48_000, channels: 2 },
    { encoding: "int32", rate: 22_050, channels: 1 },
    { encoding: "float32", rate: 48_000, channels: 2 },
    { encoding: "float64", rate: 16_000, channels: 1 },
    { encoding: "float32", rate: 44_100, channels: 2, extensible: true },
    { encoding: "int24", rate: 96_000, channels: 1, extensible: true },
  ] as const)(
    "normalises a $encoding WAV at $rate Hz with $channels channel(s) (extensible: $extensible)",
    async (input) => {
      const converted = await audioToWav(toneWav({ ...input, seconds: 0.5 }), "wav", { maxSeconds: 5 });
      const { samples } = parseWav(converted.wav);
      expect(Math.abs(samples.length - 8000)).toBeLessThanOrEqual(1);
      expect(zeroCrossingsPerSecond(samples)).toBeGreaterThan(860);
      expect(zeroCrossingsPerSecond(samples)).toBeLessThan(900);
      // A 0.5 sine: RMS 0.354, less a little for 8-bit quantisation.
      expect(rms(samples, 200, 7800)).toBeGreaterThan(0.34);
      expect(rms(samples, 200, 7800)).toBeLessThan(0.36);
    },
  );

  it("averages stereo channels to mono: a voice on one side only comes out at half its level", async () => {
    const input = toneWav({ encoding: "int16", rate: 44_100, channels: 2, seconds: 0.5, rightSilent: true });
    const { samples } = parseWav((await audioToWav(input, "wav", { maxSeconds: 5 })).wav);
    expect(rms(samples, 200, 7800)).toBeGreaterThan(0.17);
    expect(rms(samples, 200, 7800)).toBeLessThan(0.18);
  });

  it.each([
    ["opus", "voice.ogg", OggOpusDecoder.prototype],
    ["vorbis", "speech-vorbis.ogg", OggVorbisDecoder.prototype],
  ] as const)(
    "refuses a too long %s note from its last granule position, decoding nothing",
    async (format, file, decoder) => {
      const decode = vi.spyOn(decoder, "decode");
      const refusal = audioToWav(fixture(file), format, { maxSeconds: 2 });
      await expect(refusal).rejects.toThrow(AudioTooLongError);
      await expect(refusal).rejects.toMatchObject({ name: "AudioTooLongError", limitSeconds: 2 });
      expect(decode).not.toHaveBeenCalled();
    },
  );

  it("stops decoding as soon as a note without a declared duration passes the limit, and frees the decoder", async () => {
    // speech.flac is decoded in three pieces of 1.8 s: the second passes 2 s, so the end is never reached.
    const flush = vi.spyOn(FLACDecoder.prototype, "flush");
    const free = vi.spyOn(FLACDecoder.prototype, "free");
    await expect(audioToWav(fixture("speech.flac"), "flac", { maxSeconds: 2 })).rejects.toThrow(AudioTooLongError);
    expect(flush).not.toHaveBeenCalled();
    expect(free).toHaveBeenCalledTimes(1);
  });

  it("refuses a too long MP3 while decoding and a too long WAV from its header", async () => {
    await expect(audioToWav(fixture("speech.mp3"), "mp3", { maxSeconds: 2 })).rejects.toThrow(AudioTooLongError);
    const long = toneWav({ encoding: "int16", rate: 8000, channels: 1, seconds: 3 });
    await expect(audioToWav(long, "wav", { maxSeconds: 2 })).rejects.toThrow(AudioTooLongError);
  });

  it.each(["opus", "vorbis", "mp3", "flac", "wav"] as const)("calls garbage given as %s unreadable", async (format) => {
    quietDecoders();
    const refusal = audioToWav(noise(20_000), format, { maxSeconds: 60 });
    await expect(refusal).rejects.toThrow(AudioUnreadableError);
    await expect(refusal).rejects.toMatchObject({ name: "AudioUnreadableError" });
  });

  it.each([
    ...SPEECH_FILES.map(([format, file]) => [format, fixture(file)] as const),
    ["wav", toneWav({ encoding: "int16", rate: 8000, channels: 1, seconds: 1 })] as const,
  ])("calls a %s file cut off before its audio unreadable", async (format, bytes) => {
    quietDecoders();
    await expect(audioToWav(bytes.subarray(0, 40), format, { maxSeconds: 60 })).rejects.toThrow(AudioUnreadableError);
  });

  it("converts what an Opus note cut off midway holds, without inventing audio for its broken last page", async () => {
    const voice = fixture("voice.ogg");
    const converted = await audioToWav(voice.subarray(0, voice.length / 2), "opus", { maxSeconds: 60 });
    // Half the bytes hold about half the speech; the cut page's packets would come out as seconds of filler.
    expect(converted.seconds).toBeGreaterThan(1);
    expect(converted.seconds).toBeLessThan(SPEECH_SECONDS / 2 + 0.5);
    expect(parseWav(converted.wav).dataBytes).toBe(converted.seconds * 32_000);
  });

  it("accepts a few broken frames in an otherwise good note", async () => {
    quietDecoders();
    const damaged = Uint8Array.from(fixture("voice.ogg"));
    for (let i = 3000; i < 3400; i++) damaged[i] = ((damaged[i] ?? 0) * 7 + 13) & 0xff;
    const converted = await audioToWav(damaged, "opus", { maxSeconds: 60 });
    expect(console.error).toHaveBeenCalled();
    expect(converted.seconds).toBeGreaterThan(4.5);
    expect(rms(parseWav(converted.wav).samples)).toBeGreaterThan(0.02);
  });

  it("calls a file of another codec than identified unreadable", async () => {
    quietDecoders();
    await expect(audioToWav(fixture("speech-vorbis.ogg"), "opus", { maxSeconds: 60 })).rejects.toThrow(
      AudioUnreadableError,
    );
    // mpg123 finds stray frame headers in AAC and decodes a fraction of a second of noise among many errors.
    await expect(audioToWav(fixture("speech.m4a"), "mp3", { maxSeconds: 60 })).rejects.toThrow(AudioUnreadableError);
  });

  it("stops with the signal's reason when aborted, before or between pieces, and frees the decoder", async () => {
    const aborted = new AbortController();
    aborted.abort();
    await expect(
      audioToWav(fixture("voice.ogg"), "opus", { maxSeconds: 60, signal: aborted.signal }),
    ).rejects.toMatchObject({ name: "AbortError" });

    const flush = vi.spyOn(FLACDecoder.prototype, "flush");
    const free = vi.spyOn(FLACDecoder.prototype, "free");
    const controller = new AbortController();
    const reason = new Error("the user left");
    const conversion = audioToWav(fixture("speech.flac"), "flac", { maxSeconds: 60, signal: controller.signal });
    setImmediate(() => controller.abort(reason));
    await expect(conversion).rejects.toBe(reason);
    expect(flush).not.toHaveBeenCalled();
    expect(free).toHaveBeenCalledTimes(1);
  });
});
