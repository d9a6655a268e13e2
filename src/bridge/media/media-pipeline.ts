import { MAX_UPLOAD_BYTES, MEDIA_RULES } from "../../api/media-rules.js";
import type { ChatAskType } from "../../api/types.js";
import type { ChatbotClient } from "../../client/index.js";
import { lazyPart } from "../../common/lazy-parts.js";
import type { Logger } from "../../common/log.js";
import type { MediaConfig } from "../../config/config.js";
import { type Channel, MediaTooLargeError } from "../channel.js";
import type { InboundMessage, MediaRef } from "../inbound.js";
import type { BridgeMetrics } from "../metrics.js";
import { declaredAskType, type MediaAskType } from "./declared-type.js";
import { heicToJpeg } from "./heic-to-jpeg.js";
import { AudioTooLongError, UnsupportedMediaError } from "./media-errors.js";
import { type Refusal, refusalOf } from "./refusals.js";

/** The codecs, imported with the first file that gets as far as being identified (most bridges never see one). */
const loadCodecs = lazyPart("media-codecs", () => import("./codecs.js"));

/** One ClientAsk to make: its type, its text (a caption, or empty) and the uploaded files. */
export interface MediaQuestion {
  askType: ChatAskType;
  content: string;
  fileIds: number[];
}

/** What the messages' media turned into: the questions to ask, in order, and what to tell the user first. */
export interface MediaPlan {
  questions: MediaQuestion[];
  /** One per distinct reason, in the order they came up. */
  refusals: Refusal[];
}

/** The outcome for one file: uploaded, or refused for a reason. */
type Item = { askType: MediaAskType; fileId: number } | { refused: Refusal };

/**
 * How many bytes a file may be downloaded with, by what the platform says it is: images and videos up to the API's
 * own limits (20 MB, 100 MB), compressed audio up to the API's audio limit (it shrinks or stays as WAV), and a file
 * of unknown type up to the largest limit, since only its bytes will tell which applies.
 */
const DOWNLOAD_CAPS: Record<MediaAskType | "unknown", number> = {
  Image: MEDIA_RULES.Image.maxBytes,
  Video: MEDIA_RULES.Video.maxBytes,
  Audio: MEDIA_RULES.Audio.maxBytes,
  unknown: MAX_UPLOAD_BYTES,
};

/** Files of one message downloaded, converted and uploaded at once (an album holds up to ten photos). */
const PARALLEL_FILES = 3;

/** What each file is uploaded as: the hosted platform may go by the name's extension. */
const UPLOAD_NAMES: Record<MediaAskType, string> = { Image: "photo", Audio: "voice-message", Video: "video" };

/**
 * Turns the files users send into ClientAsk questions: each is checked against its limit before any download
 * (declared size and duration), downloaded with a hard cap, identified from its bytes, converted where the API
 * needs it (audio → 16 kHz mono WAV, HEIC photos → JPEG), and uploaded through the three-step upload. Photos sent together become one
 * Image question with several fileIds; each recording and video its own question. The caption goes with the first
 * question; a message whose files were all refused is not asked at all (its caption was about them), the user is
 * told why instead. Nothing is retried: a failed file is reported once, the others still go.
 */
export class MediaPipeline {
  constructor(
    private readonly config: MediaConfig,
    private readonly metrics: BridgeMetrics,
    private readonly log: Logger,
  ) {}

