import LibSampleRate from "@alexanderolsen/libsamplerate-js";

type Converter = Awaited<ReturnType<typeof LibSampleRate.create>>;

/**
 * SRC_SINC_FASTEST, chosen by measurement (bench/voice-conversion.ts prints the comparison). From 48 kHz it runs at
 * about 190 s of audio per CPU second, against 80 for SINC_MEDIUM and 25 for SINC_BEST; it passes speech up to
 * 6.4 kHz untouched (7 kHz comes out 14 dB down, far above telephone speech's 3.4 kHz) and keeps what lies above
 * 8 kHz out of the band by over 100 dB. LINEAR and ZERO_ORDER_HOLD are several times faster but have no anti-alias
 * filter: a 12 kHz sibilance folds into the speech band at full level.
 */
const CONVERTER = LibSampleRate.ConverterType.SRC_SINC_FASTEST;

/** Streams mono PCM from one rate to another through libsamplerate's full API. */
export class MonoResampler {
  private inputFrames = 0;
  private outputFrames = 0;

  private constructor(
    private readonly converter: Converter,
    private readonly inputRate: number,
    private readonly outputRate: number,
  ) {}

  /**
   * Instantiates a converter. libsamplerate-js ships wasm2js output (JS, not wasm): each converter is a module
   * instance of its own, whose 26 MB ArrayBuffer heap (mostly untouched) goes with the converter after destroy().
   */
  static async create(inputRate: number, outputRate: number): Promise<MonoResampler> {
    const converter = await LibSampleRate.create(1, inputRate, outputRate, { converterType: CONVERTER });
    return new MonoResampler(converter, inputRate, outputRate);
  }

  /** The output for `input`; the filter keeps the last few samples back until more input, or finish(), comes. */
  resample(input: Float32Array): Float32Array {
    this.inputFrames += input.length;
    const output = this.converter.full(input);
    this.outputFrames += output.length;
    return output;
  }

  /**
   * The samples still held back, so that the whole output lasts exactly as long as the input: full() has no
   * end-of-input flag, so silence pushes them out and what the silence itself produced is cut off.
   */
  finish(): Float32Array {
    const expected = Math.round((this.inputFrames * this.outputRate) / this.inputRate);
    const tail = new Float32Array(Math.max(0, expected - this.outputFrames));
    const silence = new Float32Array(Math.ceil(this.inputRate / 10));
    let filled = 0;
    // The filter holds back a few milliseconds; a second of silence is a bound, never reached.
    for (let tries = 0; filled < tail.length && tries < 10; tries++) {
      const output = this.converter.full(silence).subarray(0, tail.length - filled);
      tail.set(output, filled);
      filled += output.length;
    }
    this.outputFrames += filled;
    return tail.subarray(0, filled);
  }

  /** Frees the converter's state (libsamplerate's src_delete). */
  destroy(): void {
    this.converter.destroy();
  }
}
