/** The chatbot API client: see {@link ChatbotClient}. */

export type { PictureKind } from "../api/chatbot-pictures.js";
export { API_VERSION, type Envelope } from "../api/envelope.js";
export type { ListingChange } from "../api/listing-changes.js";
export type * from "../api/types.js";
export type { AnswerDelta, AnswerEvent, AnswerFinal } from "./answer-events.js";
export { type CallOptions, ChatbotClient, type ChatbotClientOptions, type StreamOptions } from "./chatbot-client.js";
export { ChatbotApiError, type ChatbotApiErrorKind } from "./errors.js";
export type * from "./types.js";
