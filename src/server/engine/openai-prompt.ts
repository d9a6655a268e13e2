import { consultListings } from "./embedded/listing-search.js";
import { listingContext } from "./listing-context.js";
import type { Attachment, EngineRequest } from "./types.js";

/** A part of a multimodal user message. */
export type ContentPart = { type: "text"; text: string } | { type: "image_url"; image_url: { url: string } };

/** A chat-completions message. */
export type ChatMessage =
  | { role: "system" | "assistant"; content: string }
  | { role: "user"; content: string | ContentPart[] };

/** The messages of one completion, and the system prompt alone (for counting tokens when the provider does not). */
export interface Prompt {
  system: string;
  messages: ChatMessage[];
}

const DEFAULT_SYSTEM_MESSAGE =
  "You are the assistant of a real-estate agency. Help visitors find homes among the agency's listings, " +
  "answer briefly and give each recommended listing's price, rooms, address and URL.";
const GROUNDING =
  "Recommend only listings given here. When none fits, say so and suggest what is available (other cities, a wider price range).";

/** An image as a data URL, which vision models accept without the server hosting the file. */
function imagePart(attachment: Attachment): ContentPart {
  const base64 = Buffer.from(attachment.bytes).toString("base64");
  return { type: "image_url", image_url: { url: `data:${attachment.mime};base64,${base64}` } };
}

/**
 * The user's turn. Images go along as image parts; chat completions have no portable way to pass audio or
 * video, so those are only mentioned, which lets the model answer instead of seeing an empty message.
 */
function userMessage(question: string, attachments: Attachment[]): ChatMessage {
  const images = attachments.filter((attachment) => attachment.kind === "image").map(imagePart);
  const others = attachments.filter((attachment) => attachment.kind !== "image").map((attachment) => attachment.kind);
  const text = [question.trim(), ...others.map((kind) => `[The user attached ${kind}, which cannot be shown here.]`)]
    .filter((part) => part !== "")
    .join("\n");
  if (images.length === 0) return { role: "user", content: text };
  return { role: "user", content: [...(text === "" ? [] : [{ type: "text" as const, text }]), ...images] };
}

/**
 * Builds the conversation for the model: a system prompt (the chatbot's SystemMessage, the answer language, and
 * the listings the question finds, searched with the embedded engine's understanding of the question and the
 * session), the session history, and the question with its images.
 */
export async function buildPrompt(request: EngineRequest): Promise<Prompt> {
  const { settings } = request.chatbot;
  const { catalog, findings } = await consultListings(request);
  const system = [
    settings.SystemMessage.trim() || DEFAULT_SYSTEM_MESSAGE,
    `Answer in ${settings.AIResponseLanguage.trim() || "English"}.`,
    listingContext(catalog, findings),
    GROUNDING,
  ].join("\n\n");
  const history: ChatMessage[] = request.history.map((message) => ({
    role: message.role === "User" ? "user" : "assistant",
    content: message.content,
  }));
  return {
    system,
    messages: [{ role: "system", content: system }, ...history, userMessage(request.question, request.attachments)],
  };
}

/** Settings.Temperature is an integer 0–10 in this API; OpenAI-compatible APIs take 0–2. */
export function providerTemperature(temperature: number): number {
  return Math.min(10, Math.max(0, temperature)) / 5;
}
