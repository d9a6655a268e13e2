import { isIP } from "node:net";
import { z } from "zod";
import { LOG_LEVELS } from "../common/log.js";

/** One environment variable: how it is validated, and how to fix a bad value. */
export interface Variable<T> {
  schema: z.ZodType<T>;
  /** What a valid value looks like, completing "set NAME to …". */
  fix: string;
  secret?: boolean;
}

/** Text that is not only blanks, trimmed. */
export const nonEmptyText = z.string().trim().min(1);

/** An http(s) base URL without trailing slash. */
export const baseUrl = z.url({ protocol: /^https?$/ }).transform((url) => url.replace(/\/+$/, ""));

/** A variable of free text that may be unset. */
export const optionalText = (fix: string, secret = false): Variable<string | undefined> => ({
  schema: nonEmptyText.optional(),
  fix,
  secret,
});

const httpUrl = baseUrl.optional();

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

/** The names express's `trust proxy` knows for whole ranges of addresses. */
const PROXY_RANGES = ["loopback", "linklocal", "uniquelocal"];

/** An address or subnet of proxies: `10.0.0.5`, `10.0.0.0/8`, `fd00::/8`, or one of {@link PROXY_RANGES}. */
function proxyEntry(entry: string): boolean {
  if (PROXY_RANGES.includes(entry)) return true;
  const [address = "", bits, ...rest] = entry.split("/");
  const version = isIP(address);
  if (version === 0 || rest.length > 0) return false;
  // A subnet of every address (/0) would trust anyone's header.
  return (
    bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) >= 1 && Number(bits) <= (version === 4 ? 32 : 128))
  );
}

/**
 * TRUST_PROXY as express's `trust proxy` takes it: a number of proxies in front of the bridge, or the proxies' own
 * addresses and subnets; undefined (unset) trusts nobody's X-Forwarded-For. `true` is not offered: it would take the
 * header from anyone who reaches the port.
 */
const trustProxy = z
  .string()
  .trim()
  .optional()
  .refine(
    (text) =>
      !text ||
      /^([1-9]|10)$/.test(text) ||
      text
        .split(/[\s,]+/)
        .filter(Boolean)
        .every(proxyEntry),
    "must be a number of proxies from 1 to 10, or addresses and subnets of the proxies",
  )
  .transform((text) => (!text ? undefined : /^\d+$/.test(text) ? Number(text) : text.split(/[\s,]+/).filter(Boolean)));

/** "24h", "90m", "30s", "2d", or a bare number of minutes, in milliseconds. */
function durationMs(text: string): number {
  const [, amount, unit] = /^(\d+)\s*([smhd])?$/i.exec(text) ?? [];
  const seconds = { s: 1, m: 60, h: 3600, d: 86_400 }[(unit ?? "m").toLowerCase() as "s" | "m" | "h" | "d"];
  return Number(amount) * seconds * 1000;
}

/**
 * The contract: every variable of chatbridge itself, read by `loadConfig` only. Each channel declares its own in its
 * plugin (adapters/<channel>/settings.ts), read the same way.
 */
export const VARIABLES = {
  PORT: {
    schema: z.coerce.number().int().min(1).max(65535).default(3000),
    fix: "a whole number from 1 to 65535 (default 3000)",
  },
  SHUTDOWN_GRACE_MS: {
    schema: z.coerce.number().int().min(0).max(600_000).default(10_000),
    fix: "milliseconds from 0 to 600000 that answers under way may take to finish after SIGTERM (default 10000)",
  },
  TRUST_PROXY: {
    schema: trustProxy,
    fix: "the number of proxies in front of the bridge (e.g. 1, when it can be reached only through them), or their addresses and subnets such as loopback, 10.0.0.0/8; leave it unset when clients connect directly",
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
  STORE_NAMESPACE: {
    schema: z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,64}$/, "must be 1-64 letters, digits, _ or -")
      .default("chatbridge"),
    fix: "1-64 letters, digits, _ or - (default chatbridge): the prefix of every key in the store; deployments sharing one Redis or SQLite file need different ones",
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
  WORKER_CONCURRENCY: {
    schema: z.coerce.number().int().min(1).max(100_000).default(1000),
    fix: "the most conversations one process answers at once, from 1 to 100000 (default 1000)",
  },
  WORK_LEASE_MS: {
    schema: z.coerce.number().int().min(500).max(600_000).default(15_000),
    fix: "milliseconds a process holds a conversation without renewing it, from 500 to 600000 (default 15000): after a crash another process resumes the conversation within this time",
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
  LISTING_CARDS_MAX: {
    schema: z.coerce.number().int().min(0).max(10).default(3),
    fix: "a whole number from 0 to 10: the listing cards shown after one answer at most, on every channel (0 shows none)",
  },
  ALERTS_POLL_MINUTES: {
    schema: z.coerce.number().min(0).max(1440).default(15),
    fix: "minutes between two reads of the listings for saved searches' alerts, from 0 to 1440 (default 15; 0 sends no alerts)",
  },
  ALERTS_QUIET_HOURS: {
    schema: z
      .string()
      .trim()
      .regex(/^(off|([01]?\d|2[0-3])-([01]?\d|2[0-3]))$/i, "must be two hours from 0 to 23 such as 21-8, or off")
      .default("21-8")
      .transform((value) => {
        const [from, to] = value.split("-").map(Number);
        return from === undefined || to === undefined || from === to ? undefined : { from, to };
      }),
    fix: "the hours without alerts in the chatbot's time zone, as from-to in whole hours (default 21-8), or off",
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
        "Sorry, I can't read that kind of message. I understand text, photos (JPEG, PNG, WEBP, HEIC, still GIF), " +
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
  BRIDGE_CONFIG: optionalText(
    "the path of a JSON or YAML file listing more bots (see docs/channels.md), or leave it unset",
  ),
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
