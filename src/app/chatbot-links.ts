import type { ChatbotLink } from "../bridge/chatbot-link.js";
import { ChatbotClient } from "../client/index.js";
import type { Config } from "../config/config.js";
import { ConfigError } from "../config/config-error.js";
import type { EmbeddedApi } from "../server/embedded-api.js";
import { CHATBOT_VARIABLES, type ChatbotSettingNames } from "./chatbot-diagnosis.js";

/** Every bot's chatbot, and the clients behind them (shared by bots that use the same API and keys). */
export interface ChatbotLinks {
  links: ChatbotLink[];
  /** The distinct chatbots (API, keys and serial number) the bots talk to, in the order of the bots. */
  targets: ChatbotTarget[];
  close(): Promise<void>;
}

/** One chatbot the bridge talks to, with the settings an operator changes to fix how it is reached. */
export interface ChatbotTarget {
  baseUrl: string;
  /** True for the embedded API of this process. */
  embedded: boolean;
  apiKey: string;
  sessionKey: string | undefined;
  serialNumber: string;
  /** The bots that use it. */
  botIds: string[];
  /** CHATBOT_API_URL etc., or the fields of a bot of BRIDGE_CONFIG that set them. */
  names: ChatbotSettingNames;
}

/**
 * Resolves which chatbot each bot talks to. The bot `default` uses the CHATBOT_* variables; a bot of
 * BRIDGE_CONFIG uses its own `chatbot` fields, each falling back to the variable of the same meaning. A bot
 * without an API URL (its own or CHATBOT_API_URL) talks to the embedded server, with the embedded demo's keys and
 * chatbot unless it names its own.
 * @throws ConfigError when a bot on an external API lacks its key or serial number.
 */
export function resolveChatbots(config: Config, embedded: EmbeddedApi | undefined): ChatbotLinks {
  const api = config.chatbotApi;
  const bots = [
    { id: "default", chatbot: {}, welcomeText: undefined, where: "" },
    ...config.bots.map((bot) => ({ ...bot, where: ` for bot "${bot.id}" in BRIDGE_CONFIG` })),
  ];
  const clients = new Map<string, ChatbotClient>();
  const targets = new Map<string, ChatbotTarget>();
  const problems: string[] = [];
  const links: ChatbotLink[] = [];
  for (const bot of bots) {
    const chatbot: Partial<Config["bots"][number]["chatbot"]> = bot.chatbot;
    const url = chatbot.apiUrl ?? api.url;
    const demo = url ? undefined : embedded?.demo;
    const apiKey = chatbot.apiKey ?? api.apiKey ?? demo?.workspace.secretKey;
    const sessionKey = chatbot.sessionKey ?? api.sessionKey ?? demo?.workspace.sessionKey;
    const serialNumber = chatbot.serialNumber ?? api.serialNumber ?? demo?.chatbot.serialNumber;
    if (!apiKey)
      problems.push(
        `CHATBOT_API_KEY is not set${bot.where}: with an external chatbot API, set the workspace's secret key.`,
      );
    if (!serialNumber)
      problems.push(
        `CHATBOT_SERIAL_NUMBER is not set${bot.where}: with an external chatbot API, set the chatbot's id.`,
      );
    if (!apiKey || !serialNumber) continue;
    const baseUrl = url ?? `http://127.0.0.1:${config.port}`;
    const key = JSON.stringify([baseUrl, apiKey, sessionKey]);
    let client = clients.get(key);
    if (!client) {
      client = new ChatbotClient({
        baseUrl,
        apiKey,
        sessionKey,
        timeoutMs: api.timeoutMs,
        uploadConfirmPath: api.uploadConfirmPath,
      });
      clients.set(key, client);
    }
    links.push({ botId: bot.id, client, serialNumber, welcomeText: bot.welcomeText });
    const targetKey = JSON.stringify([key, serialNumber]);
    const target = targets.get(targetKey);
    if (target) target.botIds.push(bot.id);
    else {
      const field = (name: string, variable: string) =>
        name in chatbot && chatbot[name as keyof typeof chatbot] !== undefined
          ? `chatbot.${name} of bot "${bot.id}" in BRIDGE_CONFIG`
          : variable;
      targets.set(targetKey, {
        baseUrl,
        embedded: !url,
        apiKey,
        sessionKey,
        serialNumber,
        botIds: [bot.id],
        names: {
          url: field("apiUrl", CHATBOT_VARIABLES.url),
          key: field("apiKey", CHATBOT_VARIABLES.key),
          serial: field("serialNumber", CHATBOT_VARIABLES.serial),
        },
      });
    }
  }
  if (problems.length > 0 || links.length === 0) {
    for (const client of clients.values()) void client.close();
    throw new ConfigError(problems);
  }
  return {
    links,
    targets: [...targets.values()],
    close: async () => {
      await Promise.all([...clients.values()].map((client) => client.close()));
    },
  };
}
