import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { parseEnv } from "node:util";
import type { z } from "zod";
import { CHANNEL_PLUGINS } from "../../adapters/index.js";
import type { LogLevel } from "../common/log.js";
import type { ChannelPlugin, ConfiguredChannel } from "../plugin/channel-plugin.js";
import { loadBotsFile, type NamedBot } from "./bots-file.js";
import { ConfigError } from "./config-error.js";
import { VARIABLES, type Variable } from "./config-variables.js";

export { LOG_LEVELS, type LogLevel } from "../common/log.js";

/** Everything chatbridge reads from the environment, validated and typed. */
export interface Config {
  /** Port of the single HTTP server. */
  port: number;
  /**
   * The proxies in front of the bridge, whose X-Forwarded-For names the client (express's `trust proxy`): how many,
   * or their addresses and subnets; undefined = none, the connection's peer is the client.
   */
  trustProxy: number | string[] | undefined;
  /** How long answers under way may take to finish after SIGTERM before the rest is handed over. */
  shutdownGraceMs: number;
  /** Absolute path where embedded data (database, files, store) lives. */
  dataDir: string;
  logLevel: LogLevel;
  chatbotApi: {
    /** Base URL of the chatbot API without a trailing slash; undefined = the embedded server. */
    url: string | undefined;
    /** Secret key sent as `Authorization`; undefined = the embedded demo workspace's. */
    apiKey: string | undefined;
    /** Session key sent as `chatrobot-sessionkey`; undefined = the embedded demo workspace's. */
    sessionKey: string | undefined;
    /** The chatbot that answers; undefined = the embedded demo chatbot. */
    serialNumber: string | undefined;
    /** Longest wait for the API's response headers, and for the next bytes of a body. */
    timeoutMs: number;
    /** Path of the third upload step ("mark the upload as successful"), which the hosted docs do not show. */
    uploadConfirmPath: string;
  };
  /** PostgreSQL URL for the embedded server's data; undefined = a SQLite file in `dataDir`. */
  databaseUrl: string | undefined;
  /** The bridge between the channels and the chatbot. */
  bridge: BridgeConfig;
  /**
   * Every channel plugin with its bots (the bot `default` first, from the plugin's variables; then each bot of
   * BRIDGE_CONFIG with an entry for the channel, completed from the default's settings), in the plugins' order.
   */
  channels: ConfiguredChannel[];
  /** Outgoing e-mail (handoff mails, daily digests); undefined `smtpUrl` = no mail can be sent. */
  mail: {
    /** `smtp://user:pass@host:587` or `smtps://…:465`. */
    smtpUrl: string | undefined;
    /** The From address, e.g. `Homes bot <bot@example.com>`. */
    from: string | undefined;
  };
  /** Bearer token of the admin HTTP endpoints; undefined = they are off. */
  adminToken: string | undefined;
  /** The bots listed in the BRIDGE_CONFIG file, besides the bot `default` that the variables describe. */
  bots: NamedBot[];
  /** An OpenAI-compatible provider for the embedded server; undefined fields = not configured. */
  llm: {
    baseUrl: string | undefined;
    apiKey: string | undefined;
    model: string | undefined;
    /** A speech-to-text model of the provider (`/audio/transcriptions`); undefined = audio is not transcribed. */
    transcribeModel: string | undefined;
  };
}

/** How the bridge keeps conversations and answers. */
export interface BridgeConfig {
  /** `redis://…`, `memory://`, or undefined for a SQLite file in `dataDir`. */
  storeUrl: string | undefined;
  /** The prefix of every key in the store: processes with the same store and namespace share their state. */
  storeNamespace: string;
  /** Public base URL of this server (webhooks, upload links), without trailing slash. */
  publicUrl: string | undefined;
  /** In groups, one chatbot session per thread, or per user within the thread. */
  groupSessionScope: "thread" | "user";
  /** A conversation idle this long starts a new session; 0 = never. */
  sessionIdleMs: number;
  /** A word that, sent alone, starts a new session like `/reset` does. */
  resetKeyword: string | undefined;
  /** Messages arriving while an answer streams: answered one by one, or merged into one question. */
  queueMode: "queue" | "merge";
  /** Longest wait for the chatbot's answer to complete. */
  answerTimeoutMs: number;
  /** How this process takes conversations from the durable work queue. */
  work: WorkConfig;
  /** What the user reads when the chatbot fails. */
  apologyText: string;
  /** The greeting when the chatbot's WelcomeMessage cannot be read (the hosted platform has no such operation). */
  welcomeText: string;
  /** Listing cards shown after one answer at most, on every channel that shows them (LISTING_CARDS_MAX); 0 = none. */
  listingCardsMax: number;
  /** Photos, voice notes, audio and video from the users. */
  media: MediaConfig;
  /** Saved searches' alerts (see "Alerts" in docs/bridge.md). */
  alerts: AlertsConfig;
  /** Talking to a human (see "Talk to a human" in docs/bridge.md). */
  handoff: HandoffConfig;
}

