import { readFileSync } from "node:fs";
import path from "node:path";
import { parse as parseYaml } from "yaml";
import { z } from "zod";
import { ConfigError } from "./config-error.js";

/** A Telegram bot token as @BotFather gives it. */
export const telegramBotToken = z
  .string()
  .trim()
  .regex(/^\d+:[\w-]{20,}$/, "must look like 123456789:AA… (from @BotFather)");

/** A Slack Bot User OAuth Token. */
export const slackBotToken = z
  .string()
  .trim()
  .regex(/^xoxb-[\w-]+$/, "must be a Bot User OAuth Token, xoxb-…");

/** Telegram's rules for setWebhook's `secret_token`. */
export const telegramWebhookSecret = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,256}$/, "must be 1-256 letters, digits, _ or -");

/**
 * A named bot from the `BRIDGE_CONFIG` file: its chatbot and its channel credentials. The environment variables
 * describe the bot `default`; every other bot of the deployment is listed in the file.
 */
export interface NamedBot {
  /** Used in webhook paths (`/webhooks/<channel>/<id>`) and conversation keys: lower-case, stable. */
  id: string;
  chatbot: {
    /** Base URL of its chatbot API; undefined = CHATBOT_API_URL, or the embedded server when that is unset too. */
    apiUrl: string | undefined;
    /** Undefined = CHATBOT_API_KEY / CHATBOT_SESSION_KEY, or the embedded demo workspace's. */
    apiKey: string | undefined;
    sessionKey: string | undefined;
    /** Undefined = the embedded demo chatbot (only with the embedded server). */
    serialNumber: string | undefined;
  };
  /** Greeting when the chatbot's WelcomeMessage cannot be read; undefined = WELCOME_TEXT. */
  welcomeText: string | undefined;
  /** Its Telegram bot, when it has one. */
  telegram:
    | {
        botToken: string;
        webhookSecret: string | undefined;
        /** Undefined = TELEGRAM_API_ROOT (a bot may have its own local Bot API server). */
        apiRoot: string | undefined;
        /** Undefined = TELEGRAM_MODE. */
        mode: "webhook" | "polling" | undefined;
      }
    | undefined;
  /** Its WhatsApp number, when it has one (API URL, version and streaming as the WHATSAPP_* variables). */
  whatsapp:
    | {
        accessToken: string;
        phoneNumberId: string;
        appSecret: string;
        verifyToken: string;
        /** Undefined = WHATSAPP_API_URL. */
        apiUrl: string | undefined;
      }
    | undefined;
  /** Its Slack app, when it has one. */
  slack:
    | {
        botToken: string;
        /** For HTTP; either it or `appToken` is set. */
        signingSecret: string | undefined;
        /** For Socket Mode. */
        appToken: string | undefined;
        /** Undefined = SLACK_API_URL. */
        apiUrl: string | undefined;
      }
    | undefined;
}

const text = z.string().trim().min(1);
const url = z.url({ protocol: /^https?$/ }).transform((value) => value.replace(/\/+$/, ""));

const botSchema = z.strictObject({
  id: z
    .string()
    .regex(/^[a-z0-9][a-z0-9_-]{0,62}$/, "must be 1-63 of a-z, 0-9, _ and -, starting with a letter or digit")
    .refine((id) => id !== "default", "`default` is the bot the environment variables describe; pick another id"),
  chatbot: z
    .strictObject({
      apiUrl: url.optional(),
      apiKey: text.optional(),
      sessionKey: text.optional(),
      serialNumber: text.optional(),
    })
    .default({}),
  welcomeText: text.max(2000).optional(),
  telegram: z
    .strictObject({
      botToken: telegramBotToken,
      webhookSecret: telegramWebhookSecret.optional(),
      apiRoot: url.optional(),
      mode: z.enum(["webhook", "polling"]).optional(),
    })
    .optional(),
  whatsapp: z
    .strictObject({
      accessToken: text,
      phoneNumberId: z.string().trim().regex(/^\d+$/, "must be the numeric phone number id (not the phone number)"),
      appSecret: text,
      verifyToken: text,
      apiUrl: url.optional(),
    })
    .optional(),
  slack: z
    .strictObject({
      botToken: slackBotToken,
      signingSecret: text.optional(),
      appToken: z
        .string()
        .trim()
        .regex(/^xapp-[\w-]+$/, "must be an app-level token, xapp-…")
        .optional(),
      apiUrl: url.optional(),
    })
    .refine((slack) => slack.signingSecret || slack.appToken, "needs signingSecret (HTTP) or appToken (Socket Mode)")
    .optional(),
});

const fileSchema = z.strictObject({ bots: z.array(botSchema).default([]) });

