/** What a WAV file says about itself, read chunk by chunk (RIFF/WAVE, `fmt `, `data`). */
export interface WavInfo {
  /** 1 = integer PCM. */
  format: number;
  channels: number;
  sampleRate: number;
  bitsPerSample: number;
  /** Length of the `data` chunk in bytes. */
  dataBytes: number;
  /** Duration from the data length. */
  seconds: number;
  /** The samples of the first channel, as numbers from -1 to 1 (16-bit PCM only). */
  samples: Float32Array;
}

/**
 * Parses a WAV file independently of the code under test, walking its chunks; throws when the file is not one.
 */
export function parseWav(bytes: Uint8Array): WavInfo {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const tag = (offset: number) => String.fromCharCode(...bytes.subarray(offset, offset + 4));
  if (tag(0) !== "RIFF" || tag(8) !== "WAVE") throw new Error("not a RIFF/WAVE file");
  let fmt: { format: number; channels: number; sampleRate: number; bitsPerSample: number } | undefined;
  for (let offset = 12; offset + 8 <= bytes.length; ) {
    const size = view.getUint32(offset + 4, true);
    const body = offset + 8;
    if (tag(offset) === "fmt ") {
      fmt = {
        format: view.getUint16(body, true),
        channels: view.getUint16(body + 2, true),
        sampleRate: view.getUint32(body + 4, true),
        bitsPerSample: view.getUint16(body + 14, true),
      };
    } else if (tag(offset) === "data") {
      if (!fmt) throw new Error("data chunk before fmt chunk");
      const dataBytes = Math.min(size, bytes.length - body);
      const frame = (fmt.bitsPerSample / 8) * fmt.channels;
      const samples = new Float32Array(fmt.bitsPerSample === 16 ? Math.floor(dataBytes / frame) : 0);
      for (let i = 0; i < samples.length; i++) samples[i] = view.getInt16(body + i * frame, true) / 32768;
      return { ...fmt, dataBytes, seconds: dataBytes / frame / fmt.sampleRate, samples };
    }
    offset = body + size + (size % 2);
  }
  throw new Error("no data chunk");
}

/** Root mean square of samples: 0 for silence. */
export function rms(samples: Float32Array): number {
  let sum = 0;
  for (const sample of samples) sum += sample * sample;
  return Math.sqrt(sum / Math.max(1, samples.length));
}
