/** A call Slack answers with `{ ok: false, error }`; the Web API uses HTTP 200 for these, except 404 and 429. */
export class SlackApiError extends Error {
  constructor(
    readonly error: string,
    readonly status = 200,
    /** Seconds, for the Retry-After header of a 429. */
    readonly retryAfter?: number,
  ) {
    super(error);
  }
}

export const refuse = (error: string) => new SlackApiError(error);
