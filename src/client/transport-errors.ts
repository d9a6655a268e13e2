import { ChatbotApiError } from "./errors.js";

const TIMEOUT_CODES = new Set([
  "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
  "ETIMEDOUT",
]);

/**
 * Connection failures that happen before a single byte of the request was written, so repeating the
 * request cannot duplicate work (a refused or unresolvable host, a connect timeout).
 */
const NOT_SENT_CODES = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "UND_ERR_CONNECT_TIMEOUT",
]);

function errorCode(err: unknown): string | undefined {
  let current: unknown = err;
  // undici wraps socket errors; the code that says what happened may sit one or two causes down.
  for (let depth = 0; depth < 4 && current && typeof current === "object"; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string" && code !== "UND_ERR_SOCKET") return code;
    if (typeof code === "string" && !(current as { cause?: unknown }).cause) return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

function isAbort(err: unknown, signal: AbortSignal | undefined): boolean {
  if (signal?.aborted) return true;
  const name = (err as { name?: unknown } | null)?.name;
  return name === "AbortError" || errorCode(err) === "UND_ERR_ABORTED";
}

/** True when the request certainly never reached the server, so a retry is safe for any operation. */
export function wasNeverSent(err: unknown): boolean {
  const code = errorCode(err);
  return code !== undefined && NOT_SENT_CODES.has(code);
}

/**
 * Turns whatever undici or a body iterator threw into a {@link ChatbotApiError}: `aborted` when the caller's
 * signal fired, `timeout` for connect/headers/body timeouts, `connection` for everything else on the wire.
 * A `ChatbotApiError` passes through unchanged.
 */
export function transportError(
  operation: string,
  err: unknown,
  options: { signal?: AbortSignal | undefined; partialText?: string | undefined; status?: number | undefined } = {},
): ChatbotApiError {
  if (err instanceof ChatbotApiError) return err;
  const base = { operation, cause: err, partialText: options.partialText || undefined, status: options.status };
  if (isAbort(err, options.signal)) {
    return new ChatbotApiError({ ...base, kind: "aborted", message: "the request was cancelled" });
  }
  const code = errorCode(err);
  if (code !== undefined && TIMEOUT_CODES.has(code)) {
    const what =
      code === "UND_ERR_CONNECT_TIMEOUT"
        ? "connecting to the chatbot API timed out"
        : code === "UND_ERR_HEADERS_TIMEOUT"
          ? "the chatbot API sent no response in time"
          : "the chatbot API stopped sending data (stalled)";
    return new ChatbotApiError({ ...base, kind: "timeout", message: `${what} (${code})` });
  }
  const text = err instanceof Error ? err.message : String(err);
  return new ChatbotApiError({
    ...base,
    kind: "connection",
    message: `connection failed: ${text}${code ? ` (${code})` : ""}`,
  });
}
