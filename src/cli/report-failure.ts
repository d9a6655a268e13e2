import { StartupError } from "../common/startup-error.js";
import { environment } from "../config/config.js";
import { type CommandIo, EXIT } from "./io.js";

/** Log levels at which an unexpected failure's stack trace is worth printing. */
const STACK_LEVELS = new Set(["debug", "trace"]);

/**
 * The CLI's last resort for a failure that is neither bad usage nor a bad variable. A {@link StartupError} is its
 * one line, with exit 2 when the setting's value cannot work and 1 when the service it names does not answer.
 * Anything else is one line `unexpected failure: <message>` with exit 1; its stack trace only with LOG_LEVEL=debug
 * or trace, because an operator needs the message and a developer the stack.
 */
export function reportFailure(error: unknown, io: CommandIo): number {
  if (error instanceof StartupError) {
    io.stderr.write(`chatbridge: ${error.message}\n`);
    return error.kind === "configuration" ? EXIT.usage : EXIT.failure;
  }
  const stack = error instanceof Error && STACK_LEVELS.has(logLevel(io) ?? "") ? error.stack : undefined;
  const message = error instanceof Error ? error.message.split("\n")[0] : String(error);
  io.stderr.write(
    stack
      ? `chatbridge: unexpected failure: ${stack}\n`
      : `chatbridge: unexpected failure: ${message} (LOG_LEVEL=debug shows where it happened)\n`,
  );
  return EXIT.failure;
}

/** LOG_LEVEL as the environment or the .env file gives it; a broken .env file counts as no level. */
function logLevel(io: CommandIo): string | undefined {
  try {
    return environment(io.env, io.envFile).LOG_LEVEL?.trim().toLowerCase();
  } catch {
    return undefined;
  }
}
