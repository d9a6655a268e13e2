/**
 * An engine could not produce an answer. `status` is the HTTP status the API should answer with: 502 when the
 * model provider failed (HTTP error, error payload, broken connection), 504 when it did not answer in time.
 * Messages name the provider's URL (without credentials) and never an API key.
 */
export class EngineError extends Error {
  override readonly name = "EngineError";
  readonly status: 502 | 504;

  constructor(message: string, options: { status: 502 | 504; cause?: unknown }) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.status = options.status;
  }
}
