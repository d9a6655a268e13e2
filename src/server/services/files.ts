import { createHash, randomBytes } from "node:crypto";
import { createWriteStream } from "node:fs";
import { mkdir, readFile, rename, rm, stat } from "node:fs/promises";
import path from "node:path";
import type { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { fileTypeFromFile } from "file-type";
import { PICTURE_SETTINGS, type PictureKind, pictureFileId } from "../../api/chatbot-pictures.js";
import { gifFrameCount } from "../../api/gif-frames.js";
import { MAX_UPLOAD_BYTES, MEDIA_RULES, megabytes } from "../../api/media-rules.js";
import type { ChatAskType } from "../../api/types.js";
import { sameSecret } from "../../common/secrets.js";
import type { Workspace } from "../domain.js";
import type { Attachment } from "../engine/types.js";
import { ApiError, chatbotNotFound } from "../http/api-error.js";
import type { ApiStore } from "../store/api-store.js";

/** How long a pre-signed upload URL stays valid, as on the hosted platform. */
export const UPLOAD_URL_LIFETIME_MS = 5 * 60 * 1000;

/**
 * The path of the upload URL (PUT) this server hands out. Not a row of the API's table: on the hosted platform the
 * URL GetPreUploadUrl answers is another host's.
 */
export const UPLOAD_PATH = "/chat/User/Upload";

/** A chatbot's picture as stored: where its bytes are, and what they are. */
export interface PictureFile {
  path: string;
  /** Identified from the bytes, always `image/…`. */
  mime: string;
  size: number;
  sha256: string;
}

/**
 * Uploaded files: the three-step upload (pre-signed URL, PUT, confirmation) and the checks ClientAsk makes
 * on `fileIds`. Bytes are stored once under `<dataDir>/files/<sha256>` whatever name they came with, and
 * their type is identified from the bytes.
 */
export class FileService {
  readonly #root: string;

  constructor(
    private readonly store: ApiStore,
    dataDir: string,
    private readonly now: () => Date = () => new Date(),
  ) {
    this.#root = path.join(dataDir, "files");
  }

  /** GetPreUploadUrl: a pending file and its single-use upload URL under `baseUrl`. */
  async preUpload(workspace: Workspace, fileName: string, baseUrl: string) {
    const uploadToken = randomBytes(24).toString("base64url");
    const file = await this.store.files.create({
      workspaceId: workspace.id,
      fileName,
      uploadToken,
      expiresAt: new Date(this.now().getTime() + UPLOAD_URL_LIFETIME_MS),
    });
    return { FileStoreId: String(file.id), PreUploadUrl: `${baseUrl}${UPLOAD_PATH}/${file.id}?token=${uploadToken}` };
  }

  /**
   * The PUT of the bytes: valid token, not expired, not used yet, at most the largest media size. A refusal
   * leaves the rest of the body unread and the request open, for the error handler to drain it so that the
   * client receives the refusal.
   */
  async receive(id: number, token: string, body: Readable, declaredLength: number | undefined): Promise<void> {
    const file = await this.store.files.byId(id);
    if (!file || !sameSecret(file.uploadToken, token)) throw new ApiError(404, "Unknown upload URL");
    if (file.state !== "pending") throw new ApiError(409, "This upload URL was already used");
    if (file.expiresAt <= this.now()) {
      throw new ApiError(404, "This upload URL has expired (it is valid for 5 minutes); ask GetPreUploadUrl again");
    }
    if (declaredLength !== undefined && declaredLength > MAX_UPLOAD_BYTES) {
      throw new ApiError(
        413,
        `The file is ${megabytes(declaredLength)}; uploads may be at most ${megabytes(MAX_UPLOAD_BYTES)}`,
      );
    }
    await mkdir(path.join(this.#root, "tmp"), { recursive: true });
    const temp = path.join(this.#root, "tmp", `${id}-${randomBytes(6).toString("hex")}`);
    const hash = createHash("sha256");
    let size = 0;
    try {
      await pipeline(
        // Not destroyed when the size check below stops reading: that would reset the connection under the 413.
        body.iterator({ destroyOnReturn: false }),
        async function* (chunks: AsyncIterable<Buffer>) {
          for await (const chunk of chunks) {
            size += chunk.length;
            if (size > MAX_UPLOAD_BYTES) {
              throw new ApiError(
                413,
                `The file is larger than ${megabytes(MAX_UPLOAD_BYTES)}, the most an upload may be`,
              );
            }
            hash.update(chunk);
            yield chunk;
          }
        },
        createWriteStream(temp),
      );
      if (size === 0) throw new ApiError(400, "The upload is empty");
      const sha256 = hash.digest("hex");
      const mime = (await fileTypeFromFile(temp))?.mime ?? null;
      await rename(temp, await this.#pathFor(sha256, true));
      if (!(await this.store.files.markUploaded(id, { sha256, size, mime }))) {
        throw new ApiError(409, "This upload URL was already used");
      }
    } finally {
      await rm(temp, { force: true });
    }
  }

  /** The confirmation step: only an uploaded file of the workspace can be confirmed. */
  async confirm(workspace: Workspace, id: number): Promise<void> {
    const file = await this.store.files.byId(id);
    if (!file || file.workspaceId !== workspace.id) throw new ApiError(404, `File ${id} not found`);
    if (file.state === "confirmed") return;
    if (file.state !== "uploaded" || !(await this.store.files.confirm(id))) {
      throw new ApiError(409, `File ${id} has no bytes yet: PUT them to the upload URL first`);
    }
  }

  /**
   * The files of a ClientAsk, whose number per ask type the request's schema has checked: each must be the
   * workspace's, uploaded and confirmed; formats by magic numbers; sizes; GIFs must not be animated.
   */
  async attachmentsFor(workspace: Workspace, askType: ChatAskType, fileIds: number[]): Promise<Attachment[]> {
    if (askType === "Text") return [];
    const rule = MEDIA_RULES[askType];
    const accepted = [...new Set(Object.values(rule.formats))].join(", ");
    const attachments: Attachment[] = [];
    for (const id of fileIds) {
      const file = await this.store.files.byId(id);
      if (!file || file.workspaceId !== workspace.id) throw new ApiError(404, `File ${id} not found`);
      if (file.state !== "confirmed" || !file.sha256 || file.size === null) {
        throw new ApiError(400, `File ${id} is not uploaded and confirmed yet`);
      }
      if (!file.mime || !(file.mime in rule.formats)) {
        throw new ApiError(
          400,
          `File ${id} (${file.mime ?? "unknown type"}) is not accepted: ${askType} must be ${accepted}`,
        );
      }
      if (file.size > rule.maxBytes) {
        throw new ApiError(
          413,
          `File ${id} is ${megabytes(file.size)}; ${askType} files may be at most ${megabytes(rule.maxBytes)}`,
        );
      }
      const bytes = await readFile(await this.#pathFor(file.sha256, false));
      if (file.mime === "image/gif" && gifFrameCount(bytes) > 1) {
        throw new ApiError(400, `File ${id} is an animated GIF; only non-animated GIFs are accepted`);
      }
      attachments.push({
        kind: askType === "Image" ? "image" : askType === "Audio" ? "audio" : "video",
        mime: file.mime,
        bytes,
      });
    }
    return attachments;
  }

  /**
   * The picture a chatbot's ChatProfilePicture (`profile`) or ChatIcon (`icon`) names, for anyone to see: only a
   * confirmed image file of the chatbot's own workspace, so that no other upload can be read this way. Every other
   * case is a 404 saying which.
   */
  async chatbotPicture(serialNumber: string, kind: PictureKind): Promise<PictureFile> {
    const chatbot = await this.store.chatbots.bySerialNumber(serialNumber);
    if (!chatbot) throw chatbotNotFound(serialNumber);
    const setting = PICTURE_SETTINGS[kind];
    const value = chatbot.settings[setting].trim();
    const id = pictureFileId(value);
    if (!id) {
      const why =
        value === "" ? "is empty" : /^https?:\/\//i.test(value) ? "is an address, not a file id" : "is not a file id";
      throw new ApiError(404, `Chatbot ${serialNumber} has no ${kind} picture file: its ${setting} ${why}`);
    }
    const file = await this.store.files.byId(Number(id));
    // Another workspace's file looks the same as no file: ids are guessable, the files are not public.
    if (!file || file.workspaceId !== chatbot.workspaceId) {
      throw new ApiError(404, `File ${id} (the ${setting} of chatbot ${serialNumber}) not found`);
    }
    if (file.state !== "confirmed" || !file.sha256 || file.size === null) {
      throw new ApiError(
        404,
        `File ${id} (the ${setting} of chatbot ${serialNumber}) is not uploaded and confirmed yet`,
      );
    }
    if (!file.mime?.startsWith("image/")) {
      throw new ApiError(
        404,
        `File ${id} (the ${setting} of chatbot ${serialNumber}) is not an image (${file.mime ?? "unknown type"})`,
      );
    }
    return { path: await this.#pathFor(file.sha256, false), mime: file.mime, size: file.size, sha256: file.sha256 };
  }

  async #pathFor(sha256: string, create: boolean): Promise<string> {
    const dir = path.join(this.#root, sha256.slice(0, 2));
    if (create) await mkdir(dir, { recursive: true });
    const file = path.join(dir, sha256);
    if (!create) await stat(file);
    return file;
  }
}
