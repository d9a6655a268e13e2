import { setImmediate } from "node:timers/promises";
import { type CompressedAudioFormat, openCompressedAudio } from "./audio-decoders.js";
import type { AudioSource, PcmBlock } from "./audio-source.js";
import { AudioTooLongError, AudioUnreadableError } from "./media-errors.js";
import { SpeechPcm } from "./speech-pcm.js";
import { openWav } from "./wav-source.js";

/** Compressed formats the bridge can decode (identified from the bytes by the caller with file-type). */
export type AudioFormat = CompressedAudioFormat | "wav";

/**
 * 16 kHz: the rate speech recognisers work at (Whisper resamples everything to 16 kHz); telephone-band speech fits
 * well inside its 8 kHz Nyquist band, and it keeps a 10-minute note under 20 MB.
 */
export const SPEECH_SAMPLE_RATE = 16_000;

/**
 * A few broken frames leave gaps in a note still worth hearing; more decoder errors than this per second of audio
 * mean the bytes are mostly not audio (mpg123 finds stray frame headers in random bytes and "decodes" them).
 */
const MAX_ERRORS_PER_SECOND = 5;

/** Audio as the chatbot API takes it. */
export interface ConvertedAudio {
  /** RIFF/WAVE, 16-bit PCM, mono, SPEECH_SAMPLE_RATE. */
  wav: Uint8Array;
  /** duration of the WAV */
  seconds: number;
}

/**
 * Converts a voice note or audio file to the WAV the chatbot API accepts: 16-bit mono PCM at SPEECH_SAMPLE_RATE.
 * Decodes piece by piece, downmixing, resampling and quantising each piece as it comes, so memory stays about the
 * size of the output; yields to the event loop between pieces, so other conversations go on meanwhile. Refuses
 * audio longer than `maxSeconds` from the container's header when it declares a duration (Ogg, WAV), else as soon
 * as decoding passes the limit. Throws AudioTooLongError, AudioUnreadableError, or the signal's reason on abort.
 */
export async function audioToWav(
  bytes: Uint8Array,
  format: AudioFormat,
  options: { maxSeconds: number; signal?: AbortSignal },
): Promise<ConvertedAudio> {
  const { maxSeconds, signal } = options;
  signal?.throwIfAborted();
  const source = open(bytes, format);
  const { declaredSeconds } = source;
  if (declaredSeconds !== undefined && declaredSeconds > maxSeconds) throw new AudioTooLongError(maxSeconds);
  const pcm = new SpeechPcm(
    SPEECH_SAMPLE_RATE,
    declaredSeconds === undefined ? undefined : Math.round(declaredSeconds * SPEECH_SAMPLE_RATE),
  );
  let decodedSeconds = 0;
  const errors: string[] = [];
  try {
    for await (const block of unreadableOnThrow(source.blocks())) {
      errors.push(...block.errors);
      if (block.frames > 0) decodedSeconds += block.frames / block.sampleRate;
      if (decodedSeconds > maxSeconds) throw new AudioTooLongError(maxSeconds);
      await pcm.append(block);
      await setImmediate();
      signal?.throwIfAborted();
    }
    if (decodedSeconds === 0) {
      throw new AudioUnreadableError(`no audio could be decoded from the ${format} file${detail(errors)}`);
    }
    if (errors.length > decodedSeconds * MAX_ERRORS_PER_SECOND) {
      throw new AudioUnreadableError(
        `${errors.length} decoding errors in ${decodedSeconds.toFixed(1)} s of ${format} audio${detail(errors)}`,
      );
    }
    const wav = pcm.finish();
    return { wav, seconds: pcm.frames / SPEECH_SAMPLE_RATE };
  } finally {
    pcm.destroy();
  }
}

function open(bytes: Uint8Array, format: AudioFormat): AudioSource {
  try {
    return format === "wav" ? openWav(bytes) : openCompressedAudio(bytes, format, SPEECH_SAMPLE_RATE);
  } catch (error) {
    throw new AudioUnreadableError(`unreadable ${format} file: ${messageOf(error)}`, { cause: error });
  }
}

/**
 * What a decoder throws means the file cannot be read: another codec in the container (ogg-opus-decoder refuses a
 * Vorbis stream), a malformed header, input too short to tell the format.
 */
async function* unreadableOnThrow(blocks: AsyncGenerator<PcmBlock>): AsyncGenerator<PcmBlock> {
  try {
    yield* blocks;
  } catch (error) {
    throw new AudioUnreadableError(`undecodable audio: ${messageOf(error)}`, { cause: error });
  }
}

function detail(errors: string[]): string {
  return errors.length > 0 ? ` (${errors[0]})` : "";
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
