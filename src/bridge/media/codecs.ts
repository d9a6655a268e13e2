/**
 * The media codecs, imported together when the first file a user sent is converted ("media-codecs" in
 * src/common/lazy-parts.ts): what identifies a file from its bytes (file-type) and the audio conversion (the wasm decoders
 * of Opus, Vorbis, MP3 and FLAC, the resampler, the WAV writer). HEIC photos convert in a worker of their own
 * (heic-to-jpeg.ts), which loads its library there.
 */
export { audioToWav } from "./audio-to-wav.js";
export { identify } from "./identify.js";
