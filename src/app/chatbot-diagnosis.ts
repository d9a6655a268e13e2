import type { ChatbotApiError } from "../client/index.js";
import { errorCode } from "../common/startup-error.js";

/** The settings that say where a chatbot is and with which keys it is reached, as an operator changes them. */
export interface ChatbotSettingNames {
  url: string;
  key: string;
  serial: string;
}

/** The environment variables of the bot `default` (and of `chatbridge ask`). */
export const CHATBOT_VARIABLES: ChatbotSettingNames = {
  url: "CHATBOT_API_URL",
  key: "CHATBOT_API_KEY",
  serial: "CHATBOT_SERIAL_NUMBER",
};

/** A failure in people's words (`problem`) and what to change (`fix`). */
export interface Diagnosis {
  problem: string;
  fix: string;
}

const CONNECTION_WORDS: Record<string, string> = {
  ECONNREFUSED: "connection refused",
  ENOTFOUND: "host not found",
  EAI_AGAIN: "host name lookup failed",
  ECONNRESET: "connection reset",
  EHOSTUNREACH: "host unreachable",
  ENETUNREACH: "network unreachable",
};

/**
 * True when an HTTP failure did not come from the chatbot API: a 4xx (but 401, 403 and 429) or a 501 without the
 * API's envelope, such as a web server's HTML 404 page, a 405 or a 501 for a POST it does not take — the mark of a
 * base URL that points elsewhere. Other 5xx without the envelope are not counted: a proxy in front of the right
 * API answers that way while the API is down.
 */
export function answeredByAnotherServer(error: ChatbotApiError): boolean {
  const status = error.status;
  return (
    error.kind === "http" &&
    !error.envelope &&
    status !== undefined &&
    ((status >= 400 && status < 500 && ![401, 403, 429].includes(status)) || status === 501)
  );
}

/** The fix for an address that does not lead to the chatbot API. */
const checkUrl = (names: ChatbotSettingNames) =>
  `check that ${names.url} is the API's base address (e.g. https://usapi.hottask.com, without /chat)`;

/** A response that is not the chatbot API's, in people's words. */
const notTheApi = (error: ChatbotApiError) =>
  error.detail.startsWith("HTTP ")
    ? `it answers ${error.detail}`
    : `its answer does not fit the chatbot API (${error.detail})`;

/**
 * Why a call to the chatbot API failed, and which setting to change, for the failures a setting explains: the
 * address (nothing answers there, or something that is not the chatbot API — an HTML page, a 404 or 405 without
 * the API's envelope) and the secret key (401, 403). Undefined for the rest (a 5xx, a rate limit, the API's own
 * 404), which the API's message and the operation explain best.
 */
export function diagnoseChatbotApiError(error: ChatbotApiError, names: ChatbotSettingNames): Diagnosis | undefined {
  const status = error.status !== undefined && error.status >= 400 ? error.status : error.code;
  switch (error.kind) {
    case "connection": {
      const code = errorCode(error.cause);
      const words = (code && CONNECTION_WORDS[code]) ?? "cannot connect";
      return { problem: words, fix: `check ${names.url} and that the chatbot API is up` };
    }
    case "timeout":
      return { problem: error.detail, fix: `check ${names.url} and that the chatbot API is up` };
    case "malformed":
    case "incomplete":
      return { problem: notTheApi(error), fix: checkUrl(names) };
  }
  if (error.kind !== "http" && error.kind !== "envelope") return undefined;
  if (status === 401 || status === 403) {
    return {
      problem: `the secret key was refused (${error.detail}${error.detail.includes(String(status)) ? "" : `, ${status}`})`,
      fix: `check ${names.key}`,
    };
  }
  if (answeredByAnotherServer(error)) return { problem: notTheApi(error), fix: checkUrl(names) };
  return undefined;
}
