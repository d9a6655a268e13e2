import { fileTypeFromBuffer } from "file-type";
import { gifFrameCount } from "../../api/gif-frames.js";
import { MEDIA_RULES } from "../../api/media-rules.js";
import type { AudioFormat } from "./audio-to-wav.js";

/** What a file's bytes turned out to be: something ClientAsk takes (audio after conversion), or not. */
export type Identified =
  | { askType: "Image" | "Video"; mime: string; extension: string; fromHeic?: boolean }
  | { askType: "Audio"; format: AudioFormat }
  | { askType: undefined; what: string };

/**
 * The compressed audio the bridge decodes to WAV, by the MIME type file-type gives. M4A/AAC, AMR and others have
 * no maintained pure JS/wasm decoder, so they are refused rather than forwarded in a format the API refuses.
 */
const AUDIO_FORMATS: Record<string, AudioFormat> = {
  "audio/ogg; codecs=opus": "opus",
  "audio/opus": "opus",
  "audio/ogg": "vorbis",
  "audio/mpeg": "mp3",
  "audio/flac": "flac",
  "audio/x-flac": "flac",
  "audio/wav": "wav",
  "audio/x-wav": "wav",
  "audio/vnd.wave": "wav",
};

/**
 * Identifies a file from its bytes (magic numbers, via file-type), never from its name or the platform's declared
 * type, which users and apps get wrong. Images and videos ClientAsk accepts go as they are, HEIC/HEIF photos are
 * marked for conversion to JPEG, an animated GIF is refused (the API takes still GIFs only), audio it can decode is
 * marked for conversion to WAV.
 */
export async function identify(bytes: Uint8Array): Promise<Identified> {
  const type = await fileTypeFromBuffer(bytes);
  if (!type) return { askType: undefined, what: "a file of unknown type" };
  // iPhone photos: converted to JPEG (heic-to-jpeg.ts), since the API takes no HEIC.
  if (type.mime === "image/heic" || type.mime === "image/heif") {
    return { askType: "Image", mime: "image/jpeg", extension: "jpg", fromHeic: true };
  }
  const audio = AUDIO_FORMATS[type.mime];
  if (audio) return { askType: "Audio", format: audio };
  for (const askType of ["Image", "Video"] as const) {
    if (!(type.mime in MEDIA_RULES[askType].formats)) continue;
    if (type.mime === "image/gif" && gifFrameCount(bytes) > 1) return { askType: undefined, what: "an animated GIF" };
    return { askType, mime: type.mime, extension: type.ext };
  }
  return { askType: undefined, what: type.mime };
}
