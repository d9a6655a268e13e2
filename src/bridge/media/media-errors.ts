/**
 * The audio lasts longer than `limitSeconds`; it was refused as soon as that was known. The errors a file's conversion refuses it with
 * live here, apart from the codecs that raise them (codecs.ts), so that the pipeline and the refusals name them without
 * loading the codecs.
 */
export class AudioTooLongError extends Error {
  override readonly name = "AudioTooLongError";
  constructor(
    readonly limitSeconds: number,
    message = `the audio is longer than ${limitSeconds} seconds`,
  ) {
    super(message);
  }
}

/** The bytes are corrupted, cut short before any audio, or not the format they were identified as. */
export class AudioUnreadableError extends Error {
  override readonly name = "AudioUnreadableError";
}

/** A file of a kind the chatbot API does not take and the bridge cannot convert (named by `message`). */
export class UnsupportedMediaError extends Error {
  override readonly name = "UnsupportedMediaError";
}
