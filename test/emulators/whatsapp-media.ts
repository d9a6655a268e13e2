import { createHash, randomBytes } from "node:crypto";
import type { ServeOptions } from "./file-downloads.js";

/** How a media item is described and served: `hideSize` leaves `file_size` out of its metadata. */
export type MediaOptions = ServeOptions & { hideSize?: boolean };

interface StoredMedia {
  id: string;
  bytes: Uint8Array;
  mimeType: string;
  options: MediaOptions;
  /** The download URL's query token, standing in for the signed, short-lived query of Meta's lookaside URLs. */
  key: string;
}

/** Media a phone number can fetch: metadata at GET /<version>/<id>, bytes at /media/<id>?token=…. */
export class WhatsAppMedia {
  readonly #media = new Map<string, StoredMedia>();

  /** Stores the bytes; returns a numeric media id, as in Meta's webhooks. */
  add(bytes: Uint8Array, mimeType: string, options: MediaOptions = {}): string {
    const id = String(1_000_000_000_000_000 + this.#media.size + 1);
    this.#media.set(id, { id, bytes, mimeType, options, key: randomBytes(8).toString("hex") });
    return id;
  }

  /** GET /<version>/<id>'s answer, with the download URL under `origin`; undefined for an unknown id. */
  info(id: string, origin: string): object | undefined {
    const media = this.#media.get(id);
    if (!media) return undefined;
    return {
      messaging_product: "whatsapp",
      url: `${origin}/media/${id}?token=${media.key}`,
      mime_type: media.mimeType,
      sha256: createHash("sha256").update(media.bytes).digest("hex"),
      ...(!media.options.hideSize && { file_size: media.bytes.length }),
      id,
    };
  }

  /** The media a download URL names, when its token matches. */
  download(id: string, key: string | null): StoredMedia | undefined {
    const media = this.#media.get(id);
    return media?.key === key ? media : undefined;
  }
}
