import { answeredByAnotherServer } from "../app/chatbot-diagnosis.js";
import type { ChatbotApiError } from "../client/index.js";

/**
 * One line for the operator: what failed and what to do about it. The API's own `Message` comes first,
 * then the likely fix for the failures an operator can act on.
 */
export function explainApiError(error: ChatbotApiError): string {
  const status = error.status !== undefined && error.status >= 400 ? error.status : error.code;
  const where = `${error.message}${status !== undefined && !error.message.includes(String(status)) ? ` (${status})` : ""}`;
  const hint = hintFor(error, status);
  return hint ? `${where} — ${hint}` : where;
}

function hintFor(error: ChatbotApiError, status: number | undefined): string | undefined {
  switch (error.kind) {
    case "config":
      return undefined;
    case "timeout":
      return "the chatbot API is slow or unreachable; check CHATBOT_API_URL, or raise CHATBOT_API_TIMEOUT_MS";
    case "connection":
      return "check that CHATBOT_API_URL is right and the server is up";
    case "aborted":
      return undefined;
    case "incomplete":
    case "malformed":
      return "the server at CHATBOT_API_URL does not answer like the chatbot API; check the URL";
  }
  if (status === 401 || status === 403) return "the secret key is wrong: check CHATBOT_API_KEY";
  // Before the 404s below: those are the API's own answers, this one is another server's (an HTML page, a 405).
  if (answeredByAnotherServer(error)) {
    return "the server at CHATBOT_API_URL does not answer like the chatbot API: check that CHATBOT_API_URL is the API's base address (e.g. https://usapi.hottask.com, without /chat)";
  }
  if (status === 404 && error.operation === "GetSession") {
    return "no such chatbot for this key: check CHATBOT_SERIAL_NUMBER";
  }
  if (status === 404 && error.operation === "ClientAsk") return "the session is unknown: ask without --session";
  if (status === 429) return "the chatbot's rate or monthly message limit is reached; try again later";
  return undefined;
}
