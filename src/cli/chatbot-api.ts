import { loadEmbeddedApi } from "../app/embedded-api-loader.js";
import { createLogger } from "../common/log.js";
import { type Config, ConfigError } from "../config/config.js";

/** Where and as whom a command talks to the chatbot API, and how to let go of it. */
export interface ChatbotApiAccess {
  baseUrl: string;
  apiKey: string | undefined;
  sessionKey: string | undefined;
  serialNumber: string;
  close(): Promise<void>;
}

/**
 * The configured chatbot API; or, when CHATBOT_API_URL is unset, the embedded one served on a loopback port
 * for the duration of the command, so the command still speaks HTTP through the client like the bridge does.
 */
export async function reachChatbotApi(config: Config, serialOverride: string | undefined): Promise<ChatbotApiAccess> {
  const api = config.chatbotApi;
  if (api.url) {
    const problems: string[] = [];
    if (!api.apiKey) problems.push("CHATBOT_API_KEY is not set: set it to the workspace's secret key.");
    const serialNumber = serialOverride ?? api.serialNumber;
    if (!serialNumber)
      problems.push("CHATBOT_SERIAL_NUMBER is not set: set it (or pass --serial) to the chatbot's id.");
    if (problems.length > 0 || !serialNumber) throw new ConfigError(problems);
    return { baseUrl: api.url, apiKey: api.apiKey, sessionKey: api.sessionKey, serialNumber, close: async () => {} };
  }
  const { openEmbeddedApi, serveApi, shutdownApi } = await loadEmbeddedApi();
  const embedded = await openEmbeddedApi(config, createLogger(config.logLevel === "info" ? "warn" : config.logLevel));
  const { server, url } = await serveApi(embedded, { port: 0, host: "127.0.0.1" });
  return {
    baseUrl: url,
    apiKey: embedded.demo.workspace.secretKey,
    sessionKey: embedded.demo.workspace.sessionKey,
    serialNumber: serialOverride ?? embedded.demo.chatbot.serialNumber,
    close: () => shutdownApi(server, embedded, 1000),
  };
}
