import { setTimeout as sleep } from "node:timers/promises";
import { Agent, type Dispatcher } from "undici";
import type { z } from "zod";
import type { ApiKey, ApiOperation, RequestOf } from "../api/operations.js";
import type { AnswerEvent } from "./answer-events.js";
import { dataProblem } from "./data-problem.js";
import { unwrapEnvelope } from "./envelope.js";
import { ChatbotApiError } from "./errors.js";
import { DEFAULT_RETRY, parseRetryAfter, type RetryPolicy, retryDelay } from "./retry.js";
import { decodeAnswerStream } from "./stream/decode-answer-stream.js";
import { openedLater } from "./stream/pass-through.js";
import { transportError, wasNeverSent } from "./transport-errors.js";

/** How to reach the API. */
export interface TransportOptions {
  /** Base URL without trailing slash; may carry a path prefix. */
  baseUrl: string;
  apiKey?: string | undefined;
  sessionKey?: string | undefined;
  /** Longest wait for response headers, and between two body chunks (a stalled stream). */
  timeoutMs: number;
  connectTimeoutMs?: number;
  retry?: RetryPolicy;
  /** An undici dispatcher to use instead of the transport's own keep-alive agent. */
  dispatcher?: Dispatcher;
  /** Largest envelope body accepted, in bytes (default 64 MiB). */
  maxResponseBytes?: number;
}

const USER_AGENT = "chatbridge/0.1";
/** A `Retry-After` longer than this is not waited for: the caller hears about it instead. */
const LONGEST_RETRY_WAIT_MS = 30_000;