  async prepare(
    channel: Channel,
    client: ChatbotClient,
    messages: InboundMessage[],
    signal: AbortSignal,
  ): Promise<MediaPlan> {
    const all = messages.flatMap((message) => message.media);
    const items: Item[] = [];
    for (let start = 0; start < all.length; start += PARALLEL_FILES) {
      const slice = all.slice(start, start + PARALLEL_FILES);
      items.push(...(await Promise.all(slice.map((media) => this.#item(channel, client, media, signal)))));
    }
    const outcomes = new Map(all.map((media, index) => [media, items[index]]));
    const forwarded = (media: MediaRef) => {
      const item = outcomes.get(media);
      return item !== undefined && "fileId" in item;
    };
    const texts = messages
      .filter((message) => message.media.length === 0 || message.media.some(forwarded))
      .map((message) => message.text.trim())
      .filter(Boolean);
    return {
      questions: questionsOf(
        items.flatMap((item) => ("fileId" in item ? [item] : [])),
        texts.join("\n"),
      ),
      refusals: distinct(items.flatMap((item) => ("refused" in item ? [item.refused] : []))),
    };
  }

  async #item(channel: Channel, client: ChatbotClient, media: MediaRef, signal: AbortSignal): Promise<Item> {
    const declared = media.kind === "unsupported" ? "other" : declaredAskType(media.kind, media.mimeType);
    const item = await this.#fetchAndUpload(channel, client, media, declared, signal).catch((error: unknown) => {
      if (signal.aborted) throw error;
      const refused = refusalOf(error);
      if (refused.reason === "failed") {
        this.log.warn({ err: error, channel: channel.name, kind: media.kind }, "a file could not be forwarded");
      }
      return { refused };
    });
    const outcome = "fileId" in item ? "forwarded" : item.refused.reason;
    this.metrics.mediaItems.inc({ channel: channel.name, kind: media.label ?? media.kind, outcome });
    return item;
  }

  async #fetchAndUpload(
    channel: Channel,
    client: ChatbotClient,
    media: MediaRef,
    declared: MediaAskType | "unknown" | "other",
    signal: AbortSignal,
  ): Promise<Item> {
    if (declared === "other" || !channel.download) return { refused: { reason: "unsupported" } };
    const cap = DOWNLOAD_CAPS[declared];
    if (media.sizeBytes !== undefined && media.sizeBytes > cap) throw new MediaTooLargeError(cap, "declared size");
    const { maxAudioSeconds } = this.config;
    if (declared === "Audio" && (media.durationSeconds ?? 0) > maxAudioSeconds) {
      throw new AudioTooLongError(maxAudioSeconds);
    }
    const bytes = await channel.download(media, { signal, maxBytes: cap });
    const { identify, audioToWav } = await loadCodecs();
    const identified = await identify(bytes);
    if (identified.askType === undefined) throw new UnsupportedMediaError(`not forwarded: ${identified.what}`);
    const upload =
      identified.askType === "Audio"
        ? {
            bytes: (await audioToWav(bytes, identified.format, { maxSeconds: maxAudioSeconds, signal })).wav,
            extension: "wav",
            contentType: "audio/wav",
          }
        : {
            bytes: identified.fromHeic ? await heicToJpeg(bytes, signal) : bytes,
            extension: identified.extension,
            contentType: identified.mime,
          };
    const limit = MEDIA_RULES[identified.askType].maxBytes;
    if (upload.bytes.length > limit) throw new MediaTooLargeError(limit, "over the API's limit");
    const fileId = await client.uploadFile(
      {
        fileName: `${UPLOAD_NAMES[identified.askType]}.${upload.extension}`,
        bytes: upload.bytes,
        contentType: upload.contentType,
      },
      { signal },
    );
    return { askType: identified.askType, fileId };
  }
}

/**
 * Photos together in as few Image questions as the per-request limit allows, each recording and video on its own
 * (the API takes one per request), in the order the first of each came; the text goes with the first question.
 */
function questionsOf(accepted: { askType: MediaAskType; fileId: number }[], text: string): MediaQuestion[] {
  const questions: MediaQuestion[] = [];
  let images: MediaQuestion | undefined;
  for (const { askType, fileId } of accepted) {
    if (askType === "Image" && images && images.fileIds.length < MEDIA_RULES.Image.maxFiles) {
      images.fileIds.push(fileId);
      continue;
    }
    const question = { askType, content: "", fileIds: [fileId] };
    if (askType === "Image") images = question;
    questions.push(question);
  }
  const [first] = questions;
  if (first) first.content = text;
  else if (text) questions.push({ askType: "Text", content: text, fileIds: [] });
  return questions;
}

function distinct(refusals: Refusal[]): Refusal[] {
  const seen = new Set<string>();
  return refusals.filter((refusal) => !seen.has(refusal.reason) && seen.add(refusal.reason));
}
