import { PICTURE_SETTINGS, type PictureKind, pictureFileId } from "../api/chatbot-pictures.js";
import type { ChatbotPicture } from "../client/index.js";
import type { Logger } from "../common/log.js";
import type { ChatbotLink } from "./chatbot-link.js";
import type { ChatbotSettingsReader } from "./chatbot-settings.js";

/**
 * How fresh the settings naming the pictures are, and how long a picture that could not be read stays unread: the
 * web widget's freshness, so that an `Edit` shows as soon as the widget's settings do.
 */
const PICTURE_SETTINGS_MAX_AGE_MS = 5_000;

/** A picture kept for the file id that named it (a file's bytes never change), or its failure for a while. */
interface KeptPicture {
  fileId: string;
  picture: Promise<ChatbotPicture | undefined>;
  readAt: number;
}

/**
 * One bot's chatbot's avatar and launcher picture, read with the client from the self-hosted server's picture route
 * when the settings name a file id. One picture is kept per kind, keyed by the file id, so that a new id is fetched
 * at once and the bridge keeps no more than two images per bot; concurrent requests share one fetch.
 */
export class ChatbotPictures {
  readonly #kept = new Map<PictureKind, KeptPicture>();

  constructor(
    private readonly link: ChatbotLink,
    private readonly settings: ChatbotSettingsReader,
    private readonly log: Logger,
  ) {}

  /** The picture; undefined when the settings name no file or it cannot be read (hosted platform). */
  async read(kind: PictureKind): Promise<ChatbotPicture | undefined> {
    const settings = await this.settings.read(PICTURE_SETTINGS_MAX_AGE_MS);
    const fileId = pictureFileId(settings?.[PICTURE_SETTINGS[kind]]);
    if (fileId === undefined) return undefined;
    const kept = this.#kept.get(kind);
    if (kept?.fileId === fileId && ((await kept.picture) || kept.readAt + PICTURE_SETTINGS_MAX_AGE_MS > Date.now())) {
      return kept.picture;
    }
    const picture = this.#fetch(kind);
    this.#kept.set(kind, { fileId, picture, readAt: Date.now() });
    return picture;
  }

  async #fetch(kind: PictureKind): Promise<ChatbotPicture | undefined> {
    try {
      return await this.link.client.chatbotPicture(this.link.serialNumber, kind);
    } catch (error) {
      this.log.debug({ err: error, botId: this.link.botId, kind }, "chatbot picture unavailable");
      return undefined;
    }
  }
}
