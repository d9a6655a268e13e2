import { ChatbotApiError } from "./errors.js";

/** `Version` of every envelope this project writes. */
export const API_VERSION = "1.0.0";

/** The JSON envelope every operation answers. */
export interface Envelope<T = unknown> {
  Data: T;
  Version: string;
  Success: boolean;
  Code: number;
  Message: string;
}

/** Reads a field whatever its case: the hosted platform is ASP.NET and not consistent about it. */
export function field(object: Record<string, unknown>, name: string): unknown {
  if (name in object) return object[name];
  const lower = name.toLowerCase();
  for (const key of Object.keys(object)) if (key.toLowerCase() === lower) return object[key];
  return undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** True for an object that has the envelope's `Success` and `Code` or `Message` fields. */
export function isEnvelope(value: unknown): value is Record<string, unknown> {
  return (
    isRecord(value) &&
    typeof field(value, "Success") === "boolean" &&
    (field(value, "Code") !== undefined || field(value, "Message") !== undefined)
  );
}

function snippet(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > 120 ? `${flat.slice(0, 117)}...` : flat;
}

/** The error an envelope with `Success: false` stands for. */
export function envelopeError(
  operation: string,
  envelope: Record<string, unknown>,
  options: { status?: number; partialText?: string; retryAfterMs?: number } = {},
): ChatbotApiError {
  const rawCode = Number(field(envelope, "Code"));
  const code = Number.isFinite(rawCode) ? rawCode : undefined;
  const message = String(field(envelope, "Message") ?? "").trim();
  const httpFailed = options.status !== undefined && (options.status < 200 || options.status > 299);
  return new ChatbotApiError({
    operation,
    kind: httpFailed ? "http" : "envelope",
    status: options.status,
    code,
    partialText: options.partialText || undefined,
    retryAfterMs: options.retryAfterMs,
    message: message || `failed with Code ${code ?? "?"}${httpFailed ? ` (HTTP ${options.status})` : ""}`,
  });
}

/**
 * Checks a response body and returns the envelope's `Data`. A non-2xx status, `Success: false`, a body
 * that is not JSON or not an envelope all raise a {@link ChatbotApiError} naming the operation.
 */
export function unwrapEnvelope(
  operation: string,
  status: number,
  body: string,
  options: { retryAfterMs?: number } = {},
): unknown {
  const ok = status >= 200 && status <= 299;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    throw new ChatbotApiError({
      operation,
      kind: ok ? "malformed" : "http",
      status,
      retryAfterMs: options.retryAfterMs,
      message: ok
        ? `the response is not JSON: ${JSON.stringify(snippet(body))}`
        : `HTTP ${status}${body.trim() ? `: ${snippet(body)}` : ""}`,
    });
  }
  if (!isEnvelope(parsed)) {
    throw new ChatbotApiError({
      operation,
      kind: ok ? "malformed" : "http",
      status,
      retryAfterMs: options.retryAfterMs,
      message: ok ? `the response is not an API envelope: ${snippet(body)}` : `HTTP ${status}: ${snippet(body)}`,
    });
  }
  if (!ok || field(parsed, "Success") !== true) {
    throw envelopeError(operation, parsed, { status, retryAfterMs: options.retryAfterMs });
  }
  return field(parsed, "Data");
}
