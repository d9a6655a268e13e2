import type { Dispatcher } from "undici";
import type { AnswerEvent } from "./answer-events.js";
import { field } from "./envelope.js";
import { ChatbotApiError } from "./errors.js";
import type { RetryPolicy } from "./retry.js";
import { answerFromEnvelopeData } from "./stream/answer-objects.js";
import { ApiTransport, type Operation } from "./transport.js";
import type {
  AskAnswer,
  AskRequest,
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
  UploadRequest,
} from "./types.js";

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

const post = (name: string, path: string, credential: Operation["credential"], idempotent = false): Operation => ({
  name,
  method: "POST",
  path,
  credential,
  idempotent,
});

const OPERATIONS = {
  edit: post("Edit", "/chat/Chatbot/Edit", "secret"),
  ask: post("ClientAsk", "/chat/Chat/ClientAsk", "secret"),
  session: post("GetSession", "/chat/Chatbot/GetSession", "secret"),
  create: post("RealEstateCreate", "/chat/Chatbot/RealEstateCreate", "every"),
  update: post("RealEstateUpdate", "/chat/Chatbot/RealEstateUpdate", "every"),
  list: post("RealEstateList", "/chat/Chatbot/RealEstateList", "session", true),
  delete: post("RealEstateDelete", "/chat/Chatbot/RealEstateDelete", "every"),
  models: { name: "ModelList", method: "GET", path: "/chat/Chatbot/ModelList", credential: "secret", idempotent: true },
  add: post("Add", "/chat/Chatbot/Add", "secret"),
  remove: post("Remove", "/chat/Chatbot/Remove", "secret"),
  history: post("ChatContentHistory", "/chat/Chatbot/ChatContentHistory", "secret", true),
  preUpload: post("GetPreUploadUrl", "/chat/User/GetPreUploadUrl", "secret"),
  get: post("Get", "/chat/Chatbot/Get", "secret", true),
  leads: post("LeadList", "/chat/Chatbot/LeadList", "secret", true),
  addLead: post("LeadAdd", "/chat/Chatbot/LeadAdd", "secret"),
} satisfies Record<string, Operation>;

function malformed(operation: string, what: string, data: unknown): ChatbotApiError {
  const shown = JSON.stringify(data)?.slice(0, 120) ?? String(data);
  return new ChatbotApiError({ operation, kind: "malformed", message: `${what}, got ${shown}` });
}

/** An integer from a number or numeric string (the hosted API sends ids both ways). */
function integer(operation: string, what: string, value: unknown): number {
  const number = typeof value === "string" && value.trim() !== "" ? Number(value) : value;
  if (typeof number === "number" && Number.isSafeInteger(number)) return number;
  throw malformed(operation, `expected ${what} to be an integer`, value);
}

