import { type Dispatcher, request as undiciRequest } from "undici";
import { EngineError } from "./engine-error.js";
import { LLM_MODEL_KEY } from "./model-keys.js";
import { ProviderEndpoint } from "./openai-endpoint.js";
import { buildPrompt, providerTemperature, type Transcripts } from "./openai-prompt.js";
import { readCompletionStream } from "./openai-stream.js";
import { Transcriber } from "./openai-transcription.js";
import { exchangeTokens } from "./token-count.js";
import type { AnswerEngine, Attachment, EngineEvent, EngineModel, EngineRequest } from "./types.js";

/** Where an OpenAI-compatible API lives (OpenAI, Ollama, vLLM, llama.cpp server) and which model answers. */
export interface OpenAiProviderOptions {
  /** Base URL up to the version, e.g. `https://api.openai.com/v1` or `http://127.0.0.1:11434/v1`. */
  baseUrl: string;
  /** Sent as a Bearer token; Ollama and llama.cpp need none. */
  apiKey?: string | undefined;
  model: string;
  /** A speech-to-text model of the same provider (LLM_TRANSCRIBE_MODEL); without it audio is only mentioned. */
  transcribeModel?: string | undefined;
  /** An undici dispatcher instead of the global one. */
  dispatcher?: Dispatcher | undefined;
  /** Longest wait for the response headers, and between two chunks of the stream (default 120 s). */
  timeoutMs?: number | undefined;
}

/**
 * Answers with an OpenAI-compatible chat-completions API, streamed. The prompt carries the chatbot's
 * SystemMessage, its AIResponseLanguage, the listings the question finds, the session and the question's
 * images; the stream's deltas become `text` events and the provider's usage the `totalToken`. With a
 * `transcribeModel`, voice messages are first transcribed by the provider and the model reads what was said
 * (announced as `heard`, so the session keeps it).
 *
 * When `request.signal` fires the HTTP request is cancelled (the provider stops generating) and the stream ends
 * without `done`. Failures are {@link EngineError}s: 504 for timeouts, 502 for everything else.
 */
export class OpenAiProvider implements AnswerEngine {
  readonly models: EngineModel[];
  readonly #options: OpenAiProviderOptions;
  readonly #endpoint: ProviderEndpoint;
  readonly #transcriber: Transcriber | undefined;

  constructor(options: OpenAiProviderOptions) {
    this.#options = options;
    const timeoutMs = options.timeoutMs ?? 120_000;
    this.#endpoint = new ProviderEndpoint(options.baseUrl, "/chat/completions", options.apiKey, timeoutMs);
    const { baseUrl, apiKey, transcribeModel, dispatcher } = options;
    this.#transcriber = transcribeModel
      ? new Transcriber({ baseUrl, apiKey, model: transcribeModel, dispatcher, timeoutMs })
      : undefined;
    this.models = [{ key: LLM_MODEL_KEY, name: options.model, available: true }];
  }

  async *answer(request: EngineRequest): AsyncGenerator<EngineEvent> {
    const { signal } = request;
    let transcripts: Transcripts;
    try {
      transcripts = await this.#transcribe(request);
    } catch (error) {
      if (signal.aborted) return;
      throw error;
    }
    const prompt = await buildPrompt(request, transcripts);
    if (signal.aborted) return;
    if (transcripts.size > 0) yield { type: "heard", question: prompt.question };
    let response: Dispatcher.ResponseData;
    try {
      response = await undiciRequest(this.#endpoint.url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "text/event-stream",
          ...this.#endpoint.authorization(),
        },
        body: JSON.stringify({
          model: this.#options.model,
          messages: prompt.messages,
          temperature: providerTemperature(request.chatbot.settings.Temperature),
          stream: true,
          stream_options: { include_usage: true },
        }),
        signal,
        dispatcher: this.#options.dispatcher,
        headersTimeout: this.#endpoint.timeoutMs,
        bodyTimeout: this.#endpoint.timeoutMs,
      });
    } catch (error) {
      if (signal.aborted) return;
      throw this.#endpoint.transportFailure(error);
    }
    try {
      if (response.statusCode < 200 || response.statusCode > 299) throw await this.#endpoint.httpFailure(response);
      let answer = "";
      let usage: number | undefined;
      for await (const part of readCompletionStream(response.body, this.#endpoint.label)) {
        if (signal.aborted) return;
        if (part.type === "usage") usage = part.totalTokens;
        else {
          answer += part.text;
          yield part;
        }
      }
      if (signal.aborted) return;
      const counted = () =>
        exchangeTokens({ system: prompt.system, history: request.history, question: prompt.question, answer });
      yield { type: "done", totalToken: usage ?? counted(), noAnswer: answer.trim() === "" };
    } catch (error) {
      if (signal.aborted) return;
      throw error instanceof EngineError ? error : this.#endpoint.transportFailure(error);
    } finally {
      // Ends the HTTP exchange also when the consumer stopped early, which tells the provider to stop generating.
      response.body.destroy();
    }
  }

  /** The question's recordings in words, one after the other; none without a transcribe model. */
  async #transcribe(request: EngineRequest): Promise<Transcripts> {
    const transcripts = new Map<Attachment, string>();
    if (!this.#transcriber) return transcripts;
    for (const attachment of request.attachments) {
      if (attachment.kind !== "audio") continue;
      transcripts.set(attachment, await this.#transcriber.transcribe(attachment.bytes, request.signal));
    }
    return transcripts;
  }
}
