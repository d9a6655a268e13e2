import { consultListings } from "./embedded/listing-search.js";
import { listingContext } from "./listing-context.js";
import { mediaSeconds } from "./media-duration.js";
import type { Attachment, EngineRequest } from "./types.js";

/** A part of a multimodal user message. */
export type ContentPart = { type: "text"; text: string } | { type: "image_url"; image_url: { url: string } };

/** A chat-completions message. */
export type ChatMessage =
  | { role: "system" | "assistant"; content: string }
  | { role: "user"; content: string | ContentPart[] };

/**
 * The messages of one completion, the system prompt alone (for counting tokens when the provider does not), and
 * the user's turn as text: the written message with what was heard in its recordings.
 */
export interface Prompt {
  system: string;
  messages: ChatMessage[];
  question: string;
}

/** What the provider's speech-to-text heard in each transcribed recording of the question. */
export type Transcripts = ReadonlyMap<Attachment, string>;

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
 * A recording or video in words. Chat completions have no portable way to pass audio or video, so what was not
 * transcribed is described, with what the model should do about it: it cannot listen or watch, and should say
 * so rather than answer as if it had.
 */
function mediaLine(attachment: Attachment, transcripts: Transcripts): string {
  const seconds = mediaSeconds(attachment);
  const length = seconds === undefined ? "" : ` (${seconds} s)`;
  if (attachment.kind === "video") {
    return `[Attached: a video${length}. You cannot watch videos: tell the user so and ask them to describe in text what they are looking for.]`;
  }
  const transcript = transcripts.get(attachment);
  if (transcript === undefined) {
    return `[Attached: a voice message${length}. You cannot listen to recordings: tell the user so and ask them to type their message.]`;
  }
  return transcript === ""
    ? `[Attached: a voice message${length} in which no speech was recognised.]`
    : `[Voice message] ${transcript}`;
}

/** The user's turn as text: the written message, then a line for each recording and video. */
function turnText(request: EngineRequest, transcripts: Transcripts): string {
  const media = request.attachments.filter((attachment) => attachment.kind !== "image");
  return [request.question.trim(), ...media.map((attachment) => mediaLine(attachment, transcripts))]
    .filter((line) => line !== "")
    .join("\n");
}

/** The user's turn: its text, and every image as an image part. */
function userMessage(text: string, attachments: Attachment[]): ChatMessage {
  const images = attachments.filter((attachment) => attachment.kind === "image").map(imagePart);
  if (images.length === 0) return { role: "user", content: text };
  return { role: "user", content: [...(text === "" ? [] : [{ type: "text" as const, text }]), ...images] };
}

/**
 * Builds the conversation for the model: a system prompt (the chatbot's SystemMessage, the answer language, and
 * the listings the question finds, searched with the embedded engine's understanding of the question and the
 * session), the session history, and the question with its images and what `transcripts` heard in its
 * recordings (which the listing search reads too).
 */
export async function buildPrompt(request: EngineRequest, transcripts: Transcripts = new Map()): Promise<Prompt> {
  const { settings } = request.chatbot;
  const spoken = [request.question, ...transcripts.values()].filter((text) => text.trim() !== "").join("\n");
  const { catalog, findings } = await consultListings({ ...request, question: spoken });
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
  const question = turnText(request, transcripts);
  return {
    system,
    question,
    messages: [{ role: "system", content: system }, ...history, userMessage(question, request.attachments)],
  };
}

/** Settings.Temperature is an integer 0–10 in this API; OpenAI-compatible APIs take 0–2. */
export function providerTemperature(temperature: number): number {
  return Math.min(10, Math.max(0, temperature)) / 5;
}