async function readBytes(operation: string, body: Dispatcher.ResponseData["body"], cap: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > cap) {
      body.destroy();
      throw new ChatbotApiError({ operation, kind: "malformed", message: `the response exceeds ${cap} bytes` });
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

async function readText(operation: string, body: Dispatcher.ResponseData["body"], cap: number): Promise<string> {
  return (await readBytes(operation, body, cap)).toString("utf8");
}

/** A body fetched by {@link ApiTransport.getBytes}. */
export interface FetchedBytes {
  bytes: Uint8Array;
  /** The response's Content-Type, without parameters, lower-case; `""` when it had none. */
  contentType: string;
  etag: string | undefined;
}

/**
 * HTTP for the chatbot API client: credentials, timeouts, keep-alive, retries where they cannot duplicate
 * work, and errors turned into {@link ChatbotApiError}.
 */
export class ApiTransport {
  readonly #options: TransportOptions;
  readonly #dispatcher: Dispatcher;
  readonly #ownsDispatcher: boolean;
  readonly #base: URL;
  readonly #retry: RetryPolicy;
  readonly #cap: number;

  constructor(options: TransportOptions) {
    this.#options = options;
    this.#base = new URL(options.baseUrl);
    this.#retry = options.retry ?? DEFAULT_RETRY;
    this.#cap = options.maxResponseBytes ?? 64 * 1024 * 1024;
    this.#ownsDispatcher = !options.dispatcher;
    this.#dispatcher =
      options.dispatcher ??
      new Agent({
        connect: { timeout: options.connectTimeoutMs ?? 10_000 },
        keepAliveTimeout: 30_000,
        // One connection per streamed answer: a bridge with a thousand conversations answering at once needs as many.
        connections: 1024,
      });
  }

  /**
   * Performs an operation and returns the envelope's `Data` as the operation's response schema reads it; `Data`
   * that does not fit is a `malformed` error naming the field (not retried: asking again gets the same answer).
   * The body is shaped by the API's types (`src/api/types.ts`), not by the request schema's stricter TypeScript
   * type: that schema holds the self-hosted server's choices where the hosted platform's docs are silent (such as
   * ChatBubbleAlign 0 or 1), and the client talks to both.
   */
  async call<Response extends z.ZodType>(
    operation: ApiOperation<z.ZodObject, Response>,
    body: object | undefined,
    signal?: AbortSignal,
  ): Promise<z.output<Response>> {
    const data = await this.#withRetry(operation.name, operation.retrySafe, signal, async () => {
      const response = await this.#send(operation, body, signal, "application/json");
      const text = await readText(operation.name, response.body, this.#cap);
      return unwrapEnvelope(operation.name, response.statusCode, text, {
        retryAfterMs: parseRetryAfter(response.headers["retry-after"]),
      });
    });
    const checked = operation.response.safeParse(data, { reportInput: true });
    if (!checked.success) throw dataProblem(operation.name, checked.error);
    return checked.data;
  }

  /**
   * Performs a streamed operation and hands out its answer events; the request goes on the first `next`. Only the
   * opening of the request is retried (and only when it never reached the server); leaving early (`return`, or a
   * `for await` left) closes the connection, which tells the server to stop generating. `partialText` false: its
   * errors do not carry the text so far (see {@link decodeAnswerStream}).
   */
  stream<Operation extends ApiOperation>(
    operation: Operation,
    body: RequestOf<Operation>,
    signal?: AbortSignal,
    partialText = true,
  ): AsyncIterableIterator<AnswerEvent> {
    return openedLater(async () => {
      const response = await this.#withRetry(operation.name, operation.retrySafe, signal, async () => {
        const response = await this.#send(operation, body, signal, "text/event-stream, application/json");
        if (response.statusCode >= 200 && response.statusCode <= 299) return response;
        const text = await readText(operation.name, response.body, this.#cap);
        unwrapEnvelope(operation.name, response.statusCode, text, {
          retryAfterMs: parseRetryAfter(response.headers["retry-after"]),
        });
        throw new ChatbotApiError({
          operation: operation.name,
          kind: "http",
          status: response.statusCode,
          message: `HTTP ${response.statusCode}`,
        });
      });
      const contentType = String(response.headers["content-type"] ?? "");
      // The decoding releases the body when it ends, fails or is left (its iterator's return destroys it).
      return decodeAnswerStream(response.body, { operation: operation.name, signal, contentType, partialText });
    });
  }

  /** PUTs bytes to a pre-signed upload URL. No API credential is sent: the URL may belong to another host. */
  async put(url: string, bytes: Uint8Array, contentType: string, signal?: AbortSignal): Promise<void> {
    // Not an operation of the API's table (the URL may be another host's); repeating the PUT of the same bytes
    // to the same URL is harmless.
    const operation = { name: "UploadFile" };
    const target = new URL(url);
    await this.#withRetry(operation.name, true, signal, async () => {
      const response = await this.#dispatcher.request({
        origin: target.origin,
        path: `${target.pathname}${target.search}`,
        method: "PUT",
        headers: { "content-type": contentType, "user-agent": USER_AGENT },
        body: bytes,
        signal,
        headersTimeout: this.#options.timeoutMs,
        bodyTimeout: this.#options.timeoutMs,
      });
      const text = await readText(operation.name, response.body, this.#cap);
      if (response.statusCode < 200 || response.statusCode > 299) {
        throw new ChatbotApiError({
          operation: operation.name,
          kind: "http",
          status: response.statusCode,
          retryAfterMs: parseRetryAfter(response.headers["retry-after"]),
          message: `the upload URL answered HTTP ${response.statusCode}${text ? `: ${text.slice(0, 120)}` : ""}`,
        });
      }
    });
  }

  /**
   * GETs the bytes at `path` (from the API's root, query included), for routes outside the API's table that answer
   * raw bytes and the envelope only when they fail. No credential is sent: such routes are public. Reads are
   * retried like the table's; a failure is the envelope's error (a 404 has `status` 404), and a body over `maxBytes`
   * is `malformed`, refused by its Content-Length before it is read where it declares one.
   */
  async getBytes(
    name: string,
    path: string,
    options: { accept: string; maxBytes: number; signal?: AbortSignal | undefined },
  ): Promise<FetchedBytes> {
    const { accept, maxBytes, signal } = options;
    return this.#withRetry(name, true, signal, async () => {
      const response = await this.#dispatcher.request({
        origin: this.#base.origin,
        path: `${this.#base.pathname.replace(/\/$/, "")}${path}`,
        method: "GET",
        headers: { accept: `${accept}, application/json`, "user-agent": USER_AGENT },
        signal,
        headersTimeout: this.#options.timeoutMs,
        bodyTimeout: this.#options.timeoutMs,
      });
      const retryAfterMs = parseRetryAfter(response.headers["retry-after"]);
      if (response.statusCode < 200 || response.statusCode > 299) {
        unwrapEnvelope(name, response.statusCode, await readText(name, response.body, this.#cap), { retryAfterMs });
      }
      if (Number(response.headers["content-length"] ?? 0) > maxBytes) {
        response.body.destroy();
        throw new ChatbotApiError({
          operation: name,
          kind: "malformed",
          message: `the response exceeds ${maxBytes} bytes`,
        });
      }
      const bytes = await readBytes(name, response.body, maxBytes);
      const etag = response.headers.etag;
      return {
        bytes,
        contentType:
          String(response.headers["content-type"] ?? "")
            .split(";")[0]
            ?.trim()
            .toLowerCase() ?? "",
        etag: typeof etag === "string" ? etag : undefined,
      };
    });
  }

  /**
   * GETs an event stream at `path` (from the API's root, query included) with the credential `sends` names, for the
   * feeds outside the API's table, and returns its body once the server answered 2xx with `text/event-stream`. A
   * failure is the envelope's error (a 404 has `status` 404); a 2xx of another type (a page) is `malformed`. Opening is retried like a read; the body's idle time is bounded by `timeoutMs`,
   * so a feed whose heartbeats stop fails instead of hanging.
   */
  async openEvents(
    name: string,
    path: string,
    sends: ApiKey,
    signal?: AbortSignal,
  ): Promise<Dispatcher.ResponseData["body"]> {
    const feed = { name, method: "GET", sends } as const;
    return this.#withRetry(name, true, signal, async () => {
      const response = await this.#dispatcher.request({
        origin: this.#base.origin,
        path: `${this.#base.pathname.replace(/\/$/, "")}${path}`,
        method: "GET",
        headers: this.#headers(feed, "text/event-stream, application/json"),
        signal,
        headersTimeout: this.#options.timeoutMs,
        bodyTimeout: this.#options.timeoutMs,
      });
      const contentType = String(response.headers["content-type"] ?? "");
      if (response.statusCode >= 200 && response.statusCode <= 299) {
        if (/^text\/event-stream\b/i.test(contentType)) return response.body;
        // Read (a little of it) rather than destroyed: a destroyed body errors, unheard, when the signal aborts later.
        await response.body.dump();
        throw new ChatbotApiError({
          operation: name,
          kind: "malformed",
          status: response.statusCode,
          message: `answered ${contentType.split(";")[0] || "a body of no stated type"}, not an event stream`,
        });
      }
      const text = await readText(name, response.body, this.#cap);
      unwrapEnvelope(name, response.statusCode, text, {
        retryAfterMs: parseRetryAfter(response.headers["retry-after"]),
      });
      throw new ChatbotApiError({
        operation: name,
        kind: "http",
        status: response.statusCode,
        message: `HTTP ${response.statusCode}`,
      });
    });
  }

  /** Closes idle keep-alive connections (only those of the transport's own agent). */
  async close(): Promise<void> {
    if (this.#ownsDispatcher) await this.#dispatcher.close();
  }

  #headers(operation: Pick<ApiOperation, "name" | "method" | "sends">, accept: string): Record<string, string> {
    const { apiKey, sessionKey } = this.#options;
    const headers: Record<string, string> = { accept, "user-agent": USER_AGENT };
    if (operation.method === "POST") headers["content-type"] = "application/json";
    const secret = operation.sends !== "session" ? apiKey : undefined;
    const session = operation.sends !== "secret" ? sessionKey : undefined;
    if (secret) headers.authorization = secret;
    if (session) headers["chatrobot-sessionkey"] = session;
    if (!secret && !session) {
      const needed =
        operation.sends === "session"
          ? "the session key (CHATBOT_SESSION_KEY)"
          : operation.sends === "secret"
            ? "the secret key (CHATBOT_API_KEY)"
            : "the secret key (CHATBOT_API_KEY) or the session key (CHATBOT_SESSION_KEY)";
      throw new ChatbotApiError({
        operation: operation.name,
        kind: "config",
        message: `needs ${needed}, which is not configured`,
      });
    }
    return headers;
  }

  #send(operation: ApiOperation, body: unknown, signal: AbortSignal | undefined, accept: string) {
    return this.#dispatcher.request({
      origin: this.#base.origin,
      path: `${this.#base.pathname.replace(/\/$/, "")}${operation.path}`,
      method: operation.method,
      headers: this.#headers(operation, accept),
      body: operation.method === "POST" ? JSON.stringify(body ?? {}) : null,
      signal,
      headersTimeout: this.#options.timeoutMs,
      bodyTimeout: this.#options.timeoutMs,
    });
  }

  async #withRetry<T>(
    name: string,
    retrySafe: boolean,
    signal: AbortSignal | undefined,
    attempt: () => Promise<T>,
  ): Promise<T> {
    for (let tries = 1; ; tries++) {
      try {
        return await attempt();
      } catch (raw) {
        const error = transportError(name, raw, { signal });
        const retryable = wasNeverSent(raw) || (retrySafe && isTransient(error));
        const wait = retryDelay(this.#retry, tries - 1, error.retryAfterMs);
        if (!retryable || tries >= this.#retry.attempts || wait > LONGEST_RETRY_WAIT_MS) throw error;
        try {
          await sleep(wait, undefined, { signal });
        } catch (reason) {
          throw transportError(name, reason, { signal });
        }
      }
    }
  }
}

/** Failures worth repeating a read for: the network, timeouts, 429 and 5xx (as HTTP status or envelope Code). */
function isTransient(error: ChatbotApiError): boolean {
  if (error.kind === "timeout" || error.kind === "connection") return true;
  if (error.kind !== "http" && error.kind !== "envelope") return false;
  const status = error.status !== undefined && error.status >= 400 ? error.status : (error.code ?? 0);
  return status === 429 || status >= 500;
}
