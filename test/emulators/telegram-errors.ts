/** A call Telegram refuses; the HTTP status is the error_code. */
export class ApiError extends Error {
  constructor(
    readonly code: number,
    readonly description: string,
    readonly retryAfter?: number,
  ) {
    super(description);
  }
}

export const badRequest = (what: string) => new ApiError(400, `Bad Request: ${what}`);
