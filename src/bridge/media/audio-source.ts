/** PCM decoded from one piece of an audio file. */
export interface PcmBlock {
  /** One array per channel, `frames` samples each, nominally in [-1, 1]. */
  channels: Float32Array[];
  frames: number;
  sampleRate: number;
  /** The decoder's messages for frames it could not decode; it goes on after them, leaving gaps. */
  errors: string[];
}

/** An audio file opened for decoding, whatever its format. */
export interface AudioSource {
  /** How long the container says the audio is, known before decoding (Ogg granule, WAV header), when it says. */
  declaredSeconds: number | undefined;
  /** Decodes piece by piece; the decoder is freed when the iteration ends, also when it is abandoned midway. */
  blocks(): AsyncGenerator<PcmBlock>;
}
