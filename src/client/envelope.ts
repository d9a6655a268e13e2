import { ChatbotApiError } from "./errors.js";

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

/**
 * What a body that is not the API's envelope was, for an error message: markup is never repeated (an HTML error
 * page would flood the terminal and may echo anything), only its title; short text is quoted.
 */
function describeBody(text: string): string {
  const trimmed = text.trim();
  if (trimmed === "") return "an empty body";
  if (/^<(!doctype|html|head|body|\?xml)|<\/(html|body|div|p|h1|title)>/i.test(trimmed)) {
    const title = /<title[^>]*>([^<]*)<\/title>/i.exec(trimmed)?.[1] ?? /<h1[^>]*>([^<]*)<\/h1>/i.exec(trimmed)?.[1];
    const shown = title ? snippet(title) : "";
    return `an HTML page${shown ? ` (${JSON.stringify(shown)})` : ""}`;
  }
  return JSON.stringify(snippet(trimmed));
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
    envelope: true,
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
      message: `HTTP ${status} with ${describeBody(body)}, not the API's JSON`,
    });
  }
  if (!isEnvelope(parsed)) {
    throw new ChatbotApiError({
      operation,
      kind: ok ? "malformed" : "http",
      status,
      retryAfterMs: options.retryAfterMs,
      message: `HTTP ${status} with JSON that is not the API's envelope: ${snippet(body)}`,
    });
  }
  if (!ok || field(parsed, "Success") !== true) {
    throw envelopeError(operation, parsed, { status, retryAfterMs: options.retryAfterMs });
  }
  return field(parsed, "Data");
}
