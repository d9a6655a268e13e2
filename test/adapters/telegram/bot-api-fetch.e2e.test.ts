import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Api, GrammyError, HttpError } from "grammy/web";
import { afterEach, describe, expect, it } from "vitest";
import { botApiFetch } from "../../../adapters/telegram/bot-api-fetch.js";

interface Seen {
  method: string | undefined;
  url: string | undefined;
  contentType: string | undefined;
  body: string;
}

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

/** A Bot API stand-in: answers each call with `answer(call)` (status and raw body), recording what it got. */
async function botApi(answer: (seen: Seen) => { status: number; body: string; delayMs?: number }) {
  const seen: Seen[] = [];
  const server = createServer(async (req: IncomingMessage, res) => {
    let body = "";
    for await (const chunk of req) body += chunk;
    const call = { method: req.method, url: req.url, contentType: req.headers["content-type"], body };
    seen.push(call);
    const { status, body: text, delayMs } = answer(call);
    setTimeout(() => res.writeHead(status, { "content-type": "application/json" }).end(text), delayMs ?? 0);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const apiRoot = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { seen, api: new Api("123:secret", { apiRoot, fetch: botApiFetch(), timeoutSeconds: 1 }) };
}

describe("botApiFetch: grammY's calls over undici", () => {
  it("posts the method's JSON to the token's URL and hands back the result", async () => {
    const { seen, api } = await botApi(() => ({
      status: 200,
      body: JSON.stringify({ ok: true, result: { message_id: 7, date: 1, chat: { id: 42, type: "private" } } }),
    }));
    const sent = await api.sendMessage(42, "Homes in Austin", { parse_mode: "HTML" });
    expect(sent.message_id).toBe(7);
    expect(seen).toEqual([
      {
        method: "POST",
        url: "/bot123:secret/sendMessage",
        contentType: "application/json",
        body: JSON.stringify({ chat_id: 42, text: "Homes in Austin", parse_mode: "HTML" }),
      },
    ]);
  });

  it("turns the Bot API's refusal into a GrammyError with its code and retry time", async () => {
    const { api } = await botApi(() => ({
      status: 429,
      body: JSON.stringify({
        ok: false,
        error_code: 429,
        description: "Too Many Requests: retry after 3",
        parameters: { retry_after: 3 },
      }),
    }));
    const error = await api.sendMessage(42, "x").catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(GrammyError);
    expect(error).toMatchObject({ error_code: 429, parameters: { retry_after: 3 } });
  });

  it("fails with an HttpError when the answer is not JSON, and when the call outlasts its timeout", async () => {
    const garbled = await botApi(() => ({ status: 502, body: "<html>Bad Gateway</html>" }));
    expect(await garbled.api.getMe().catch((caught: unknown) => caught)).toBeInstanceOf(HttpError);
    const slow = await botApi(() => ({
      status: 200,
      body: JSON.stringify({ ok: true, result: true }),
      delayMs: 3_000,
    }));
    const started = Date.now();
    expect(await slow.api.deleteWebhook().catch((caught: unknown) => caught)).toBeInstanceOf(HttpError);
    expect(Date.now() - started).toBeLessThan(2_500);
  });
});
