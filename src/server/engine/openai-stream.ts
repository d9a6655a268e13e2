import { createParser, type EventSourceMessage } from "eventsource-parser";
import { EngineError } from "./engine-error.js";

/** What a completion stream carries: answer text, and the provider's token count. */
export type CompletionPart = { type: "text"; text: string } | { type: "usage"; totalTokens: number };

interface CompletionChunk {
  choices?: { delta?: { content?: unknown }; finish_reason?: unknown }[];
  usage?: { total_tokens?: unknown } | null;
  error?: unknown;
}

/** The message of an error payload: OpenAI's `{error: {message}}`, Ollama's `{error: "..."}`, or `{message}`. */
export function errorMessage(payload: unknown): string | undefined {
  if (typeof payload !== "object" || payload === null) return undefined;
  const { error, message, detail } = payload as { error?: unknown; message?: unknown; detail?: unknown };
  if (typeof error === "string") return error;
  if (typeof error === "object" && error !== null) return errorMessage(error);
  if (typeof message === "string") return message;
  return typeof detail === "string" ? detail : undefined;
}

function parseChunk(data: string, provider: string): CompletionChunk {
  try {
    return JSON.parse(data) as CompletionChunk;
  } catch (cause) {
    throw new EngineError(`LLM provider ${provider} sent a stream event that is not JSON`, { status: 502, cause });
  }
}

/**
 * Reads an OpenAI chat-completions event stream (`data: {chunk}` events, then `data: [DONE]`): yields each
 * `choices[0].delta.content` and the `usage` chunk's `total_tokens`. An error event, or a stream that ends
 * before `[DONE]` or a `finish_reason`, is an {@link EngineError} naming `provider`.
 */
export async function* readCompletionStream(
  body: AsyncIterable<Uint8Array>,
  provider: string,
): AsyncGenerator<CompletionPart> {
  const events: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (event) => events.push(event) });
  const decoder = new TextDecoder();
  let finished = false;
  for await (const bytes of body) {
    parser.feed(decoder.decode(bytes, { stream: true }));
    for (const event of events.splice(0)) {
      if (event.data === "[DONE]") return;
      const chunk = parseChunk(event.data, provider);
      if (chunk.error !== undefined) {
        const detail = errorMessage(chunk) ?? "unknown error";
        throw new EngineError(`LLM provider ${provider} failed mid-answer: ${detail}`, { status: 502 });
      }
      const choice = chunk.choices?.[0];
      if (typeof choice?.delta?.content === "string" && choice.delta.content !== "") {
        yield { type: "text", text: choice.delta.content };
      }
      if (typeof choice?.finish_reason === "string") finished = true;
      const total = chunk.usage?.total_tokens;
      if (typeof total === "number") yield { type: "usage", totalTokens: total };
    }
  }
  if (!finished) {
    throw new EngineError(`LLM provider ${provider} ended the stream before the answer was complete`, { status: 502 });
  }
}
