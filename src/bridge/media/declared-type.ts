import type { ChatAskType } from "../../api/types.js";

/** The ask types that carry files. */
export type MediaAskType = Exclude<ChatAskType, "Text">;

/**
 * The category a platform's declared type suggests, to choose the download cap and to refuse early what is plainly
 * no media (a PDF) without fetching it. `unknown` files (no type, `application/octet-stream`) are fetched and
 * identified from their bytes.
 */
export function declaredAskType(kind: string, mimeType: string | undefined): MediaAskType | "unknown" | "other" {
  if (kind === "image") return "Image";
  if (kind === "audio" || kind === "voice") return "Audio";
  if (kind === "video") return "Video";
  const mime = (mimeType ?? "").toLowerCase();
  if (mime === "" || mime === "application/octet-stream" || mime === "binary/octet-stream") return "unknown";
  if (mime.startsWith("image/")) return "Image";
  if (mime.startsWith("audio/")) return "Audio";
  if (mime.startsWith("video/")) return "Video";
  return "other";
}