/** When saved searches' alerts are looked for and sent. */
export interface AlertsConfig {
  /** How often the listings are read and compared (ALERTS_POLL_MINUTES); 0 = never, no alerts. */
  pollMs: number;
  /** Hours of the day without alerts, in the chatbot's time zone: from `from`:00 to `to`:00; undefined = none. */
  quietHours: { from: number; to: number } | undefined;
}

/** How a process takes its share of the durable work (see "Several instances" in docs/scaling.md). */
export interface WorkConfig {
  /** The most conversations this process answers at once. */
  concurrency: number;
  /** How long a conversation stays with a process that stopped renewing its lease (crashed, stalled). */
  leaseMs: number;
}

/** When and how a conversation is handed to a person. */
export interface HandoffConfig {
  /** Where handoff mails go when the chatbot's TalkToHumanEmail cannot be read. */
  email: string | undefined;
  /** What the user reads once the mail is accepted, when the chatbot's TalkToHumanResponseMessage cannot be read. */
  message: string;
  /** How long the bot stays quiet after a handoff unless someone resumes it. */
  timeoutMs: number;
  /** Phrases that, in a user's message, ask for a person (lower case). */
  keywords: string[];
  /** After this many answers in a row the chatbot had none for (noAnswer), a "Talk to a human" button is offered; 0 = never. */
  offerAfterNoAnswers: number;
}

/** How media from the users is handled (see "Media" in docs/bridge.md). */
export interface MediaConfig {
  /** Longest voice note or audio file converted and forwarded, in seconds. */
  maxAudioSeconds: number;
  /** How long to wait for more photos of an album (Telegram media group, WhatsApp images sent together). */
  groupWindowMs: number;
  /** The reply to a sticker, document or anything else that cannot be forwarded. */
  unsupportedText: string;
  /** The reply to a file over its size limit; `{limit}` becomes the limit, e.g. "20 MB". */
  tooLargeText: string;
  /** The reply to a recording over {@link maxAudioSeconds}; `{limit}` becomes the limit, e.g. "10 minutes". */
  tooLongText: string;
}

export { ConfigError } from "./config-error.js";

/** The names of every variable chatbridge reads (documented in .env.example and docs/configuration.md). */
export const CONFIG_VARIABLES: readonly string[] = Object.keys(allVariables(CHANNEL_PLUGINS));

/** chatbridge's own variables and those of each channel plugin; a name declared twice is a programming error. */
function allVariables(plugins: readonly ChannelPlugin[]): Record<string, Variable<unknown>> {
  const all: Record<string, Variable<unknown>> = { ...VARIABLES };
  for (const plugin of plugins) {
    for (const [name, variable] of Object.entries(plugin.variables)) {
      if (name in all) throw new Error(`the variable ${name} of the channel plugin "${plugin.name}" is declared twice`);
      all[name] = variable;
    }
  }
  return all;
}

type Values = { [K in keyof typeof VARIABLES]: z.output<(typeof VARIABLES)[K]["schema"]> };

/** Shows enough of a value to recognise it, never a secret. */
function shown(value: string, secret: boolean | undefined): string {
  if (secret) return `"${"*".repeat(Math.min(value.length, 4))}" (${value.length} characters, masked)`;
  return JSON.stringify(value.length > 80 ? `${value.slice(0, 77)}...` : value);
}

/**
 * Reads a `.env` file from the working directory when there is one; real environment variables win over it.
 * Empty values (`NAME=`) count as unset, as in most .env tooling.
 */
export function environment(env: NodeJS.ProcessEnv, envFile: string | undefined): Record<string, string> {
  const merged: Record<string, string> = {};
  if (envFile && existsSync(envFile)) Object.assign(merged, parseEnv(readFileSync(envFile, "utf8")));
  for (const [name, value] of Object.entries(env)) if (value !== undefined) merged[name] = value;
  for (const [name, value] of Object.entries(merged)) if (value.trim() === "") delete merged[name];
  return merged;
}

/**
 * Validates the environment into a {@link Config}: chatbridge's variables and those of each channel plugin
 * (`options.plugins`, by default every channel of adapters/index.ts). This is the only reader of `process.env`.
 * @throws ConfigError listing every invalid variable.
 */
