import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { parseEnv } from "node:util";
import { z } from "zod";
import { loadBotsFile, type NamedBot, slackBotToken, telegramBotToken, telegramWebhookSecret } from "./bots-file.js";
import { ConfigError } from "./config-error.js";

/** pino levels accepted by `LOG_LEVEL`. */
export const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Everything chatbridge reads from the environment, validated and typed. */
export interface Config {
  /** Port of the single HTTP server. */
  port: number;
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
  /** The Telegram channel; enabled when `botToken` is set. */
  telegram: {
    botToken: string | undefined;
    webhookSecret: string | undefined;
    apiRoot: string;
    mode: "webhook" | "polling";
  };
  /** The Slack channel; enabled when `botToken` and `signingSecret` are set. */
  slack: {
    botToken: string | undefined;
    signingSecret: string | undefined;
    /** The app-level token: Socket Mode instead of HTTP. */
    appToken: string | undefined;
    apiUrl: string;
  };
  /** The WhatsApp Cloud API channel; enabled when the access token, phone number id, app secret and verify token are set. */
  whatsapp: {
    accessToken: string | undefined;
    phoneNumberId: string | undefined;
    appSecret: string | undefined;
    verifyToken: string | undefined;
    apiUrl: string;
    apiVersion: string;
    /** Block streaming (paragraphs as they finish) or whole answers. */
    streaming: "blocks" | "whole";
    blockMinChars: number;
  };
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
  /** What the user reads when the chatbot fails. */
  apologyText: string;
  /** The greeting when the chatbot's WelcomeMessage cannot be read (the hosted platform has no such operation). */
  welcomeText: string;
  /** Photos, voice notes, audio and video from the users. */
  media: MediaConfig;
  /** Talking to a human (see the README's "Talk to a human" section). */
  handoff: HandoffConfig;
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

/** How media from the users is handled (see the README's "Media" section). */
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

interface Variable<T> {
  schema: z.ZodType<T>;
  /** What a valid value looks like, completing "set NAME to …". */
  fix: string;
  secret?: boolean;
}

const optionalText = (fix: string, secret = false): Variable<string | undefined> => ({
  schema: z.string().trim().min(1).optional(),
  fix,
  secret,
});

const httpUrl = z
  .url({ protocol: /^https?$/ })
  .transform((url) => url.replace(/\/+$/, ""))
  .optional();

const apiPath = z
  .string()
  .regex(/^\/[\w\-./]*$/, "must be a path starting with /")
  .default("/chat/User/UploadSuccess");

/** Phrases that ask for a person, in the languages the embedded engine speaks and a few more. */
const DEFAULT_HANDOFF_KEYWORDS = [
  "talk to a human",
  "talk to a person",
  "speak to a human",
  "speak to a person",
  "real person",
  "human agent",
  "agent",
  "hablar con una persona",
  "hablar con un humano",
  "hablar con un agente",
  "parler à un humain",
  "parler à une personne",
  "falar com uma pessoa",
  "mit einem menschen sprechen",
];

/** "24h", "90m", "30s", "2d", or a bare number of minutes, in milliseconds. */
function durationMs(text: string): number {
  const [, amount, unit] = /^(\d+)\s*([smhd])?$/i.exec(text) ?? [];
  const seconds = { s: 1, m: 60, h: 3600, d: 86_400 }[(unit ?? "m").toLowerCase() as "s" | "m" | "h" | "d"];
  return Number(amount) * seconds * 1000;
}

/** The contract: every variable chatbridge reads. Later features add theirs here. */
const VARIABLES = {
  PORT: {
    schema: z.coerce.number().int().min(1).max(65535).default(3000),
    fix: "a whole number from 1 to 65535 (default 3000)",
  },
  DATA_DIR: { schema: z.string().trim().min(1).default("./data"), fix: "a directory path (default ./data)" },
  LOG_LEVEL: { schema: z.enum(LOG_LEVELS).default("info"), fix: `one of ${LOG_LEVELS.join(", ")} (default info)` },
  CHATBOT_API_URL: {
    schema: httpUrl,
    fix: "an http(s) URL such as https://api.example.com, or leave it unset for the embedded server",
  },
  CHATBOT_API_KEY: optionalText("the workspace's secret key, or leave it unset for the embedded demo", true),
  CHATBOT_SESSION_KEY: optionalText("the workspace's session key, or leave it unset for the embedded demo", true),
  CHATBOT_SERIAL_NUMBER: optionalText("the chatbot's serial number, or leave it unset for the embedded demo"),
  CHATBOT_API_TIMEOUT_MS: {
    schema: z.coerce.number().int().min(100).max(3_600_000).default(120_000),
    fix: "a number of milliseconds from 100 to 3600000 (default 120000)",
  },
  CHATBOT_UPLOAD_CONFIRM_PATH: { schema: apiPath, fix: "an API path such as /chat/User/UploadSuccess" },
  DATABASE_URL: {
    schema: z
      .string()
      .regex(/^postgres(ql)?:\/\/\S+$/, "must be a postgres:// URL")
      .optional(),
    fix: "a PostgreSQL URL such as postgres://user@127.0.0.1:5432/chatbridge, or leave it unset for SQLite in DATA_DIR",
    secret: true,
  },
  STORE_URL: {
    schema: z
      .string()
      .regex(/^(rediss?:\/\/\S+|memory:\/\/|sqlite:\/\/\S+)$/, "must be redis://…, rediss://…, memory:// or sqlite://…")
      .optional(),
    fix: "redis://host:6379, memory:// (tests), sqlite:///path/bridge.db, or leave it unset for a SQLite file in DATA_DIR",
    secret: true,
  },
  PUBLIC_URL: { schema: httpUrl, fix: "the https:// address at which the platforms reach this server" },
  GROUP_SESSION_SCOPE: {
    schema: z.enum(["thread", "user"]).default("thread"),
    fix: "thread (one session per group thread, the default) or user (one per user in each thread)",
  },
  SESSION_IDLE_MINUTES: {
    schema: z.coerce.number().int().min(0).max(525_600).default(1440),
    fix: "a number of minutes after which an idle conversation starts afresh, 0 for never (default 1440)",
  },
  RESET_KEYWORD: optionalText("a word that starts a new conversation like /reset, e.g. restart"),
  QUEUE_MODE: {
    schema: z.enum(["queue", "merge"]).default("queue"),
    fix: "queue (answer waiting messages one by one, the default) or merge (ask them as one question)",
  },
  ANSWER_TIMEOUT_MS: {
    schema: z.coerce.number().int().min(1000).max(3_600_000).default(60_000),
    fix: "a number of milliseconds from 1000 to 3600000 (default 60000)",
  },
  APOLOGY_TEXT: {
    schema: z
      .string()
      .trim()
      .min(1)
      .max(1000)
      .default("Sorry, I couldn't finish that answer. Please try again in a moment."),
    fix: "the short text users read when the chatbot fails",
  },
  WELCOME_TEXT: {
    schema: z.string().trim().min(1).max(2000).default("Hi! How can I help you today?"),
    fix: "the greeting used when the chatbot's WelcomeMessage cannot be read",
  },
  MEDIA_MAX_AUDIO_SECONDS: {
    schema: z.coerce.number().int().min(1).max(1200).default(600),
    fix: "the longest voice note or audio forwarded, in seconds from 1 to 1200 (default 600; 1200 s of 16 kHz WAV is just under the 40 MB audio limit)",
  },
  MEDIA_GROUP_WINDOW_MS: {
    schema: z.coerce.number().int().min(0).max(10_000).default(1500),
    fix: "milliseconds to wait for more photos sent together, from 0 to 10000 (default 1500)",
  },
  MEDIA_UNSUPPORTED_TEXT: {
    schema: z
      .string()
      .trim()
      .min(1)
      .max(1000)
      .default(
        "Sorry, I can't read that kind of message. I understand text, photos (JPEG, PNG, WEBP, still GIF), " +
          "voice notes and audio (OGG, MP3, FLAC, WAV) and videos (MP4, MKV, AVI, FLV, MPEG).",
      ),
    fix: "the short text users read when they send a sticker, a document or another kind of file that cannot be read",
  },
  MEDIA_TOO_LARGE_TEXT: {
    schema: z
      .string()
      .trim()
      .min(1)
      .max(1000)
      .default("Sorry, that file is too large for me: I can take files of up to {limit}."),
    fix: "the short text users read when a file is too large ({limit} becomes the limit, e.g. 20 MB)",
  },
  MEDIA_TOO_LONG_TEXT: {
    schema: z
      .string()
      .trim()
      .min(1)
      .max(1000)
      .default("Sorry, that recording is too long for me: I can listen to up to {limit}."),
    fix: "the short text users read when a recording is too long ({limit} becomes the limit, e.g. 10 minutes)",
  },
  TELEGRAM_BOT_TOKEN: {
    schema: telegramBotToken.optional(),
    fix: "the bot token from @BotFather, or leave it unset to disable Telegram",
    secret: true,
  },
  TELEGRAM_WEBHOOK_SECRET: {
    schema: telegramWebhookSecret.optional(),
    fix: "1-256 characters of A-Z, a-z, 0-9, _ and - (Telegram's secret_token rules)",
    secret: true,
  },
  TELEGRAM_API_ROOT: {
    schema: z
      .url({ protocol: /^https?$/ })
      .transform((url) => url.replace(/\/+$/, ""))
      .default("https://api.telegram.org"),
    fix: "the Bot API root, https://api.telegram.org by default (a local Bot API server or an emulator otherwise)",
  },
  TELEGRAM_MODE: {
    schema: z.enum(["webhook", "polling"]).default("webhook"),
    fix: "webhook (the default; needs PUBLIC_URL) or polling (for local use without a public URL)",
  },
  SLACK_BOT_TOKEN: {
    schema: slackBotToken.optional(),
    fix: "the app's Bot User OAuth Token (xoxb-…), or leave it unset to disable Slack",
    secret: true,
  },
  SLACK_SIGNING_SECRET: optionalText("the app's Signing Secret (Basic Information page)", true),
  SLACK_APP_TOKEN: {
    schema: z
      .string()
      .trim()
      .regex(/^xapp-[\w-]+$/, "must be an app-level token, xapp-…")
      .optional(),
    fix: "an app-level token (xapp-…, scope connections:write) to use Socket Mode, or leave it unset for HTTP",
    secret: true,
  },
  SLACK_API_URL: {
    schema: z
      .url({ protocol: /^https?$/ })
      .transform((url) => (url.endsWith("/") ? url : `${url}/`))
      .default("https://slack.com/api/"),
    fix: "the Web API root, https://slack.com/api/ by default (an emulator in tests)",
  },
  WHATSAPP_ACCESS_TOKEN: optionalText("a system user's permanent access token with whatsapp_business_messaging", true),
  WHATSAPP_PHONE_NUMBER_ID: {
    schema: z.string().trim().regex(/^\d+$/, "must be the numeric phone number id (not the phone number)").optional(),
    fix: "the phone number id from WhatsApp Manager → API Setup",
  },
  WHATSAPP_APP_SECRET: optionalText("the Meta app's App Secret (App settings → Basic), which signs the webhooks", true),
  WHATSAPP_VERIFY_TOKEN: optionalText(
    "any string you also enter as the webhook's Verify token in the app dashboard",
    true,
  ),
  WHATSAPP_API_URL: {
    schema: z
      .url({ protocol: /^https?$/ })
      .transform((url) => url.replace(/\/+$/, ""))
      .default("https://graph.facebook.com"),
    fix: "the Graph API root, https://graph.facebook.com by default (an emulator in tests)",
  },
  WHATSAPP_API_VERSION: {
    schema: z
      .string()
      .regex(/^v\d+\.\d+$/, "must look like v26.0")
      .default("v26.0"),
    fix: "a Graph API version such as v26.0 (the default)",
  },
  WHATSAPP_STREAMING: {
    schema: z.enum(["blocks", "whole"]).default("blocks"),
    fix: "blocks (each finished paragraph as its own message while the answer streams, the default) or whole (one message at the end)",
  },
  WHATSAPP_BLOCK_MIN_CHARS: {
    schema: z.coerce.number().int().min(1).max(4096).default(300),
    fix: "the fewest characters a streamed block message holds, from 1 to 4096 (default 300)",
  },
  SMTP_URL: {
    schema: z
      .string()
      .trim()
      .regex(/^smtps?:\/\/\S+$/, "must be an smtp:// or smtps:// URL")
      .optional(),
    fix: "an SMTP server URL such as smtp://user:password@mail.example.com:587 or smtps://…:465",
    secret: true,
  },
  MAIL_FROM: optionalText("the sender of chatbridge's mails, e.g. Homes bot <bot@example.com>"),
  HANDOFF_EMAIL: {
    schema: z.email().optional(),
    fix: "the e-mail address that receives handoff requests, e.g. agents@example.com",
  },
  HANDOFF_MESSAGE: {
    schema: z
      .string()
      .trim()
      .min(1)
      .max(1000)
      .default("Thanks! I've passed our conversation to the team: a person will reply here soon."),
    fix: "the short text users read once their handoff request was sent",
  },
  HANDOFF_TIMEOUT: {
    schema: z
      .string()
      .trim()
      .regex(/^\d+\s*(s|m|h|d)?$/i, "must be a number with an optional unit s, m, h or d")
      .default("24h")
      .transform(durationMs),
    fix: "how long the bot stays quiet after a handoff, e.g. 24h (the default), 90m or 2d",
  },
  HANDOFF_KEYWORDS: {
    schema: z
      .string()
      .default(DEFAULT_HANDOFF_KEYWORDS.join(","))
      .transform((list) =>
        list
          .split(",")
          .map((phrase) => phrase.trim().toLowerCase())
          .filter(Boolean),
      ),
    fix: "comma-separated phrases that ask for a person, e.g. talk to a human,agent,hablar con una persona",
  },
  HANDOFF_OFFER_AFTER: {
    schema: z.coerce.number().int().min(0).max(100).default(1),
    fix: "after how many answers in a row the chatbot had none for to offer a Talk to a human button, 0 for never (default 1)",
  },
  ADMIN_TOKEN: {
    schema: z.string().trim().min(16, "must be at least 16 characters").optional(),
    fix: "a long random string (at least 16 characters) sent as `Authorization: Bearer …` to the admin endpoints",
    secret: true,
  },
  BRIDGE_CONFIG: optionalText("the path of a JSON or YAML file listing more bots (see the README), or leave it unset"),
  LLM_BASE_URL: {
    schema: httpUrl,
    fix: "the base URL of an OpenAI-compatible API such as https://api.openai.com/v1 or http://127.0.0.1:11434/v1",
  },
  LLM_API_KEY: optionalText("the provider's API key (Ollama and llama.cpp need none)", true),
  LLM_MODEL: optionalText("a model name of the provider, e.g. gpt-4o-mini or llama3.1"),
  LLM_TRANSCRIBE_MODEL: optionalText(
    "a speech-to-text model of the provider, e.g. whisper-1, to transcribe voice notes, or leave it unset",
  ),
} satisfies Record<string, Variable<unknown>>;

/** The names of every variable chatbridge reads (documented in .env.example and the README). */
export const CONFIG_VARIABLES = Object.keys(VARIABLES) as (keyof typeof VARIABLES)[];

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
function environment(env: NodeJS.ProcessEnv, envFile: string | undefined): Record<string, string> {
  const merged: Record<string, string> = {};
  if (envFile && existsSync(envFile)) Object.assign(merged, parseEnv(readFileSync(envFile, "utf8")));
  for (const [name, value] of Object.entries(env)) if (value !== undefined) merged[name] = value;
  for (const [name, value] of Object.entries(merged)) if (value.trim() === "") delete merged[name];
  return merged;
}

/**
 * Validates the environment into a {@link Config}. This is the only reader of `process.env`.
 * @throws ConfigError listing every invalid variable.
 */
export function loadConfig(
  env: NodeJS.ProcessEnv = process.env,
  options: { envFile?: string | undefined; cwd?: string } = { envFile: ".env" },
): Config {
  const source = environment(env, options.envFile);
  const values: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const [name, variable] of Object.entries(VARIABLES) as [string, Variable<unknown>][]) {
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
  return {
    port: v.PORT,
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
      publicUrl: v.PUBLIC_URL,
      groupSessionScope: v.GROUP_SESSION_SCOPE,
      sessionIdleMs: v.SESSION_IDLE_MINUTES * 60_000,
      resetKeyword: v.RESET_KEYWORD,
      queueMode: v.QUEUE_MODE,
      answerTimeoutMs: v.ANSWER_TIMEOUT_MS,
      apologyText: v.APOLOGY_TEXT,
      welcomeText: v.WELCOME_TEXT,
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
    telegram: {
      botToken: v.TELEGRAM_BOT_TOKEN,
      webhookSecret: v.TELEGRAM_WEBHOOK_SECRET,
      apiRoot: v.TELEGRAM_API_ROOT,
      mode: v.TELEGRAM_MODE,
    },
    slack: {
      botToken: v.SLACK_BOT_TOKEN,
      signingSecret: v.SLACK_SIGNING_SECRET,
      appToken: v.SLACK_APP_TOKEN,
      apiUrl: v.SLACK_API_URL,
    },
    whatsapp: {
      accessToken: v.WHATSAPP_ACCESS_TOKEN,
      phoneNumberId: v.WHATSAPP_PHONE_NUMBER_ID,
      appSecret: v.WHATSAPP_APP_SECRET,
      verifyToken: v.WHATSAPP_VERIFY_TOKEN,
      apiUrl: v.WHATSAPP_API_URL,
      apiVersion: v.WHATSAPP_API_VERSION,
      streaming: v.WHATSAPP_STREAMING,
      blockMinChars: v.WHATSAPP_BLOCK_MIN_CHARS,
    },
    mail: { smtpUrl: v.SMTP_URL, from: v.MAIL_FROM },
    adminToken: v.ADMIN_TOKEN,
    bots: v.BRIDGE_CONFIG ? loadBotsFile(v.BRIDGE_CONFIG, source, cwd) : [],
    llm: {
      baseUrl: v.LLM_BASE_URL,
      apiKey: v.LLM_API_KEY,
      model: v.LLM_MODEL,
      transcribeModel: v.LLM_TRANSCRIBE_MODEL,
    },
  };
}
