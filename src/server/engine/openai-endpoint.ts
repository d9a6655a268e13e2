import type { Dispatcher } from "undici";
import { EngineError } from "./engine-error.js";
import { errorMessage } from "./openai-stream.js";

/** Most bytes of an error response read for its message. */
const ERROR_BODY_BYTES = 64 * 1024;
const TIMEOUT_CODES = new Set(["UND_ERR_HEADERS_TIMEOUT", "UND_ERR_BODY_TIMEOUT", "UND_ERR_CONNECT_TIMEOUT"]);

async function readCapped(body: AsyncIterable<Uint8Array>): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    chunks.push(Buffer.from(chunk));
    size += chunk.length;
    if (size >= ERROR_BODY_BYTES) break;
  }
  return Buffer.concat(chunks).toString("utf8").slice(0, ERROR_BODY_BYTES);
}

/**
 * One operation of an OpenAI-compatible API (chat completions, audio transcriptions): its URL, the Bearer
 * header, and its failures as {@link EngineError}s (504 for timeouts, 502 for everything else) whose messages
 * name the base URL without credentials and never the API key.
 */
export class ProviderEndpoint {
  readonly url: URL;
  /** The base URL without credentials or query, for messages. */
  readonly label: string;
  /** Who failed, in messages: "LLM provider <label>" and what was asked of it, if anything. */
  readonly #name: string;

  /** `path` is appended to `baseUrl` (e.g. `/chat/completions`); `task` describes it in messages when given. */
  constructor(
    baseUrl: string,
    path: string,
    private readonly apiKey: string | undefined,
    readonly timeoutMs: number,
    task?: string,
  ) {
    const base = new URL(baseUrl);
    this.label = `${base.origin}${base.pathname.replace(/\/$/, "")}`;
    this.url = new URL(`${this.label}${path}`);
    this.#name = `LLM provider ${this.label}${task ? ` (${task})` : ""}`;
  }

  /** The Authorization header when there is a key (Ollama and llama.cpp need none). */
  authorization(): Record<string, string> {
    return this.apiKey ? { authorization: `Bearer ${this.apiKey}` } : {};
  }

  /** Providers sometimes echo the key in error messages; it must not reach logs or API clients. */
  redact(text: string): string {
    return this.apiKey ? text.replaceAll(this.apiKey, "***") : text;
  }

  /** A failure the provider explained itself: 502 or 504, with its error message. */
  failed(detail: string, status: 502 | 504 = 502): EngineError {
    return new EngineError(this.redact(`${this.#name} ${detail}`), { status });
  }

  /** A response outside 2xx, with the error message of its body (OpenAI's, Ollama's or plain text). */
  async httpFailure(response: Dispatcher.ResponseData): Promise<EngineError> {
    const text = await readCapped(response.body).catch(() => "");
    let detail: string | undefined;
    try {
      detail = errorMessage(JSON.parse(text));
    } catch {
      detail = text.trim().slice(0, 200) || undefined;
    }
    const status = response.statusCode === 504 || response.statusCode === 408 ? 504 : 502;
    return this.failed(`answered HTTP ${response.statusCode}${detail ? `: ${detail}` : ""}`, status);
  }

  /** The request could not be sent, timed out or broke off. */
  transportFailure(error: unknown): EngineError {
    const code = (error as { code?: unknown }).code;
    if (typeof code === "string" && TIMEOUT_CODES.has(code)) {
      return new EngineError(`${this.#name} did not answer within ${this.timeoutMs} ms`, { status: 504, cause: error });
    }
    const reason = error instanceof Error ? error.message : String(error);
    return new EngineError(this.redact(`${this.#name} could not be reached or broke off: ${reason}`), {
      status: 502,
      cause: error,
    });
  }
}
