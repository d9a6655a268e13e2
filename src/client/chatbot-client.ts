import type { Dispatcher } from "undici";
import { CHATBOT_PICTURE_PATH, type PictureKind } from "../api/chatbot-pictures.js";
import { LISTING_CHANGES_NAME, LISTING_CHANGES_PATH, type ListingChange } from "../api/listing-changes.js";
import { OPERATIONS, type RequestOf } from "../api/operations.js";
import type {
  ChatbotSettings,
  HistoryQuery,
  HistorySession,
  LeadInput,
  LeadItem,
  LeadQuery,
  ListingDeletion,
  ListingInput,
  ListingPage,
  ListingQuery,
  ListingUpdate,
  ModelInfo,
} from "../api/types.js";
import type { AnswerEvent } from "./answer-events.js";
import { ChatbotApiError } from "./errors.js";
import type { RetryPolicy } from "./retry.js";
import { answerFromEnvelopeData } from "./stream/answer-objects.js";
import { decodeListingChanges } from "./stream/decode-listing-changes.js";
import { ApiTransport } from "./transport.js";
import type { AskAnswer, AskRequest, ChatbotPicture, UploadRequest } from "./types.js";

/** The largest picture {@link ChatbotClient.chatbotPicture} takes: an avatar needs far less. */
export const MAX_PICTURE_BYTES = 5 * 1024 * 1024;

/** What the client needs to reach one chatbot API (hosted or the embedded server). */
export interface ChatbotClientOptions {
  /** Base URL without trailing slash, e.g. `https://usapi.hottask.com` or `http://127.0.0.1:3000`. */
  baseUrl: string;
  /** Secret key, sent as `Authorization`. */
  apiKey?: string | undefined;
  /** Session key, sent as `chatrobot-sessionkey`. */
  sessionKey?: string | undefined;
  /** Longest wait for response headers and between two streamed chunks (default 120 s). */
  timeoutMs?: number;
  connectTimeoutMs?: number;
  retry?: RetryPolicy;
  /** Path of the upload's third step ("mark the upload as successful"); default `/chat/User/UploadSuccess`. */
  uploadConfirmPath?: string;
  /** Use this undici dispatcher instead of the client's own keep-alive agent. */
  dispatcher?: Dispatcher;
}

/** Per-call options. `signal` cancels the request; for a stream it also stops the upstream generation. */
export interface CallOptions {
  signal?: AbortSignal;
}

/** Options of a streamed call. */
export interface StreamOptions extends CallOptions {
  /**
   * Whether an error in the middle of the answer carries in `partialText` the text of the deltas received so far
   * (default true). Keeping it costs a copy of the body per answer under way; a caller that keeps the deltas' text
   * itself passes false.
   */
  partialText?: boolean;
}

/**
 * Typed client of the chatbot API: one method per operation of the spec, plus the hosted platform's
 * session, model, chatbot, history and upload operations. Works the same against the hosted platform
 * and the embedded server. Every failure is a {@link ChatbotApiError}.
 */
export class ChatbotClient {
  readonly #transport: ApiTransport;
  readonly #confirmUpload: typeof OPERATIONS.confirmUpload;

