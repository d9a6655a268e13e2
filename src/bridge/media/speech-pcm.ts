import type { PcmBlock } from "./audio-source.js";
import { MonoResampler } from "./mono-resampler.js";
import { Pcm16WavWriter } from "./pcm16-wav.js";

/**
 * Turns decoded blocks into a 16-bit mono WAV at one sample rate: each block is averaged to mono, resampled and
 * written as it comes, so only the WAV is kept, never the decoded float PCM of the whole file.
 */
export class SpeechPcm {
  private readonly wav: Pcm16WavWriter;
  private inputRate: number | undefined;
  private resampler: MonoResampler | undefined;

  /** `expectedFrames` (at `sampleRate`), when the container declares a duration, sizes the WAV once. */
  constructor(
    readonly sampleRate: number,
    expectedFrames?: number,
  ) {
    this.wav = new Pcm16WavWriter(sampleRate, expectedFrames);
  }

  /** Samples written so far. */
  get frames(): number {
    return this.wav.frames;
  }

  /** Adds a block; a change of rate midway (a chained Ogg stream, an MP3 switching format) is followed. */
  async append(block: PcmBlock): Promise<void> {
    if (block.frames === 0) return;
    if (block.sampleRate !== this.inputRate) {
      this.finishResampler();
      this.inputRate = block.sampleRate;
      if (block.sampleRate !== this.sampleRate) {
        this.resampler = await MonoResampler.create(block.sampleRate, this.sampleRate);
      }
    }
    const mono = downmix(block.channels, block.frames);
    this.wav.write(this.resampler ? this.resampler.resample(mono) : mono);
  }

  /** The WAV, the resampler's held-back tail included. */
  finish(): Uint8Array {
    this.finishResampler();
    return this.wav.finish();
  }

  /** Frees the resampler, also when the conversion stopped midway. */
  destroy(): void {
    this.resampler?.destroy();
    this.resampler = undefined;
  }

  private finishResampler(): void {
    if (!this.resampler) return;
    this.wav.write(this.resampler.finish());
    this.destroy();
  }
}

/** The average of the channels, rather than one of them: a voice recorded on one side only is kept. */
function downmix(channels: Float32Array[], frames: number): Float32Array {
  const [first] = channels;
  if (channels.length === 1 && first) return first.subarray(0, frames);
  const mono = new Float32Array(frames);
  for (const channel of channels) {
    for (let i = 0; i < frames; i++) mono[i] = (mono[i] ?? 0) + (channel[i] ?? 0) / channels.length;
  }
  return mono;
}
