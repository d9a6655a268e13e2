import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { z } from "zod";
import { CHANNEL_PLUGINS } from "../../adapters/index.js";
import type { ChannelPlugin } from "../plugin/channel-plugin.js";
import { ConfigError } from "./config-error.js";
import { baseUrl, nonEmptyText } from "./config-variables.js";

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
  /**
   * Its settings for each channel it has, by plugin name (`telegram`, `slack`, `whatsapp`…), as the plugin's
   * `botEntry` schema validated them; the configuration completes them from the bot `default`'s.
   */
  channels: Record<string, unknown>;
}

const text = nonEmptyText;

/** A bot entry as validated: the channels' entries are under the plugins' names. */
type ParsedBot = { id: string; chatbot: Partial<NamedBot["chatbot"]>; welcomeText?: string | undefined } & {
  [channel: string]: unknown;
};

/** The keys of a bot entry that are not a channel's. */
const BOT_KEYS = new Set(["id", "chatbot", "welcomeText"]);

/** A bot entry: its id, its chatbot, its greeting, and an optional entry per channel plugin that has them. */
function botSchema(plugins: readonly ChannelPlugin[]) {
  const channels = Object.fromEntries(
    plugins.flatMap((plugin) => {
      if (BOT_KEYS.has(plugin.name)) throw new Error(`a channel plugin cannot be named "${plugin.name}"`);
      return plugin.botEntry ? [[plugin.name, plugin.botEntry.optional()]] : [];
    }),
  );
  return z.strictObject({
    id: z
      .string()
      .regex(/^[a-z0-9][a-z0-9_-]{0,62}$/, "must be 1-63 of a-z, 0-9, _ and -, starting with a letter or digit")
      .refine((id) => id !== "default", "`default` is the bot the environment variables describe; pick another id"),
    chatbot: z
      .strictObject({
        apiUrl: baseUrl.optional(),
        apiKey: text.optional(),
        sessionKey: text.optional(),
        serialNumber: text.optional(),
      })
      .default({}),
    welcomeText: text.max(2000).optional(),
    ...channels,
  });
}

/**
 * Reads the `BRIDGE_CONFIG` file (JSON, or YAML when it ends in `.yaml`/`.yml`). Secrets need not be written
 * in it: `${NAME}` in any string is replaced by the environment variable NAME, so the file can be committed
 * while the tokens stay in the environment. Ids and Telegram tokens must be unique.
 * @throws ConfigError naming the file, the field (e.g. `bots[1].telegram.botToken`) and the fix.
 */
export function loadBotsFile(
  file: string,
  env: Record<string, string>,
  cwd = process.cwd(),
  plugins: readonly ChannelPlugin[] = CHANNEL_PLUGINS,
): NamedBot[] {
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
  const parsed = z.strictObject({ bots: z.array(botSchema(plugins)).default([]) }).safeParse(expanded);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((issue) => `BRIDGE_CONFIG ${file}: ${fieldPath(issue.path)} ${issue.message}.`),
    );
  }
  const bots: ParsedBot[] = parsed.data.bots;
  const problems = [
    ...repeated(bots.map((bot) => bot.id)).map(
      (id) => `BRIDGE_CONFIG ${file}: bot id "${id}" is used twice; ids must be unique.`,
    ),
    ...plugins.flatMap((plugin) => {
      const distinct = plugin.distinct;
      if (!distinct) return [];
      const values = bots.flatMap((bot) => (plugin.name in bot ? [distinct.of(bot[plugin.name])] : []));
      return repeated(values).map((value) => `BRIDGE_CONFIG ${file}: ${distinct.problem(value)}`);
    }),
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
    channels: Object.fromEntries(
      plugins.flatMap((plugin) => (bot[plugin.name] === undefined ? [] : [[plugin.name, bot[plugin.name]]])),
    ),
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

/**
 * The YAML parser, required (synchronously, as the configuration is read) only for a `.yaml` file: a deployment
 * without one does not keep it in memory (src/common/lazy-parts.ts).
 */
function parseYaml(content: string): unknown {
  const yaml: typeof import("yaml") = createRequire(import.meta.url)("yaml");
  return yaml.parse(content);
}
