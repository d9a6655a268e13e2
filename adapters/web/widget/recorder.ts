/**
 * The rate the widget records at: what the media pipeline forwards recordings at (16 kHz mono, speech
 * recognisers' rate), so a recording is uploaded at a third of its 48 kHz size and the pipeline only checks it.
 */
const SAMPLE_RATE = 16_000;

/**
 * Push-to-talk: records the microphone while the visitor holds the button, as 16-bit PCM mono WAV — the format the
 * media pipeline takes without decoding (browsers' own MediaRecorder gives WebM/Opus, which it refuses). The audio
 * goes through an AudioContext at 16 kHz (the browser resamples the microphone) and a ScriptProcessorNode: deprecated
 * in favour of AudioWorklet, but still in every browser and, unlike a worklet, needs no module loaded from a URL
 * that a page's Content-Security-Policy could refuse.
 */
export class Recorder {
  #stream: MediaStream | undefined;
  #context: AudioContext | undefined;
  #chunks: Float32Array[] = [];
  #samples = 0;
  #stopAt: ReturnType<typeof setTimeout> | undefined;

  /** `maxSeconds`: the recording stops by itself there (`onLimit` is told), as the pipeline would refuse longer. */
  constructor(
    private readonly maxSeconds: number,
    private readonly onLimit: () => void,
  ) {}

  get recording(): boolean {
    return this.#context !== undefined;
  }

  /** Seconds recorded so far. */
  get seconds(): number {
    return this.#samples / SAMPLE_RATE;
  }

  /** Asks for the microphone (the browser's prompt the first time) and starts recording; rejects when refused. */
  async start(): Promise<void> {
    if (this.#context) return;
    const stream = await navigator.mediaDevices.getUserMedia({
      audio: { channelCount: 1, echoCancellation: true, noiseSuppression: true },
    });
    const context = new AudioContext({ sampleRate: SAMPLE_RATE });
    const source = context.createMediaStreamSource(stream);
    const processor = context.createScriptProcessor(4096, 1, 1);
    this.#chunks = [];
    this.#samples = 0;
    processor.onaudioprocess = (event) => {
      const samples = new Float32Array(event.inputBuffer.getChannelData(0));
      this.#chunks.push(samples);
      this.#samples += samples.length;
    };
    source.connect(processor);
    // A processor runs only while connected to the output; it writes nothing to it, so nothing is heard.
    processor.connect(context.destination);
    this.#stream = stream;
    this.#context = context;
    this.#stopAt = setTimeout(() => this.onLimit(), this.maxSeconds * 1000);
  }

  /** Stops recording and releases the microphone; resolves to the recording as WAV (undefined when empty). */
  async stop(): Promise<Blob | undefined> {
    clearTimeout(this.#stopAt);
    const context = this.#context;
    this.#context = undefined;
    for (const track of this.#stream?.getTracks() ?? []) track.stop();
    this.#stream = undefined;
    if (!context) return undefined;
    await context.close();
    if (this.#samples === 0) return undefined;
    return wav(this.#chunks, this.#samples);
  }
}

/** 16-bit PCM mono WAV of the float samples (clipped to −1…1). */
function wav(chunks: Float32Array[], count: number): Blob {
  const data = new DataView(new ArrayBuffer(44 + count * 2));
  const text = (at: number, value: string) => {
    for (let i = 0; i < value.length; i++) data.setUint8(at + i, value.charCodeAt(i));
  };
  text(0, "RIFF");
  data.setUint32(4, 36 + count * 2, true);
  text(8, "WAVE");
  text(12, "fmt ");
  data.setUint32(16, 16, true);
  data.setUint16(20, 1, true); // PCM
  data.setUint16(22, 1, true); // mono
  data.setUint32(24, SAMPLE_RATE, true);
  data.setUint32(28, SAMPLE_RATE * 2, true); // bytes per second
  data.setUint16(32, 2, true); // bytes per frame
  data.setUint16(34, 16, true); // bits per sample
  text(36, "data");
  data.setUint32(40, count * 2, true);
  let at = 44;
  for (const chunk of chunks) {
    for (const sample of chunk) {
      const clipped = Math.max(-1, Math.min(1, sample));
      data.setInt16(at, clipped < 0 ? clipped * 0x8000 : clipped * 0x7fff, true);
      at += 2;
    }
  }
  return new Blob([data.buffer], { type: "audio/wav" });
}
