/** HTTP statuses the API answers with; the envelope's `Code` always equals the status. */
export type ApiStatus = 400 | 401 | 403 | 404 | 405 | 409 | 413 | 415 | 429 | 500 | 502 | 503 | 504;

/**
 * A failure the API reports to the caller: the status and a `Message` that names the field or the thing
 * and the problem. Thrown by validation and services; turned into the envelope by the error handler.
 */
export class ApiError extends Error {
  override readonly name = "ApiError";
  constructor(
    readonly status: ApiStatus,
    message: string,
  ) {
    super(message);
  }
}

/** 404 for a chatbot that is unknown or belongs to another workspace: the two must look the same. */
export const chatbotNotFound = (serialNumber: string) => new ApiError(404, `Chatbot ${serialNumber} not found`);

/**
 * Problems listed in one message at most; a body with more (a thousand bad keys) gets the first ones and a
 * count, so that the message stays readable and small.
 */
export const MAX_LISTED_PROBLEMS = 25;

/**
 * The 400 for a request whose fields are wrong: every problem at once, in a fixed order, as
 * `Invalid request: SalePrice must be a number ≥ 0; Keys must list at least one key`, so that a
 * caller fixes them all in one round trip.
 */
export function invalidRequest(problems: readonly string[]): ApiError {
  const listed = problems.slice(0, MAX_LISTED_PROBLEMS);
  const more = problems.length - listed.length;
  return new ApiError(400, `Invalid request: ${listed.join("; ")}${more > 0 ? `; and ${more} more` : ""}`);
}
