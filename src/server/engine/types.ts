import type { ChatAskType } from "../../api/types.js";
import type { Chatbot, Listing, ListingCriteria, MessageRole } from "../domain.js";

/** A file attached to a question, already checked against the API's limits. */
export interface Attachment {
  kind: "image" | "audio" | "video";
  /** MIME type identified from the bytes. */
  mime: string;
  bytes: Uint8Array;
}

/** Everything an engine may use to answer one question. */
export interface EngineRequest {
  /** The chatbot with its settings (SystemMessage, Temperature, AIResponseLanguage, WelcomeMessage…). */
  chatbot: Chatbot;
  /** The model key chosen by the chatbot's `Model` setting (a key of {@link AnswerEngine.models}). */
  model: string;
  question: string;
  askType: ChatAskType;
  attachments: Attachment[];
  /** Earlier messages of the session, oldest first (the current question is not included). */
  history: { role: MessageRole; content: string }[];
  /** Searches the chatbot's listings. */
  searchListings(criteria: ListingCriteria): Promise<Listing[]>;
  /** Fires when the client went away: stop generating. */
  signal: AbortSignal;
}

/**
 * What an engine streams: text fragments, then exactly one `done`. Before them, `heard` may give the question as
 * the engine understood it when that is more than was typed (what a voice message said); it is stored in place
 * of the typed content, so that the session's later questions see it in their history.
 */
export type EngineEvent =
  | { type: "heard"; question: string }
  | { type: "text"; text: string }
  | { type: "done"; totalToken: number; noAnswer: boolean };

/** A model offered by ModelList. `key` is what Edit's `Model` takes. */
export interface EngineModel {
  key: string;
  name: string;
  /** False when the engine is not configured (e.g. no LLM_BASE_URL); such a model cannot be selected. */
  available: boolean;
}

/** Something that answers questions: the embedded listings assistant, or an OpenAI-compatible provider. */
export interface AnswerEngine {
  readonly models: EngineModel[];
  answer(request: EngineRequest): AsyncIterable<EngineEvent>;
}
