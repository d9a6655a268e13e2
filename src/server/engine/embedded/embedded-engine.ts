import { alertRequestIn } from "../../../real-estate/alert-request.js";
import { EMBEDDED_MODEL_KEY } from "../model-keys.js";
import { exchangeTokens } from "../token-count.js";
import type { AnswerEngine, EngineEvent, EngineModel, EngineRequest } from "../types.js";
import { streamFragments } from "./fragments.js";
import { phrasebookFor } from "./language.js";
import { consultListings } from "./listing-search.js";
import { receivedMedia } from "./received-media.js";
import { composeReply, type Reply } from "./reply.js";

/** The embedded engine's name in ModelList. */
const EMBEDDED_MODEL_NAME = "chatbridge-listings";

/**
 * The offline real-estate assistant: understands questions about the chatbot's listings (in English and
 * Spanish, with the session's earlier questions as context), answers from the listings in the chatbot's
 * AIResponseLanguage, and needs no model weights, so the same question always gets the same answer.
 * Photos, voice messages and videos are acknowledged but not looked at: the answer says what arrived and
 * answers the written message that came with them, or asks for one. A request for alerts is answered with how to
 * set one up through the bridge (this engine sends nothing unasked), then with what there is now.
 *
 * When `request.signal` fires the stream ends without `done`.
 */
export class EmbeddedEngine implements AnswerEngine {
  readonly models: EngineModel[] = [{ key: EMBEDDED_MODEL_KEY, name: EMBEDDED_MODEL_NAME, available: true }];

  async *answer(request: EngineRequest): AsyncGenerator<EngineEvent> {
    const reply = await this.#reply(request);
    if (request.signal.aborted) return;
    yield* streamFragments(reply.text, request.signal);
    if (request.signal.aborted) return;
    const totalToken = exchangeTokens({
      system: request.chatbot.settings.SystemMessage,
      history: request.history,
      question: request.question,
      answer: reply.text,
    });
    yield { type: "done", totalToken, noAnswer: reply.noAnswer };
  }

  async #reply(request: EngineRequest): Promise<Reply> {
    const book = phrasebookFor(request.chatbot.settings.AIResponseLanguage);
    const media = receivedMedia(request.attachments);
    const captioned = request.question.trim() !== "";
    // Without words there is nothing to search for: say what arrived and ask for them.
    if (media && !captioned) return { text: book.mediaReceived(media, false), noAnswer: true };
    const { catalog, findings } = await consultListings(request);
    const reply = composeReply(findings, catalog, request.chatbot, book);
    // Asked directly (no bridge in front, which saves such a request itself), it says how, not that it will.
    const opening = [
      media ? book.mediaReceived(media, true) : undefined,
      alertRequestIn(request.question) ? book.alertsHowTo() : undefined,
    ].filter((text) => text !== undefined);
    return opening.length > 0 ? { ...reply, text: [...opening, reply.text].join("\n\n") } : reply;
  }
}
