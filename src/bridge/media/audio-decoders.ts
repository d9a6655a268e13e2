import { FLACDecoder } from "@wasm-audio-decoders/flac";
import { OggVorbisDecoder } from "@wasm-audio-decoders/ogg-vorbis";
import { MPEGDecoder } from "mpg123-decoder";
import { OggOpusDecoder } from "ogg-opus-decoder";
import type { AudioSource, PcmBlock } from "./audio-source.js";
import { readOggLayout } from "./ogg-layout.js";

/** Formats decoded by the wasm decoders of the wasm-audio-decoders family. */
export type CompressedAudioFormat = "opus" | "vorbis" | "mp3" | "flac";

/**
 * Compressed bytes fed to a decoder at a time: an Opus voice note at 24 kb/s yields about 11 s of audio per piece,
 * decoded in tens of milliseconds, so the event loop is never held for long.
 */
const CHUNK_BYTES = 32 * 1024;

/** What the four decoders share. Only some have `flush()`; `decode()` is async in all but mpg123's. */
interface WasmDecoder {
  ready: Promise<void>;
  decode(bytes: Uint8Array): DecodedAudio | Promise<DecodedAudio>;
  flush?(): Promise<DecodedAudio>;
  free(): void;
}

interface DecodedAudio {
  channelData: Float32Array[];
  samplesDecoded: number;
  sampleRate: number;
  errors: { message: string }[];
}

/**
 * Opens Ogg/Opus, Ogg/Vorbis, MP3 or FLAC bytes for streaming decoding. Opus is decoded straight at `opusSampleRate`
 * (8, 12, 16, 24 or 48 kHz); the others come out at the rate they were encoded at.
 */
export function openCompressedAudio(
  bytes: Uint8Array,
  format: CompressedAudioFormat,
  opusSampleRate: number,
): AudioSource {
  const create = () => createDecoder(format, opusSampleRate);
  if (format === "mp3" || format === "flac") {
    return { declaredSeconds: undefined, blocks: () => decodeInChunks(bytes, create) };
  }
  const layout = readOggLayout(bytes);
  return {
    declaredSeconds: layout.seconds,
    blocks: () => decodeInChunks(bytes.subarray(0, layout.completeLength), create),
  };
}

function createDecoder(format: CompressedAudioFormat, opusSampleRate: number): WasmDecoder {
  switch (format) {
    case "opus":
      // types.d.ts omits the `sampleRate` option the README documents. libopus synthesises 16 kHz directly, which
      // is 3× cheaper than decoding at 48 kHz and resampling (measured in bench/voice-conversion.ts).
      return new OggOpusDecoder({ sampleRate: opusSampleRate } as ConstructorParameters<typeof OggOpusDecoder>[0]);
    case "vorbis":
      return new OggVorbisDecoder();
    case "mp3":
      return new MPEGDecoder();
    case "flac":
      return new FLACDecoder();
  }
}

async function* decodeInChunks(bytes: Uint8Array, create: () => WasmDecoder): AsyncGenerator<PcmBlock> {
  const decoder = create();
  try {
    await decoder.ready;
    for (let at = 0; at < bytes.length; at += CHUNK_BYTES) {
      yield pcmBlock(await decoder.decode(bytes.subarray(at, at + CHUNK_BYTES)));
    }
    if (decoder.flush) yield pcmBlock(await decoder.flush());
  } finally {
    // free() before the wasm instance exists throws; a decoder whose wasm never loaded has nothing to free.
    await decoder.ready.then(
      () => decoder.free(),
      () => undefined,
    );
  }
}

function pcmBlock(decoded: DecodedAudio): PcmBlock {
  return {
    channels: decoded.channelData,
    frames: decoded.samplesDecoded,
    sampleRate: decoded.sampleRate,
    errors: decoded.errors.map((error) => error.message),
  };
}
