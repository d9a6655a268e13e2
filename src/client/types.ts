import type { ChatAskType } from "../api/types.js";

/**
 * The arguments and results of the client's calls that differ from the wire shapes (`src/api/types.ts`): chat
 * calls take camelCase arguments, and an upload carries bytes.
 */

/** One question to a chatbot inside a session. */
export interface AskRequest {
  sessionId: number;
  /** The user's message; may be empty for Image, Audio and Video. */
  content: string;
  chatAskType?: ChatAskType;
  /** Uploaded file ids (see `uploadFile`); several images, or exactly one audio or video. */
  fileIds?: number[];
}

/** A complete (non-streamed) answer. */
export interface AskAnswer {
  messageId: number;
  content: string;
  totalToken: number;
  noAnswer: boolean;
}

/** A file to upload for `fileIds` or a chatbot picture. */
export interface UploadRequest {
  fileName: string;
  bytes: Uint8Array;
  /** Sent as the PUT's Content-Type; the server identifies the type from the bytes anyway. */
  contentType?: string;
}

/** A chatbot's picture as {@link ChatbotClient.chatbotPicture} fetched it. */
export interface ChatbotPicture {
  bytes: Uint8Array;
  /** `image/…`, as the server identified the bytes. */
  contentType: string;
  /** The server's validator of these bytes, when it sent one. */
  etag?: string | undefined;
}
