/** Where a command reads and writes, so tests can run commands in-process. */
export interface CommandIo {
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  env: NodeJS.ProcessEnv;
  /** The `.env` file to read (undefined: none). */
  envFile: string | undefined;
  /**
   * Emits `interrupt` on Ctrl-C (a streaming command cancels its request) and `terminate` on SIGTERM
   * (a server stops cleanly).
   */
  signals: NodeJS.EventEmitter;
}

/** Exit codes of the CLI: 0 ok, 1 runtime failure, 2 bad usage or configuration, 130 stopped by the user. */
export const EXIT = { ok: 0, failure: 1, usage: 2, interrupted: 130 } as const;

/** Raised for bad usage; the CLI prints the message, then the command's usage when given, and exits with 2. */
export class UsageError extends Error {
  override readonly name = "UsageError";

  /** `usage`: the help of the command that was misused. */
  constructor(
    message: string,
    readonly usage?: string,
  ) {
    super(message);
  }
}
