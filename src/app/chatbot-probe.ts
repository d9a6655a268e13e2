import { ChatbotApiError, ChatbotClient } from "../client/index.js";
import { diagnoseChatbotApiError } from "./chatbot-diagnosis.js";
import type { ChatbotTarget } from "./chatbot-links.js";

/** What a probe found: the chatbot answers, or what is wrong in people's words and the fix. */
export type ProbeOutcome = { ok: true } | { ok: false; problem: string; fix: string };

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Checks that a chatbot can be reached as configured, without creating anything (no session, no message):
 * 1. `ModelList` — the address answers like the chatbot API and accepts the secret key;
 * 2. `ChatContentHistory` of the chatbot for tomorrow (always empty, so cheap) — the serial number names a chatbot
 *    this key may read. Only the API's own 404 (no such chatbot) and 401/403 count here: a server without the
 *    operation, or with other rules for its dates, must not make a working chatbot look broken.
 * One try each, within `timeoutMs`: retrying is the caller's business.
 */
export async function probeChatbot(target: ChatbotTarget, timeoutMs: number): Promise<ProbeOutcome> {
  const client = new ChatbotClient({
    baseUrl: target.baseUrl,
    apiKey: target.apiKey,
    sessionKey: target.sessionKey,
    timeoutMs,
    connectTimeoutMs: timeoutMs,
    retry: { attempts: 1, baseDelayMs: 0, maxDelayMs: 0 },
  });
  const { names } = target;
  const failed = (error: ChatbotApiError): ProbeOutcome => ({
    ok: false,
    ...(diagnoseChatbotApiError(error, names) ?? {
      problem: `the chatbot API failed (${error.detail})`,
      fix: `check ${names.url} and the API's status`,
    }),
  });
  try {
    try {
      await client.listModels();
    } catch (error) {
      if (!(error instanceof ChatbotApiError)) throw error;
      return failed(error);
    }
    const tomorrow = new Date(Date.now() + DAY_MS).toISOString().slice(0, 10);
    try {
      await client.chatHistory({ SerialNumber: target.serialNumber, StartTime: tomorrow, EndTime: tomorrow });
    } catch (error) {
      if (!(error instanceof ChatbotApiError)) throw error;
      const status = error.status !== undefined && error.status >= 400 ? error.status : error.code;
      if (error.envelope && status === 404) {
        return {
          ok: false,
          problem: `no chatbot ${target.serialNumber} for this key (${error.detail})`,
          fix: `check ${names.serial}`,
        };
      }
      if (status === 401 || status === 403) {
        return {
          ok: false,
          problem: `the secret key may not use chatbot ${target.serialNumber} (${error.detail})`,
          fix: `check ${names.serial} and ${names.key}`,
        };
      }
      if (error.kind === "connection" || error.kind === "timeout") return failed(error);
    }
    return { ok: true };
  } finally {
    await client.close();
  }
}
