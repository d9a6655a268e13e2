import type { ChatAskType } from "./types.js";

const MB = 1024 * 1024;

/** What ClientAsk accepts per ask type: formats identified from the bytes, size caps, file counts. */
export const MEDIA_RULES: Record<
  Exclude<ChatAskType, "Text">,
  { formats: Record<string, string>; maxBytes: number; maxFiles: number }
> = {
  Image: {
    formats: { "image/png": "PNG", "image/jpeg": "JPEG", "image/webp": "WEBP", "image/gif": "GIF" },
    maxBytes: 20 * MB,
    maxFiles: 10,
  },
  // The spec gives no audio cap; the hosted docs' "Up to 40MB" line (printed after the video cap) is taken as it.
  Audio: {
    formats: { "audio/wav": "WAV", "audio/x-wav": "WAV", "audio/vnd.wave": "WAV" },
    maxBytes: 40 * MB,
    maxFiles: 1,
  },
  Video: {
    formats: {
      "video/mp4": "MP4",
      // file-type 21 names Matroska video/matroska; older identifiers say video/x-matroska.
      "video/matroska": "MKV",
      "video/x-matroska": "MKV",
      "video/vnd.avi": "AVI",
      "video/x-msvideo": "AVI",
      "video/x-flv": "FLV",
      "video/mpeg": "MPEG",
      "video/mp2t": "MPEG",
    },
    maxBytes: 100 * MB,
    maxFiles: 1,
  },
};

/** The largest upload accepted at all (a video's cap). */
export const MAX_UPLOAD_BYTES = MEDIA_RULES.Video.maxBytes;

/** "20 MB" for messages, rounded up so that a size over a cap never reads as the cap itself. */
export const megabytes = (bytes: number) => `${Math.ceil((bytes / MB) * 10) / 10} MB`;
