import { mediaSeconds } from "../media-duration.js";
import type { Attachment } from "../types.js";
import type { ReceivedMedia } from "./phrasebook.js";

/** What the attachments are, for the acknowledgement; undefined when nothing is attached. */
export function receivedMedia(attachments: Attachment[]): ReceivedMedia | undefined {
  if (attachments.length === 0) return undefined;
  const lengths = (kind: Attachment["kind"]) =>
    attachments.filter((attachment) => attachment.kind === kind).map(mediaSeconds);
  return {
    photos: attachments.filter((attachment) => attachment.kind === "image").length,
    recordings: lengths("audio"),
    videos: lengths("video"),
  };
}
