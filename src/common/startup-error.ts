/**
 * Why a start-up failure happened, which decides the exit code:
 * - `configuration`: the value cannot work as it is (a port taken or privileged, a folder that cannot be written,
 *   refused credentials, a database or host that does not exist): exit 2, like a bad variable;
 * - `unavailable`: the service the setting names does not answer right now (connection refused, no answer in
 *   time): exit 1, so a supervisor's restart may succeed once that service is up.
 */
export type StartupFailureKind = "configuration" | "unavailable";

/**
 * A failure while starting that the operator can act on. Its message is one line naming the setting, what went
 * wrong and the fix, e.g. `PORT=3000 is already in use by another program: stop that program or set PORT to a
 * free port.`; the CLI prints it as it is, without a stack trace. The low-level error stays as `cause`.
 */
export class StartupError extends Error {
  override readonly name = "StartupError";

  constructor(
    /** The variable to look at, e.g. `DATA_DIR`. */
    readonly setting: string,
    message: string,
    readonly kind: StartupFailureKind,
    options: { cause?: unknown } = {},
  ) {
    super(message, options);
  }
}

/**
 * The `code` of a system or library error (`EADDRINUSE`, `ECONNREFUSED`, a PostgreSQL SQLSTATE such as `28P01`,
 * `SQLITE_READONLY`), looked up through a few `cause`s and an AggregateError's first error, where Node and the
 * drivers put the one that says what happened.
 */
export function errorCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current && typeof current === "object"; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string" && code !== "") return code;
    const errors = (current as { errors?: unknown }).errors;
    current = Array.isArray(errors) && errors.length > 0 ? errors[0] : (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** The message of an error, first line only (drivers append hints and stack-like details on later lines). */
export function firstLine(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.split("\n")[0]?.trim() ?? "";
}
