/** HTTP statuses the API answers with; the envelope's `Code` always equals the status. */
export type ApiStatus = 400 | 401 | 404 | 409 | 413 | 429 | 500 | 502 | 504;

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
