import { type AnswerEvent, type AskRequest, ChatbotApiError, type ChatbotClient } from "../client/index.js";
import { prepended } from "../client/stream/pass-through.js";

/** The answer's events, plus the session that produced them (a new one when the old was unknown upstream). */
export interface AnswerSource {
  sessionId: number;
  events: AsyncIterableIterator<AnswerEvent>;
}

const isUnknownSession = (error: unknown) =>
  error instanceof ChatbotApiError && (error.status === 404 || error.code === 404);

/**
 * Asks in the conversation's session; when the chatbot API answers that the session is unknown (it expired
 * or was deleted upstream) before any text came, opens a new session once and asks again, transparently (uploaded
 * files belong to the workspace, not the session, so their ids stay valid).
 */
export async function askWithRecovery(
  client: ChatbotClient,
  request: AskRequest,
  renewSession: () => Promise<number>,
  signal: AbortSignal,
): Promise<AnswerSource> {
  let sessionId = request.sessionId;
  for (let attempt = 0; ; attempt++) {
    // The answer job keeps the deltas' text itself: an error need not carry it (which would keep a copy of the body).
    const iterator = client
      .askStream({ ...request, sessionId }, { signal, partialText: false })
      [Symbol.asyncIterator]();
    try {
      const head = await iterator.next();
      return { sessionId, events: prepended(head, iterator) };
    } catch (error) {
      if (attempt > 0 || !isUnknownSession(error)) throw error;
      sessionId = await renewSession();
    }
  }
}
