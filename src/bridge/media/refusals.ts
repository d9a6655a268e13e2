import { megabytes } from "../../api/media-rules.js";
import type { MediaConfig } from "../../config/config.js";
import { MediaTooLargeError } from "../channel.js";
import { HeicUnreadableError } from "./heic-to-jpeg.js";
import { AudioTooLongError, AudioUnreadableError, UnsupportedMediaError } from "./media-errors.js";

/**
 * Why a file was not forwarded: a kind the chatbot cannot take, over a size or duration limit, or a failure on the
 * way (download, conversion or upload broke), which the user hears about as an apology.
 */
export type Refusal =
  | { reason: "unsupported" }
  | { reason: "too_large"; limitBytes: number }
  | { reason: "too_long"; limitSeconds: number }
  | { reason: "failed" };

/** The refusal an error on a file's way means. */
export function refusalOf(error: unknown): Refusal {
  if (error instanceof MediaTooLargeError) return { reason: "too_large", limitBytes: error.limitBytes };
  if (error instanceof AudioTooLongError) return { reason: "too_long", limitSeconds: error.limitSeconds };
  const unreadable = [AudioUnreadableError, HeicUnreadableError, UnsupportedMediaError];
  if (unreadable.some((kind) => error instanceof kind)) return { reason: "unsupported" };
  return { reason: "failed" };
}

/** What the user reads: the operator's text for the reason, `{limit}` filled in ("20 MB", "10 minutes"). */
export function refusalText(refusal: Refusal, texts: MediaConfig, apologyText: string): string {
  switch (refusal.reason) {
    case "unsupported":
      return texts.unsupportedText;
    case "too_large":
      return texts.tooLargeText.replaceAll("{limit}", megabytes(refusal.limitBytes));
    case "too_long":
      return texts.tooLongText.replaceAll("{limit}", duration(refusal.limitSeconds));
    case "failed":
      return apologyText;
  }
}

/** "10 minutes", "90 seconds", "2 minutes 30 seconds". */
function duration(seconds: number): string {
  const minutes = Math.floor(seconds / 60);
  const rest = seconds % 60;
  const unit = (n: number, name: string) => `${n} ${name}${n === 1 ? "" : "s"}`;
  if (minutes === 0 || (minutes < 2 && rest > 0)) return unit(seconds, "second");
  return rest === 0 ? unit(minutes, "minute") : `${unit(minutes, "minute")} ${unit(rest, "second")}`;
}
