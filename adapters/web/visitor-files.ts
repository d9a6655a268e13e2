import { randomBytes } from "node:crypto";
import type Keyv from "keyv";
import type { MediaRef } from "../../src/plugin/plugin-api.js";
import { WEB_FILE_BYTES_PREFIX, WEB_FILE_PREFIX } from "./store-keys.js";

/**
 * How long an uploaded file waits for the message that sends it and for that message's answer: a day, so that a
 * message taken while the chatbot API was down for hours, or resumed after a crash, still finds its files; the rate
 * limits on uploads bound what this keeps.
 */
export const VISITOR_FILE_TTL_MS = 24 * 60 * 60 * 1000;

/**
 * The largest file a visitor can upload: the chatbot API's image limit (20 MB). A photo is forwarded as it is;
 * a push-to-talk recording is a 16 kHz WAV the widget makes (about 10 minutes in 20 MB, more than any voice limit).
 */
export const MAX_VISITOR_FILE_BYTES = 20 * 1024 * 1024;

/** What the widget can send: photos (EnableUploadImage) and push-to-talk recordings (EnablePushToTalk). */
export type VisitorFileKind = "image" | "voice";

/** An uploaded file as a message refers to it: its id, and what the upload said it is. */
export interface VisitorFile {
  id: string;
  kind: VisitorFileKind;
  mimeType: string;
  sizeBytes: number;
}

/** A file id as {@link VisitorFiles.keep} makes them: 22 URL-safe characters (128 random bits). */
export const VISITOR_FILE_ID = /^f[A-Za-z0-9_-]{22}$/;

/**
 * The files web chat visitors upload before sending them with a message, kept in the bridge store (Keyv: SQLite,
 * Redis or memory) so that whichever instance answers the message can read them, also after a restart. Each file
 * belongs to the visitor who uploaded it: another visitor's message cannot name it. Its description and its bytes
 * are kept apart, so that taking a message reads only the small description.
 */
export class VisitorFiles {
  constructor(
    private readonly keyv: Keyv,
    private readonly ttlMs = VISITOR_FILE_TTL_MS,
  ) {}

  /** Keeps an upload of `visitorId`; resolves to its description, whose id a message then names. */
  async keep(visitorId: string, kind: VisitorFileKind, mimeType: string, bytes: Buffer): Promise<VisitorFile> {
    const file: VisitorFile = {
      id: `f${randomBytes(16).toString("base64url")}`,
      kind,
      mimeType,
      sizeBytes: bytes.length,
    };
    // Bytes first: a description is only ever found with its bytes behind it.
    await this.keyv.set(bytesKey(visitorId, file.id), bytes, this.ttlMs);
    await this.keyv.set(fileKey(visitorId, file.id), file, this.ttlMs);
    return file;
  }

  /** The description of a file `visitorId` uploaded, or undefined (never uploaded, another visitor's, expired). */
  async find(visitorId: string, id: string): Promise<VisitorFile | undefined> {
    if (!VISITOR_FILE_ID.test(id)) return undefined;
    return (await this.keyv.get<VisitorFile>(fileKey(visitorId, id))) ?? undefined;
  }

  /** A file's bytes, or undefined when they are gone (expired). */
  async bytes(visitorId: string, id: string): Promise<Buffer | undefined> {
    const bytes = await this.keyv.get<Buffer>(bytesKey(visitorId, id));
    return bytes ? Buffer.from(bytes) : undefined;
  }
}

/** The media item of a message for a visitor's file: its handle names the visitor, whom only the bridge wrote. */
export function visitorMedia(visitorId: string, file: VisitorFile): MediaRef {
  return { kind: file.kind, platformId: `${visitorId}/${file.id}`, mimeType: file.mimeType, sizeBytes: file.sizeBytes };
}

/** The visitor and file of a media item {@link visitorMedia} made. */
export function visitorFileOf(media: MediaRef): { visitorId: string; fileId: string } | undefined {
  const slash = media.platformId.lastIndexOf("/");
  if (slash <= 0) return undefined;
  return { visitorId: media.platformId.slice(0, slash), fileId: media.platformId.slice(slash + 1) };
}

const fileKey = (visitorId: string, id: string) => `${WEB_FILE_PREFIX}${visitorId}:${id}`;
const bytesKey = (visitorId: string, id: string) => `${WEB_FILE_BYTES_PREFIX}${visitorId}:${id}`;
