import { createRequire } from "node:module";
import pino, { type Logger } from "pino";

export type { Logger } from "pino";

/** pino levels accepted by `LOG_LEVEL`. */
export const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/**
 * Field paths whose values are secrets wherever they appear in a log object. pino replaces them with
 * `[redacted]` before serialising, so a secret never reaches the output, whatever module logs it.
 */
export const REDACTED_PATHS = [
  "apiKey",
  "sessionKey",
  "token",
  "secret",
  "password",
  "authorization",
  "*.apiKey",
  "*.sessionKey",
  "*.token",
  "*.secret",
  "*.password",
  "*.authorization",
  "databaseUrl",
  "*.databaseUrl",
  "*.*.apiKey",
  "*.*.sessionKey",
  "*.*.token",
  "*.*.secret",
  "headers.authorization",
  'headers["chatrobot-sessionkey"]',
  "*.headers.authorization",
  '*.headers["chatrobot-sessionkey"]',
];

/**
 * The process logger: pino JSON on stderr (stdout stays free for command output such as `chatbridge ask`),
 * human-readable when stderr is a terminal.
 */
export function createLogger(
  level: LogLevel,
  options: { pretty?: boolean; destination?: NodeJS.WritableStream } = {},
): Logger {
  const destination = options.destination ?? process.stderr;
  const usePretty = options.pretty ?? (destination === process.stderr && process.stderr.isTTY === true);
  const stream = usePretty
    ? prettyStream({ destination: destination as NodeJS.WritableStream & { fd?: number }, colorize: true, sync: true })
    : destination;
  return pino({ level, base: { name: "chatbridge" }, redact: { paths: REDACTED_PATHS, censor: "[redacted]" } }, stream);
}

/** pino-pretty, required only for a terminal: a server logging JSON does not keep it in memory (src/common/lazy-parts.ts). */
function prettyStream(options: import("pino-pretty").PrettyOptions): NodeJS.WritableStream {
  const pretty: typeof import("pino-pretty") = createRequire(import.meta.url)("pino-pretty");
  return pretty(options);
}
