import { type Dispatcher, FormData, request as undiciRequest } from "undici";
import type { EngineError } from "./engine-error.js";
import { ProviderEndpoint } from "./openai-endpoint.js";

/** A speech-to-text model of an OpenAI-compatible API (OpenAI's whisper-1, a local Whisper server). */
export interface TranscriberOptions {
  /** Base URL up to the version, as for completions. */
  baseUrl: string;
  apiKey?: string | undefined;
  /** The speech-to-text model, e.g. `whisper-1` (LLM_TRANSCRIBE_MODEL). */
  model: string;
  dispatcher?: Dispatcher | undefined;
  /** Longest wait for the response headers and body (default 120 s). */
  timeoutMs?: number | undefined;
}

/**
 * Turns a WAV recording into text with the provider's `POST /audio/transcriptions` (multipart: `file`, `model`,
 * `response_format=json`, answered with `{text}`). Failures are {@link EngineError}s like the completion's.
 */
export class Transcriber {
  readonly #endpoint: ProviderEndpoint;

  constructor(private readonly options: TranscriberOptions) {
    this.#endpoint = new ProviderEndpoint(
      options.baseUrl,
      "/audio/transcriptions",
      options.apiKey,
      options.timeoutMs ?? 120_000,
      "audio transcription",
    );
  }

  /** The text spoken in `wav`; throws when the provider fails or `signal` fires. */
  async transcribe(wav: Uint8Array, signal: AbortSignal): Promise<string> {
    const form = new FormData();
    form.append("file", new Blob([wav], { type: "audio/wav" }), "audio.wav");
    form.append("model", this.options.model);
    form.append("response_format", "json");
    let response: Dispatcher.ResponseData;
    try {
      response = await undiciRequest(this.#endpoint.url, {
        method: "POST",
        headers: { accept: "application/json", ...this.#endpoint.authorization() },
        body: form,
        signal,
        dispatcher: this.options.dispatcher,
        headersTimeout: this.#endpoint.timeoutMs,
        bodyTimeout: this.#endpoint.timeoutMs,
      });
    } catch (error) {
      throw this.#endpoint.transportFailure(error);
    }
    if (response.statusCode < 200 || response.statusCode > 299) throw await this.#endpoint.httpFailure(response);
    let payload: unknown;
    try {
      payload = await response.body.json();
    } catch (error) {
      if (error instanceof SyntaxError) throw this.#endpoint.failed("answered with a body that is not JSON");
      throw this.#endpoint.transportFailure(error);
    }
    const text = (payload as { text?: unknown } | null)?.text;
    if (typeof text !== "string") throw this.#endpoint.failed('answered without a "text" field');
    return text.trim();
  }
}