/**
 * Reads the `BRIDGE_CONFIG` file (JSON, or YAML when it ends in `.yaml`/`.yml`). Secrets need not be written
 * in it: `${NAME}` in any string is replaced by the environment variable NAME, so the file can be committed
 * while the tokens stay in the environment. Ids and Telegram tokens must be unique.
 * @throws ConfigError naming the file, the field (e.g. `bots[1].telegram.botToken`) and the fix.
 */
export function loadBotsFile(file: string, env: Record<string, string>, cwd = process.cwd()): NamedBot[] {
  const where = path.resolve(cwd, file);
  let raw: unknown;
  try {
    const content = readFileSync(where, "utf8");
    raw = /\.ya?ml$/i.test(where) ? parseYaml(content) : JSON.parse(content);
  } catch (error) {
    const reason = error instanceof Error ? error.message.split("\n")[0] : String(error);
    throw new ConfigError([
      `BRIDGE_CONFIG=${JSON.stringify(file)} cannot be read (${reason}): set BRIDGE_CONFIG to a JSON or YAML file of bots.`,
    ]);
  }
  const missing = new Set<string>();
  const expanded = interpolate(raw ?? {}, env, missing);
  if (missing.size > 0) {
    throw new ConfigError(
      [...missing].map(
        (name) => `BRIDGE_CONFIG ${file} uses \${${name}}, which is not set: set ${name} in the environment.`,
      ),
    );
  }
  const parsed = fileSchema.safeParse(expanded);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((issue) => `BRIDGE_CONFIG ${file}: ${fieldPath(issue.path)} ${issue.message}.`),
    );
  }
  const bots = parsed.data.bots;
  const problems = [
    ...repeated(bots.map((bot) => bot.id)).map(
      (id) => `BRIDGE_CONFIG ${file}: bot id "${id}" is used twice; ids must be unique.`,
    ),
    ...repeated(bots.flatMap((bot) => (bot.telegram ? [bot.telegram.botToken] : []))).map(
      () => `BRIDGE_CONFIG ${file}: two bots share one Telegram bot token; each Telegram bot belongs to one entry.`,
    ),
    ...repeated(bots.flatMap((bot) => (bot.whatsapp ? [bot.whatsapp.phoneNumberId] : []))).map(
      (id) => `BRIDGE_CONFIG ${file}: WhatsApp phone number id ${id} is used twice; each number belongs to one entry.`,
    ),
    ...repeated(bots.flatMap((bot) => (bot.slack ? [bot.slack.botToken] : []))).map(
      () => `BRIDGE_CONFIG ${file}: two bots share one Slack bot token; each Slack app belongs to one entry.`,
    ),
  ];
  if (problems.length > 0) throw new ConfigError(problems);
  return bots.map((bot) => ({
    id: bot.id,
    chatbot: {
      apiUrl: bot.chatbot.apiUrl,
      apiKey: bot.chatbot.apiKey,
      sessionKey: bot.chatbot.sessionKey,
      serialNumber: bot.chatbot.serialNumber,
    },
    welcomeText: bot.welcomeText,
    telegram: bot.telegram && {
      botToken: bot.telegram.botToken,
      webhookSecret: bot.telegram.webhookSecret,
      apiRoot: bot.telegram.apiRoot,
      mode: bot.telegram.mode,
    },
    whatsapp: bot.whatsapp && { ...bot.whatsapp, apiUrl: bot.whatsapp.apiUrl },
    slack: bot.slack && {
      botToken: bot.slack.botToken,
      signingSecret: bot.slack.signingSecret,
      appToken: bot.slack.appToken,
      apiUrl: bot.slack.apiUrl && (bot.slack.apiUrl.endsWith("/") ? bot.slack.apiUrl : `${bot.slack.apiUrl}/`),
    },
  }));
}

/** Replaces `${NAME}` in every string of a parsed document; names not in `env` are collected in `missing`. */
function interpolate(value: unknown, env: Record<string, string>, missing: Set<string>): unknown {
  if (typeof value === "string") {
    return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_match, name: string) => {
      const found = env[name];
      if (found === undefined) missing.add(name);
      return found ?? "";
    });
  }
  if (Array.isArray(value)) return value.map((item) => interpolate(item, env, missing));
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, interpolate(item, env, missing)]));
  }
  return value;
}

/** `["bots", 1, "telegram", "botToken"]` → `bots[1].telegram.botToken`. */
function fieldPath(parts: PropertyKey[]): string {
  return (
    parts
      .map((part, index) => (typeof part === "number" ? `[${part}]` : `${index > 0 ? "." : ""}${String(part)}`))
      .join("") || "the file"
  );
}

function repeated(values: string[]): string[] {
  return [...new Set(values.filter((value, index) => values.indexOf(value) !== index))];
}
