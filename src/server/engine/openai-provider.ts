import { type Dispatcher, request as undiciRequest } from "undici";
import { EngineError } from "./engine-error.js";
import { LLM_MODEL_KEY } from "./model-keys.js";
import { buildPrompt, providerTemperature } from "./openai-prompt.js";
import { errorMessage, readCompletionStream } from "./openai-stream.js";
import { exchangeTokens } from "./token-count.js";
import type { AnswerEngine, EngineEvent, EngineModel, EngineRequest } from "./types.js";

/** Where an OpenAI-compatible API lives (OpenAI, Ollama, vLLM, llama.cpp server) and which model answers. */
export interface OpenAiProviderOptions {
  /** Base URL up to the version, e.g. `https://api.openai.com/v1` or `http://127.0.0.1:11434/v1`. */
  baseUrl: string;
  /** Sent as a Bearer token; Ollama and llama.cpp need none. */
  apiKey?: string | undefined;
  model: string;
  /** An undici dispatcher instead of the global one. */
  dispatcher?: Dispatcher | undefined;
  /** Longest wait for the response headers, and between two chunks of the stream (default 120 s). */
  timeoutMs?: number | undefined;
}

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
 * Answers with an OpenAI-compatible chat-completions API, streamed. The prompt carries the chatbot's
 * SystemMessage, its AIResponseLanguage, the listings the question finds, the session and the question's
 * images; the stream's deltas become `text` events and the provider's usage the `totalToken`.
 *
 * When `request.signal` fires the HTTP request is cancelled (the provider stops generating) and the stream ends
 * without `done`. Failures are {@link EngineError}s: 504 for timeouts, 502 for everything else.
 */
export class OpenAiProvider implements AnswerEngine {
  readonly models: EngineModel[];
  readonly #options: OpenAiProviderOptions;
  readonly #endpoint: URL;
  /** The base URL without credentials or query, for messages. */
  readonly #label: string;
  readonly #timeoutMs: number;

  constructor(options: OpenAiProviderOptions) {
    this.#options = options;
    const base = new URL(options.baseUrl);
    this.#label = `${base.origin}${base.pathname.replace(/\/$/, "")}`;
    this.#endpoint = new URL(`${this.#label}/chat/completions`);
    this.#timeoutMs = options.timeoutMs ?? 120_000;
    this.models = [{ key: LLM_MODEL_KEY, name: options.model, available: true }];
  }

  async *answer(request: EngineRequest): AsyncGenerator<EngineEvent> {
    const { signal } = request;
    const prompt = await buildPrompt(request);
    if (signal.aborted) return;
    let response: Dispatcher.ResponseData;
    try {
      response = await undiciRequest(this.#endpoint, {
        method: "POST",
        headers: this.#headers(),
        body: JSON.stringify({
          model: this.#options.model,
          messages: prompt.messages,
          temperature: providerTemperature(request.chatbot.settings.Temperature),
          stream: true,
          stream_options: { include_usage: true },
        }),
        signal,
        dispatcher: this.#options.dispatcher,
        headersTimeout: this.#timeoutMs,
        bodyTimeout: this.#timeoutMs,
      });
    } catch (error) {
      if (signal.aborted) return;
      throw this.#transportFailure(error);
    }
    try {
      if (response.statusCode < 200 || response.statusCode > 299) throw await this.#httpFailure(response);
      let answer = "";
      let usage: number | undefined;
      for await (const part of readCompletionStream(response.body, this.#label)) {
        if (signal.aborted) return;
        if (part.type === "usage") usage = part.totalTokens;
        else {
          answer += part.text;
          yield part;
        }
      }
      if (signal.aborted) return;
      const counted = () =>
        exchangeTokens({ system: prompt.system, history: request.history, question: request.question, answer });
      yield { type: "done", totalToken: usage ?? counted(), noAnswer: answer.trim() === "" };
    } catch (error) {
      if (signal.aborted) return;
      throw error instanceof EngineError ? error : this.#transportFailure(error);
    } finally {
      // Ends the HTTP exchange also when the consumer stopped early, which tells the provider to stop generating.
      response.body.destroy();
    }
  }

  #headers(): Record<string, string> {
    const headers: Record<string, string> = { "content-type": "application/json", accept: "text/event-stream" };
    if (this.#options.apiKey) headers.authorization = `Bearer ${this.#options.apiKey}`;
    return headers;
  }

  /** Providers sometimes echo the key in error messages; it must not reach logs or API clients. */
  #redact(text: string): string {
    const { apiKey } = this.#options;
    return apiKey ? text.replaceAll(apiKey, "***") : text;
  }

  async #httpFailure(response: Dispatcher.ResponseData): Promise<EngineError> {
    const text = await readCapped(response.body).catch(() => "");
    let detail: string | undefined;
    try {
      detail = errorMessage(JSON.parse(text));
    } catch {
      detail = text.trim().slice(0, 200) || undefined;
    }
    const status = response.statusCode === 504 || response.statusCode === 408 ? 504 : 502;
    const message = `LLM provider ${this.#label} answered HTTP ${response.statusCode}${detail ? `: ${detail}` : ""}`;
    return new EngineError(this.#redact(message), { status });
  }

  #transportFailure(error: unknown): EngineError {
    const code = (error as { code?: unknown }).code;
    if (typeof code === "string" && TIMEOUT_CODES.has(code)) {
      return new EngineError(`LLM provider ${this.#label} did not answer within ${this.#timeoutMs} ms`, {
        status: 504,
        cause: error,
      });
    }
    const reason = error instanceof Error ? error.message : String(error);
    return new EngineError(this.#redact(`LLM provider ${this.#label} could not be reached or broke off: ${reason}`), {
      status: 502,
      cause: error,
    });
  }
}
