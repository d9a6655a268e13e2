import wavefile from "wavefile";
import type { AudioSource, PcmBlock } from "./audio-source.js";

/** Bytes of samples unpacked at a time, as the compressed decoders are fed. */
const CHUNK_BYTES = 32 * 1024;
/** The highest input rate libsamplerate accepts. */
const MAX_SAMPLE_RATE = 192_000;
const WAVE_FORMAT_PCM = 1;
const WAVE_FORMAT_IEEE_FLOAT = 3;
const WAVE_FORMAT_EXTENSIBLE = 0xfffe;

/** The fmt chunk as wavefile reads it (its types declare `fmt` as a bare object). */
interface WaveFormat {
  audioFormat: number;
  numChannels: number;
  sampleRate: number;
  bitsPerSample: number;
  /** WAVE_FORMAT_EXTENSIBLE's sub-format GUID as four 32-bit words; the first is the format code. */
  subformat: number[];
}

type SampleReader = (view: DataView, at: number) => number;

/**
 * Opens a WAV (RIFF or RIFX; 8, 16, 24 or 32-bit integer or 32/64-bit float samples, any rate and channel count,
 * WAVE_FORMAT_EXTENSIBLE included) for reading block by block. wavefile parses the chunks and hands the data chunk
 * over as a copy (at most the input's size); its getSamples() would add one Float64Array of the whole file, so the
 * samples are unpacked here a block at a time. Throws when the file is not a WAV this can read.
 */
export function openWav(bytes: Uint8Array): AudioSource {
  const wave = new wavefile.WaveFile(bytes);
  const fmt = wave.fmt as WaveFormat;
  const data = (wave.data as { samples: Uint8Array }).samples;
  // wavefile itself reads an extensible float file as integers: the sub-format is what counts.
  const encoding = fmt.audioFormat === WAVE_FORMAT_EXTENSIBLE ? fmt.subformat[0] : fmt.audioFormat;
  const bytesPerSample = Math.ceil(fmt.bitsPerSample / 8);
  const read = sampleReader(encoding, bytesPerSample, wave.container === "RIFX");
  if (!read) throw new Error(`WAV encoding ${encoding} with ${fmt.bitsPerSample}-bit samples is not supported`);
  if (fmt.numChannels < 1 || fmt.sampleRate < 1 || fmt.sampleRate > MAX_SAMPLE_RATE) {
    throw new Error(`WAV with ${fmt.numChannels} channels at ${fmt.sampleRate} Hz is not supported`);
  }
  const frameBytes = bytesPerSample * fmt.numChannels;
  // The frames present, not the data chunk's declared size: a cut-off file declares more than it holds.
  const frames = Math.floor(data.length / frameBytes);
  return {
    declaredSeconds: frames / fmt.sampleRate,
    blocks: () => unpack(data, frames, fmt, bytesPerSample, read),
  };
}

async function* unpack(
  data: Uint8Array,
  frames: number,
  fmt: WaveFormat,
  bytesPerSample: number,
  read: SampleReader,
): AsyncGenerator<PcmBlock> {
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const framesPerBlock = Math.max(1, Math.floor(CHUNK_BYTES / (bytesPerSample * fmt.numChannels)));
  let at = 0;
  for (let first = 0; first < frames; first += framesPerBlock) {
    const count = Math.min(framesPerBlock, frames - first);
    const channels = Array.from({ length: fmt.numChannels }, () => new Float32Array(count));
    for (let frame = 0; frame < count; frame++) {
      for (const channel of channels) {
        channel[frame] = read(view, at);
        at += bytesPerSample;
      }
    }
    yield { channels, frames: count, sampleRate: fmt.sampleRate, errors: [] };
  }
}

/** Scales a sample to [-1, 1]: 8-bit WAV is unsigned, wider integers are signed. */
function sampleReader(encoding: number | undefined, bytes: number, bigEndian: boolean): SampleReader | undefined {
  const little = !bigEndian;
  if (encoding === WAVE_FORMAT_PCM) {
    switch (bytes) {
      case 1:
        return (view, at) => (view.getUint8(at) - 128) / 128;
      case 2:
        return (view, at) => view.getInt16(at, little) / 0x8000;
      case 3:
        return little
          ? (view, at) => ((view.getInt8(at + 2) << 16) | view.getUint16(at, true)) / 0x800000
          : (view, at) => ((view.getInt8(at) << 16) | view.getUint16(at + 1, false)) / 0x800000;
      case 4:
        return (view, at) => view.getInt32(at, little) / 0x80000000;
    }
  }
  if (encoding === WAVE_FORMAT_IEEE_FLOAT) {
    if (bytes === 4) return (view, at) => view.getFloat32(at, little);
    if (bytes === 8) return (view, at) => view.getFloat64(at, little);
  }
  return undefined;
}
