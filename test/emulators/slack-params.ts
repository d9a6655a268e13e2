import type { IncomingHttpHeaders } from "node:http";

/** A Web API call's arguments. */
export type Params = Record<string, unknown>;

/** Arguments WebClient JSON-encodes into form fields because they are arrays or objects; Slack decodes them. */
const JSON_FIELDS = new Set(["attachments", "blocks", "chunks", "loading_messages", "metadata", "prompts"]);

/**
 * The arguments of a call: query parameters, overridden by the body, which is JSON or (WebClient's default) a
 * url-encoded form. Free text such as `text` stays a string even when it looks like JSON.
 */
export function readParams(url: URL, contentType: string | undefined, body: string): Params {
  const params: Params = Object.fromEntries(url.searchParams);
  if (/^application\/json\b/i.test(contentType ?? "")) {
    const json = parseJson(body);
    // As with Slack, a JSON body that is not an object carries no arguments.
    if (typeof json === "object" && json !== null && !Array.isArray(json)) Object.assign(params, json);
    return params;
  }
  for (const [key, value] of new URLSearchParams(body)) {
    // An undecodable value stays as sent, for the method to refuse.
    params[key] = JSON_FIELDS.has(key) ? (parseJson(value) ?? value) : value;
  }
  return params;
}

/** The token of a call: `Authorization: Bearer …`, else the `token` argument. */
export function tokenOf(headers: IncomingHttpHeaders, params: Params): string | undefined {
  const bearer = /^Bearer\s+(\S+)$/i.exec(headers.authorization ?? "")?.[1];
  return bearer ?? stringParam(params.token);
}

/** A string argument; numbers count, because a JSON body may carry a ts as one. */
export function stringParam(value: unknown): string | undefined {
  if (typeof value === "number") return String(value);
  return typeof value === "string" ? value : undefined;
}

/** A string argument that is given and not empty. */
export function filledParam(value: unknown): string | undefined {
  const text = stringParam(value);
  return text === "" ? undefined : text;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