  constructor(options: ChatbotClientOptions) {
    this.#transport = new ApiTransport({ ...options, timeoutMs: options.timeoutMs ?? 120_000 });
    this.#confirmUpload = {
      ...OPERATIONS.confirmUpload,
      path: options.uploadConfirmPath ?? OPERATIONS.confirmUpload.path,
    };
  }

  /** Changes a chatbot's settings; omitted fields stay as they are. */
  async editChatbot(serialNumber: string, settings: ChatbotSettings, options: CallOptions = {}): Promise<void> {
    await this.#transport.call(OPERATIONS.editChatbot, { serialNumber, ...settings }, options.signal);
  }

  /** Opens a chat session with a chatbot (`GetSession`) and returns its id. */
  async createSession(serialNumber: string, options: CallOptions = {}): Promise<number> {
    return this.#transport.call(OPERATIONS.getSession, { serialNumber }, options.signal);
  }

  /** Asks a question and waits for the whole answer. */
  async ask(request: AskRequest, options: CallOptions = {}): Promise<AskAnswer> {
    const data = await this.#transport.call(OPERATIONS.ask, askBody(request, false), options.signal);
    const answer = answerFromEnvelopeData(OPERATIONS.ask.name, data);
    return {
      messageId: answer.messageId,
      content: answer.content,
      totalToken: answer.totalToken,
      noAnswer: answer.noAnswer ?? false,
    };
  }

  /**
   * Asks a question and hands out the answer as it is generated: `delta` events, then one `final`. The request
   * goes when the first event is asked for. Breaking out of the loop or aborting the signal cancels the upstream
   * generation.
   */
  askStream(request: AskRequest, options: StreamOptions = {}): AsyncIterableIterator<AnswerEvent> {
    return this.#transport.stream(OPERATIONS.ask, askBody(request, true), options.signal, options.partialText);
  }

  /** Creates a listing and returns its identifier (usable as `Key` with `KeyType: "NewOaks"`). */
  async createListing(listing: ListingInput, options: CallOptions = {}): Promise<string> {
    return this.#transport.call(OPERATIONS.createListing, listing, options.signal);
  }

  /** Updates the listing that `Key`/`KeyType` find; returns how many were updated. */
  async updateListing(listing: ListingUpdate, options: CallOptions = {}): Promise<number> {
    return this.#transport.call(OPERATIONS.updateListing, listing, options.signal);
  }

  /** Lists a chatbot's listings, filtered and paged. */
  async listListings(query: ListingQuery, options: CallOptions = {}): Promise<ListingPage> {
    return this.#transport.call(OPERATIONS.listListings, query, options.signal);
  }

  /** Deletes listings by key; returns how many existed and were deleted. */
  async deleteListings(deletion: ListingDeletion, options: CallOptions = {}): Promise<number> {
    return this.#transport.call(OPERATIONS.deleteListings, deletion, options.signal);
  }

  /** The AI models a chatbot can use (`Key` goes into the settings' `Model`). */
  async listModels(options: CallOptions = {}): Promise<ModelInfo[]> {
    return this.#transport.call(OPERATIONS.listModels, undefined, options.signal);
  }

  /** Creates a chatbot and returns its serial number. `type` 0 is the generic chatbot. */
  async addChatbot(input: { timeZone: string; type?: number }, options: CallOptions = {}): Promise<string> {
    return this.#transport.call(OPERATIONS.addChatbot, { type: 0, ...input }, options.signal);
  }

  /**
   * One chatbot's settings. An extension of the self-hosted server (`/chat/Chatbot/Get`); the hosted platform
   * has no such operation and answers 404.
   */
  async getChatbot(
    serialNumber: string,
    options: CallOptions = {},
  ): Promise<ChatbotSettings & { serialNumber: string }> {
    return this.#transport.call(OPERATIONS.getChatbot, { serialNumber }, options.signal);
  }

  /** Deletes a chatbot. */
  async removeChatbot(serialNumber: string, options: CallOptions = {}): Promise<void> {
    await this.#transport.call(OPERATIONS.removeChatbot, { serialNumber }, options.signal);
  }

  /** A chatbot's conversations with their messages, optionally between two dates. */
  async chatHistory(query: HistoryQuery, options: CallOptions = {}): Promise<HistorySession[]> {
    return this.#transport.call(OPERATIONS.chatHistory, query, options.signal);
  }

  /** A chatbot's leads, oldest first, optionally between two dates or of one session. */
  async listLeads(query: LeadQuery, options: CallOptions = {}): Promise<LeadItem[]> {
    return this.#transport.call(OPERATIONS.listLeads, query, options.signal);
  }

  /**
   * Records a request to talk to a person (or, with `Type: "Viewing"`, to visit a listing) and returns it as LeadList shows it. An extension of the self-hosted
   * server (`/chat/Chatbot/LeadAdd`); the hosted platform has no such operation and answers 404.
   */
  async addLead(lead: LeadInput, options: CallOptions = {}): Promise<LeadItem> {
    return this.#transport.call(OPERATIONS.addLead, { Type: "Handoff", ...lead }, options.signal);
  }

  /**
   * Uploads a file in the platform's three steps (pre-signed URL, PUT of the bytes, confirmation) and
   * returns the id to put in `fileIds`.
   */
  async uploadFile(upload: UploadRequest, options: CallOptions = {}): Promise<number> {
    const { signal } = options;
    const target = await this.#transport.call(OPERATIONS.preUpload, { fileName: upload.fileName }, signal);
    const contentType = upload.contentType ?? "application/octet-stream";
    await this.#transport.put(target.PreUploadUrl, upload.bytes, contentType, signal);
    // The hosted platform shows FileStoreId as a string; send it the same way.
    await this.#transport.call(this.#confirmUpload, { FileStoreId: String(target.FileStoreId) }, signal);
    return target.FileStoreId;
  }

  /**
   * The bytes of a chatbot's avatar (`profile`, its ChatProfilePicture) or launcher picture (`icon`, its ChatIcon)
   * when the setting is a file id. An extension of the self-hosted server (`GET /chat/Chatbot/Picture`, public, no
   * key); undefined on its 404 (no such picture) and on the hosted platform's, which has no such route. Only an
   * image (`image/…`) of at most {@link MAX_PICTURE_BYTES} is taken; anything else is a `malformed` error.
   */
  async chatbotPicture(
    serialNumber: string,
    kind: PictureKind,
    options: CallOptions = {},
  ): Promise<ChatbotPicture | undefined> {
    const operation = "Picture";
    const query = new URLSearchParams({ serialNumber, kind });
    try {
      const { bytes, contentType, etag } = await this.#transport.getBytes(
        operation,
        `${CHATBOT_PICTURE_PATH}?${query}`,
        { accept: "image/*", maxBytes: MAX_PICTURE_BYTES, signal: options.signal },
      );
      if (!contentType.startsWith("image/")) {
        throw new ChatbotApiError({
          operation,
          kind: "malformed",
          message: `the picture is ${contentType || "of no stated type"}, not an image`,
        });
      }
      return { bytes, contentType, etag };
    } catch (error) {
      if (error instanceof ChatbotApiError && error.status === 404) return undefined;
      throw error;
    }
  }

  /**
   * Follows a chatbot's listing changes: resolves once the server listens (a change committed after that is
   * announced), to the changes as they come, until the server ends the feed or `signal` aborts (leaving the loop
   * early closes the connection). An extension of the self-hosted server (`GET /chat/Chatbot/RealEstateChanges`,
   * the session key); the hosted platform has no such route and answers 404, a {@link ChatbotApiError} with
   * `status` 404 — read RealEstateList there. Changes are notifications only: nothing missed while disconnected is
   * replayed.
   */
  async listingChanges(serialNumber: string, options: CallOptions = {}): Promise<AsyncGenerator<ListingChange>> {
    const { signal } = options;
    const query = new URLSearchParams({ SerialNumber: serialNumber });
    // The session key, as for RealEstateList: the feed only points at what that reads.
    const body = await this.#transport.openEvents(
      LISTING_CHANGES_NAME,
      `${LISTING_CHANGES_PATH}?${query}`,
      "session",
      signal,
    );
    return (async function* () {
      try {
        yield* decodeListingChanges(body, { operation: LISTING_CHANGES_NAME, signal });
      } finally {
        body.destroy();
      }
    })();
  }

  /** Closes idle connections. */
  close(): Promise<void> {
    return this.#transport.close();
  }
}

function askBody(request: AskRequest, stream: boolean): RequestOf<typeof OPERATIONS.ask> {
  return {
    sessionID: request.sessionId,
    content: request.content,
    chatAskType: request.chatAskType ?? "Text",
    stream,
    fileIds: request.fileIds && request.fileIds.length > 0 ? request.fileIds : null,
  };
}