export function loadConfig(
  env: NodeJS.ProcessEnv = process.env,
  options: { envFile?: string | undefined; cwd?: string; plugins?: readonly ChannelPlugin[] } = { envFile: ".env" },
): Config {
  const plugins = options.plugins ?? CHANNEL_PLUGINS;
  const source = environment(env, options.envFile);
  const values: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const [name, variable] of Object.entries(allVariables(plugins))) {
    const raw = source[name];
    const result = variable.schema.safeParse(raw);
    if (result.success) values[name] = result.data;
    else {
      const reason = result.error.issues[0]?.message ?? "invalid";
      problems.push(
        `${name}=${shown(raw ?? "", variable.secret)} is invalid (${reason}): set ${name} to ${variable.fix}.`,
      );
    }
  }
  if (source.SMTP_URL && !source.MAIL_FROM) {
    problems.push(
      "SMTP_URL is set but MAIL_FROM is not: set MAIL_FROM to the sender of chatbridge's mails, e.g. Homes bot <bot@example.com>.",
    );
  }
  if (problems.length > 0) throw new ConfigError(problems);
  const v = values as Values;
  const cwd = options.cwd ?? process.cwd();
  const bots = v.BRIDGE_CONFIG ? loadBotsFile(v.BRIDGE_CONFIG, source, cwd, plugins) : [];
  return {
    port: v.PORT,
    trustProxy: v.TRUST_PROXY,
    shutdownGraceMs: v.SHUTDOWN_GRACE_MS,
    dataDir: path.resolve(cwd, v.DATA_DIR),
    logLevel: v.LOG_LEVEL,
    chatbotApi: {
      url: v.CHATBOT_API_URL,
      apiKey: v.CHATBOT_API_KEY,
      sessionKey: v.CHATBOT_SESSION_KEY,
      serialNumber: v.CHATBOT_SERIAL_NUMBER,
      timeoutMs: v.CHATBOT_API_TIMEOUT_MS,
      uploadConfirmPath: v.CHATBOT_UPLOAD_CONFIRM_PATH,
    },
    databaseUrl: v.DATABASE_URL,
    bridge: {
      storeUrl: v.STORE_URL,
      storeNamespace: v.STORE_NAMESPACE,
      publicUrl: v.PUBLIC_URL,
      groupSessionScope: v.GROUP_SESSION_SCOPE,
      sessionIdleMs: v.SESSION_IDLE_MINUTES * 60_000,
      resetKeyword: v.RESET_KEYWORD,
      queueMode: v.QUEUE_MODE,
      answerTimeoutMs: v.ANSWER_TIMEOUT_MS,
      work: { concurrency: v.WORKER_CONCURRENCY, leaseMs: v.WORK_LEASE_MS },
      apologyText: v.APOLOGY_TEXT,
      welcomeText: v.WELCOME_TEXT,
      listingCardsMax: v.LISTING_CARDS_MAX,
      alerts: { pollMs: Math.round(v.ALERTS_POLL_MINUTES * 60_000), quietHours: v.ALERTS_QUIET_HOURS },
      media: {
        maxAudioSeconds: v.MEDIA_MAX_AUDIO_SECONDS,
        groupWindowMs: v.MEDIA_GROUP_WINDOW_MS,
        unsupportedText: v.MEDIA_UNSUPPORTED_TEXT,
        tooLargeText: v.MEDIA_TOO_LARGE_TEXT,
        tooLongText: v.MEDIA_TOO_LONG_TEXT,
      },
      handoff: {
        email: v.HANDOFF_EMAIL,
        message: v.HANDOFF_MESSAGE,
        timeoutMs: v.HANDOFF_TIMEOUT,
        keywords: v.HANDOFF_KEYWORDS,
        offerAfterNoAnswers: v.HANDOFF_OFFER_AFTER,
      },
    },
    channels: configuredChannels(plugins, values, bots),
    mail: { smtpUrl: v.SMTP_URL, from: v.MAIL_FROM },
    adminToken: v.ADMIN_TOKEN,
    bots,
    llm: {
      baseUrl: v.LLM_BASE_URL,
      apiKey: v.LLM_API_KEY,
      model: v.LLM_MODEL,
      transcribeModel: v.LLM_TRANSCRIBE_MODEL,
    },
  };
}

/** Each plugin's bots: `default` from the plugin's variables, then every bot of the file with an entry for it. */
function configuredChannels(
  plugins: readonly ChannelPlugin[],
  values: Readonly<Record<string, unknown>>,
  bots: readonly NamedBot[],
): ConfiguredChannel[] {
  return plugins.map((plugin) => {
    const own = Object.fromEntries(Object.keys(plugin.variables).map((name) => [name, values[name]]));
    const defaults = plugin.settingsFromVariables(own);
    const named = bots.flatMap((bot) =>
      plugin.name in bot.channels
        ? [{ botId: bot.id, settings: plugin.settingsForBot(bot.channels[plugin.name], defaults) }]
        : [],
    );
    return { plugin, bots: [{ botId: "default", settings: defaults }, ...named] };
  });
}
