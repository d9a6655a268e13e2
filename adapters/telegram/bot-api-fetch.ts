import { Readable } from "node:stream";
import type { ReadableStream as WebReadableStream } from "node:stream/web";
import { Agent, type Dispatcher, request } from "undici";

/** The `fetch` grammY's API client calls (ApiClientOptions.fetch). */
type Fetch = typeof globalThis.fetch;

/**
 * The `fetch` the bridge's grammY clients call the Bot API with: undici's `request` on one keep-alive agent shared
 * by every bot. grammY reads only the answer's JSON (`res.json()`), so that is all the response offers. Why: grammY's Node
 * build calls node-fetch over `http.Agent`, which at 1,000 answers at once (some 300 drafts and 30 messages a
 * second) took about a tenth of the bridge's CPU (bench/telegram-bridge.ts with --cpu-prof); undici's request does
 * the same calls in less, and the bridge loads grammY's web build, which brings no node-fetch (nor its URL and
 * punycode tables) into memory. Bodies are what grammY gives: a JSON string, or a stream for multipart uploads.
 */
export function botApiFetch(): Fetch {
  return (async (input: string | URL | Request, init?: RequestInit) => {
    const { statusCode, headers, body } = await request(String(input), {
      dispatcher: sharedAgent(),
      method: (init?.method ?? "GET") as Dispatcher.HttpMethod,
      headers: init?.headers as Record<string, string> | undefined,
      body: bodyOf(init?.body),
      signal: init?.signal ?? undefined,
    });
    return {
      ok: statusCode >= 200 && statusCode < 300,
      status: statusCode,
      headers,
      json: () => body.json(),
      text: () => body.text(),
    } as unknown as Response;
  }) as Fetch;
}

/** One keep-alive agent for every bot and every call (a `chatbridge links` run included), made on first use. */
let agent: Agent | undefined;
function sharedAgent(): Agent {
  agent ??= new Agent({ keepAliveTimeout: 30_000 });
  return agent;
}

/** grammY's body as undici takes it: a multipart upload comes as a web stream (grammY's web build). */
function bodyOf(body: RequestInit["body"]): string | Readable | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === "string") return body;
  if (body instanceof ReadableStream) return Readable.fromWeb(body as WebReadableStream);
  throw new TypeError("the Bot API client sent a body of an unexpected kind");
}
