/**
 * What went wrong talking to the chatbot API. `kind` lets callers react without parsing messages:
 * - `http`: a non-2xx status (the envelope, when the body had one, fills `code` and `message`);
 * - `envelope`: HTTP 2xx but `Success: false`, or an error object inside a stream;
 * - `malformed`: a body that is not the envelope or not the stream the operation promises;
 * - `timeout`: no connection, no headers or no body bytes within the configured time;
 * - `connection`: refused, reset or cut before the answer was complete;
 * - `aborted`: the caller's `AbortSignal` fired (a user who stopped the generation);
 * - `incomplete`: a stream that ended without its final object (`partialText` holds what arrived);
 * - `config`: the client lacks a credential the operation needs.
 */
export type ChatbotApiErrorKind =
  | "http"
  | "envelope"
  | "malformed"
  | "timeout"
  | "connection"
  | "aborted"
  | "incomplete"
  | "config";

/** Fields of a {@link ChatbotApiError}; everything but `operation`, `kind` and `message` is optional. */
export interface ChatbotApiErrorInit {
  operation: string;
  kind: ChatbotApiErrorKind;
  message: string;
  status?: number;
  code?: number;
  partialText?: string;
  retryAfterMs?: number;
  /** True when the response carried the API's JSON envelope. */
  envelope?: boolean;
  cause?: unknown;
}

/** The only error the chatbot API client throws. */
export class ChatbotApiError extends Error {
  override readonly name = "ChatbotApiError";
  /** Operation name as in the API path, e.g. `ClientAsk`, `RealEstateList`. */
  readonly operation: string;
  readonly kind: ChatbotApiErrorKind;
  /** HTTP status, when a response arrived. */
  readonly status: number | undefined;
  /** The envelope's `Code`, when the body carried an envelope. */
  readonly code: number | undefined;
  /** The text of a streamed answer received before the failure. */
  readonly partialText: string | undefined;
  /** The server's `Retry-After`, in milliseconds, when it sent one. */
  readonly retryAfterMs: number | undefined;
  /**
   * True when the response carried the API's JSON envelope, so the API itself refused (a 404 is then e.g. an unknown
   * chatbot); false for everything else, such as an HTML page from another server or a proxy, where a 404 means the
   * base URL is wrong.
   */
  readonly envelope: boolean;

  constructor(init: ChatbotApiErrorInit) {
    super(`${init.operation}: ${init.message}`, init.cause === undefined ? undefined : { cause: init.cause });
    this.operation = init.operation;
    this.kind = init.kind;
    this.status = init.status;
    this.code = init.code;
    this.partialText = init.partialText;
    this.retryAfterMs = init.retryAfterMs;
    this.envelope = init.envelope ?? false;
  }

  /** The envelope's `Message`, or the transport problem, without the operation prefix. */
  get detail(): string {
    return this.message.slice(this.operation.length + 2);
  }
}