function record(operation: string, what: string, value: unknown): Record<string, unknown> {
  if (typeof value === "object" && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
  throw malformed(operation, `expected ${what} to be an object`, value);
}

function array(operation: string, what: string, value: unknown): unknown[] {
  if (Array.isArray(value)) return value;
  throw malformed(operation, `expected ${what} to be an array`, value);
}

/**
 * Typed client of the chatbot API: one method per operation of the spec, plus the hosted platform's
 * session, model, chatbot, history and upload operations. Works the same against the hosted platform
 * and the embedded server. Every failure is a {@link ChatbotApiError}.
 */
export class ChatbotClient {
  readonly #transport: ApiTransport;
  readonly #uploadConfirm: Operation;

  constructor(options: ChatbotClientOptions) {
    this.#transport = new ApiTransport({ ...options, timeoutMs: options.timeoutMs ?? 120_000 });
    this.#uploadConfirm = post("UploadSuccess", options.uploadConfirmPath ?? "/chat/User/UploadSuccess", "secret");
  }

  /** Changes a chatbot's settings; omitted fields stay as they are. */
  async editChatbot(serialNumber: string, settings: ChatbotSettings, options: CallOptions = {}): Promise<void> {
    await this.#transport.call(OPERATIONS.edit, { serialNumber, ...settings }, options.signal);
  }

  /** Opens a chat session with a chatbot (`GetSession`) and returns its id. */
  async createSession(serialNumber: string, options: CallOptions = {}): Promise<number> {
    const data = await this.#transport.call(OPERATIONS.session, { serialNumber }, options.signal);
    const name = OPERATIONS.session.name;
    return integer(name, "Data.SessionID", field(record(name, "Data", data), "SessionID"));
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
   * Asks a question and yields the answer as it is generated: `delta` events, then one `final`. Breaking
   * out of the loop or aborting the signal cancels the upstream generation.
   */
  askStream(request: AskRequest, options: CallOptions = {}): AsyncGenerator<AnswerEvent> {
    return this.#transport.stream(OPERATIONS.ask, askBody(request, true), options.signal);
  }

  /** Creates a listing and returns its identifier (usable as `Key` with `KeyType: "NewOaks"`). */
  async createListing(listing: ListingInput, options: CallOptions = {}): Promise<string> {
    const data = await this.#transport.call(OPERATIONS.create, listing, options.signal);
    if (typeof data === "string" || typeof data === "number") return String(data);
    throw malformed(OPERATIONS.create.name, "expected Data to be the new listing's identifier", data);
  }

  /** Updates the listing that `Key`/`KeyType` find; returns how many were updated. */
  async updateListing(listing: ListingUpdate, options: CallOptions = {}): Promise<number> {
    const data = await this.#transport.call(OPERATIONS.update, listing, options.signal);
    return integer(OPERATIONS.update.name, "Data", data);
  }

  /** Lists a chatbot's listings, filtered and paged. */
  async listListings(query: ListingQuery, options: CallOptions = {}): Promise<ListingPage> {
    const name = OPERATIONS.list.name;
    const data = record(name, "Data", await this.#transport.call(OPERATIONS.list, query, options.signal));
    return {
      List: array(name, "Data.List", field(data, "List")) as ListingPage["List"],
      VirtualCount: integer(name, "Data.VirtualCount", field(data, "VirtualCount")),
    };
  }

  /** Deletes listings by key; returns how many existed and were deleted. */
  async deleteListings(deletion: ListingDeletion, options: CallOptions = {}): Promise<number> {
    const name = OPERATIONS.delete.name;
    const data = record(name, "Data", await this.#transport.call(OPERATIONS.delete, deletion, options.signal));
    return integer(name, "Data.SuccessCount", field(data, "SuccessCount"));
  }

  /** The AI models a chatbot can use (`Key` goes into the settings' `Model`). */
  async listModels(options: CallOptions = {}): Promise<ModelInfo[]> {
    const name = OPERATIONS.models.name;
    return array(name, "Data", await this.#transport.call(OPERATIONS.models, undefined, options.signal)).map((item) => {
      const model = record(name, "a model", item);
      return {
        Key: String(field(model, "Key") ?? ""),
        Value: String(field(model, "Value") ?? ""),
        Status: field(model, "Status") === true,
      };
    });
  }

  /** Creates a chatbot and returns its serial number. `type` 0 is the generic chatbot. */
  async addChatbot(input: { timeZone: string; type?: number }, options: CallOptions = {}): Promise<string> {
    const data = await this.#transport.call(OPERATIONS.add, { type: 0, ...input }, options.signal);
    if (typeof data === "string" && data !== "") return data;
    throw malformed(OPERATIONS.add.name, "expected Data to be the new serial number", data);
  }

  /**
   * One chatbot's settings. An extension of the self-hosted server (`/chat/Chatbot/Get`); the hosted platform
   * has no such operation and answers 404.
   */
  async getChatbot(
    serialNumber: string,
    options: CallOptions = {},
  ): Promise<ChatbotSettings & { serialNumber: string }> {
    const data = await this.#transport.call(OPERATIONS.get, { serialNumber }, options.signal);
    return record(OPERATIONS.get.name, "Data", data) as unknown as ChatbotSettings & { serialNumber: string };
  }

  /** Deletes a chatbot. */
  async removeChatbot(serialNumber: string, options: CallOptions = {}): Promise<void> {
    await this.#transport.call(OPERATIONS.remove, { serialNumber }, options.signal);
  }

  /** A chatbot's conversations with their messages, optionally between two dates. */
  async chatHistory(query: HistoryQuery, options: CallOptions = {}): Promise<HistorySession[]> {
    const name = OPERATIONS.history.name;
    return array(
      name,
      "Data",
      await this.#transport.call(OPERATIONS.history, query, options.signal),
    ) as HistorySession[];
  }

  /** A chatbot's leads, oldest first, optionally between two dates or of one session. */
  async listLeads(query: LeadQuery, options: CallOptions = {}): Promise<LeadItem[]> {
    const name = OPERATIONS.leads.name;
    return array(name, "Data", await this.#transport.call(OPERATIONS.leads, query, options.signal)).map(
      (item) => record(name, "a lead", item) as unknown as LeadItem,
    );
  }

  /**
   * Records a request to talk to a person and returns it as LeadList shows it. An extension of the self-hosted
   * server (`/chat/Chatbot/LeadAdd`); the hosted platform has no such operation and answers 404.
   */
  async addLead(lead: LeadInput, options: CallOptions = {}): Promise<LeadItem> {
    const data = await this.#transport.call(OPERATIONS.addLead, { Type: "Handoff", ...lead }, options.signal);
    return record(OPERATIONS.addLead.name, "Data", data) as unknown as LeadItem;
  }

  /**
   * Uploads a file in the platform's three steps (pre-signed URL, PUT of the bytes, confirmation) and
   * returns the id to put in `fileIds`.
   */
  async uploadFile(upload: UploadRequest, options: CallOptions = {}): Promise<number> {
    const name = OPERATIONS.preUpload.name;
    const data = record(
      name,
      "Data",
      await this.#transport.call(OPERATIONS.preUpload, { fileName: upload.fileName }, options.signal),
    );
    const fileStoreId = integer(name, "Data.FileStoreId", field(data, "FileStoreId"));
    const url = field(data, "PreUploadUrl");
    if (typeof url !== "string" || !/^https?:\/\//.test(url)) {
      throw malformed(name, "expected Data.PreUploadUrl to be an http(s) URL", url);
    }
    await this.#transport.put(url, upload.bytes, upload.contentType ?? "application/octet-stream", options.signal);
    // The hosted platform shows FileStoreId as a string; send it the same way.
    await this.#transport.call(this.#uploadConfirm, { FileStoreId: String(fileStoreId) }, options.signal);
    return fileStoreId;
  }

  /** Closes idle connections. */
  close(): Promise<void> {
    return this.#transport.close();
  }
}

function askBody(request: AskRequest, stream: boolean) {
  return {
    sessionID: request.sessionId,
    content: request.content,
    chatAskType: request.chatAskType ?? "Text",
    stream,
    fileIds: request.fileIds && request.fileIds.length > 0 ? request.fileIds : null,
  };
}
