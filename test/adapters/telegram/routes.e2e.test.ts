import * as crypto from "node:crypto";
import { once } from "node:events";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import express from "express";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { DeliveryOutcome } from "../../../adapters/telegram/delivery.js";
import {
  SECRET_HEADER,
  secretMatches,
  type TelegramWebhook,
  telegramWebhookRoutes,
} from "../../../adapters/telegram/routes.js";
import type { MalformedPayload, ReportMalformed } from "../../../src/bridge/malformed-payloads.js";
import { sendBody } from "../../support/raw-http.js";

vi.mock("node:crypto", async (importOriginal) => {
  const original = await importOriginal<typeof import("node:crypto")>();
  return { ...original, timingSafeEqual: vi.fn(original.timingSafeEqual) };
});

const SECRET = "s3cret_TOKEN-value";
let server: Server | undefined;

afterEach(async () => {
  // A refused body is drained after the answer, so a client may still hold a connection that close() alone waits for.
  server?.closeAllConnections();
  if (server) await new Promise((resolve) => server?.close(resolve));
  server = undefined;
  vi.mocked(crypto.timingSafeEqual).mockClear();
});

/** A webhook whose bridge records updates and takes `delayMs` (or fails, or says it is stopping). */
function recordingWebhook(behaviour: { delayMs?: number; fail?: boolean; outcome?: DeliveryOutcome } = {}) {
  const received: unknown[] = [];
  const webhook: TelegramWebhook = {
    secret: SECRET,
    deliver: async (update) => {
      received.push(update);
      await new Promise((resolve) => setTimeout(resolve, behaviour.delayMs ?? 0));
      if (behaviour.fail) throw new Error("store unreachable");
      return behaviour.outcome ?? "accepted";
    },
  };
  return { webhook, received };
}

async function serve(
  webhooks: Map<string, TelegramWebhook>,
  ackWithinMs?: number,
  onMalformed?: ReportMalformed,
): Promise<string> {
  const app = express();
  app.use(telegramWebhookRoutes(webhooks, { ackWithinMs, onMalformed }));
  server = app.listen(0, "127.0.0.1");
  await once(server, "listening");
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function post(url: string, body: string, secret?: string) {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (secret !== undefined) headers[SECRET_HEADER] = secret;
  return fetch(url, { method: "POST", headers, body });
}

const update = JSON.stringify({ update_id: 1, message: { message_id: 1, date: 1, chat: { id: 1, type: "private" } } });

describe("telegramWebhookRoutes", () => {
  it("refuses a missing or wrong secret with 401, and the bridge sees nothing", async () => {
    const { webhook, received } = recordingWebhook();
    const base = await serve(new Map([["default", webhook]]));
    for (const secret of [undefined, "", "wrong", `${SECRET}x`, SECRET.slice(0, -1), SECRET.toUpperCase()]) {
      const response = await post(`${base}/webhooks/telegram`, update, secret);
      expect(response.status, String(secret)).toBe(401);
    }
    expect(received).toEqual([]);
  });

  it("compares secrets of equal length with crypto.timingSafeEqual", async () => {
    const compare = vi.mocked(crypto.timingSafeEqual);
    expect(secretMatches(SECRET, SECRET)).toBe(true);
    expect(secretMatches(SECRET, `${SECRET.slice(0, -1)}X`)).toBe(false);
    expect(compare).toHaveBeenCalledTimes(2);
    expect(secretMatches(SECRET, "short")).toBe(false);
    expect(secretMatches(SECRET, undefined)).toBe(false);
    expect(secretMatches("", "")).toBe(false);
    expect(compare).toHaveBeenCalledTimes(2);
    const { webhook } = recordingWebhook();
    const base = await serve(new Map([["default", webhook]]));
    await post(`${base}/webhooks/telegram`, update, SECRET);
    expect(compare).toHaveBeenCalledTimes(3);
  });

  it("hands an authentic update to the bridge and answers 200", async () => {
    const { webhook, received } = recordingWebhook();
    const base = await serve(new Map([["default", webhook]]));
    const response = await post(`${base}/webhooks/telegram`, update, SECRET);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: "accepted" });
    expect(received).toEqual([JSON.parse(update)]);
  });

  it("answers 200 quickly while a slow bridge is still taking the update", async () => {
    const { webhook, received } = recordingWebhook({ delayMs: 3_000 });
    const base = await serve(new Map([["default", webhook]]), 100);
    const started = Date.now();
    const response = await post(`${base}/webhooks/telegram`, update, SECRET);
    expect(response.status).toBe(200);
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(received).toHaveLength(1);
  });

  it("answers 500 when the bridge fails (Telegram retries) and 503 while it stops", async () => {
    const failing = recordingWebhook({ fail: true });
    const stopping = recordingWebhook({ outcome: "stopping" });
    const base = await serve(
      new Map([
        ["default", failing.webhook],
        ["other", stopping.webhook],
      ]),
    );
    expect((await post(`${base}/webhooks/telegram`, update, SECRET)).status).toBe(500);
    expect((await post(`${base}/webhooks/telegram/other`, update, SECRET)).status).toBe(503);
    expect(stopping.received).toHaveLength(1);
  });

  it("answers 200 to duplicates and to authentic bodies it cannot read, so Telegram stops retrying", async () => {
    const duplicate = recordingWebhook({ outcome: "duplicate" });
    const base = await serve(new Map([["default", duplicate.webhook]]));
    expect((await post(`${base}/webhooks/telegram`, update, SECRET)).status).toBe(200);
    const broken = await post(`${base}/webhooks/telegram`, "{not json", SECRET);
    expect(broken.status).toBe(200);
    expect(await broken.json()).toEqual({ status: "malformed" });
    expect(duplicate.received).toHaveLength(1);
  });

  it("routes named bots by path, each with its own secret, and 404s unknown ones", async () => {
    const first = recordingWebhook();
    const second = recordingWebhook();
    const named = { ...second.webhook, secret: "another-secret" };
    const base = await serve(
      new Map([
        ["default", first.webhook],
        ["sales", named],
      ]),
    );
    expect((await post(`${base}/webhooks/telegram/sales`, update, SECRET)).status).toBe(401);
    expect((await post(`${base}/webhooks/telegram/sales`, update, "another-secret")).status).toBe(200);
    expect((await post(`${base}/webhooks/telegram/nobody`, update, SECRET)).status).toBe(404);
    expect(first.received).toHaveLength(0);
    expect(second.received).toHaveLength(1);
  });

  it("acknowledges authentic bodies over 1 MB or not JSON as malformed, reports them, and hands nothing on", async () => {
    const { webhook, received } = recordingWebhook();
    const reports: MalformedPayload[] = [];
    const base = await serve(new Map([["default", webhook]]), undefined, (report) => reports.push(report));
    const huge = JSON.stringify({ update_id: 2, message: { text: "x".repeat(1_100_000) } });
    const response = await post(`${base}/webhooks/telegram`, huge, SECRET);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: "malformed" });
    expect((await post(`${base}/webhooks/telegram`, "{", SECRET)).status).toBe(200);
    expect(received).toEqual([]);
    expect(reports).toEqual([
      { channel: "telegram", botId: "default", reason: "too_large" },
      { channel: "telegram", botId: "default", reason: "unreadable" },
    ]);
  });

  it("answers an unauthenticated body over 1 MB 401 without reading it", async () => {
    const { webhook, received } = recordingWebhook();
    const reports: MalformedPayload[] = [];
    const base = await serve(new Map([["default", webhook]]), undefined, (report) => reports.push(report));
    const response = await post(`${base}/webhooks/telegram`, "x".repeat(2_000_000), "wrong");
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({ error: "wrong or missing X-Telegram-Bot-Api-Secret-Token" });
    expect(reports).toEqual([]);
    expect(received).toEqual([]);
  });

  it("gets its 401 or 404 to a sender still sending a large body, even one asking Connection: close", async () => {
    const { webhook, received } = recordingWebhook();
    const base = await serve(new Map([["default", webhook]]));
    const bodyBytes = 4 * 1024 * 1024;
    const cases = [
      { path: "/webhooks/telegram", secret: undefined, status: 401 },
      { path: "/webhooks/telegram", secret: "wrong", status: 401 },
      { path: "/webhooks/telegram/nobody", secret: SECRET, status: 404 },
    ];
    for (const { path, secret, status } of cases) {
      for (const connection of ["close", "keep-alive"] as const) {
        const headers: Record<string, string> = { "content-type": "application/json" };
        if (secret !== undefined) headers[SECRET_HEADER] = secret;
        const answer = await sendBody(base, { method: "POST", path, headers, bodyBytes, connection });
        const label = `${path} ${secret} ${connection}`;
        expect(answer.error, label).toBeUndefined();
        expect(answer.status, label).toBe(status);
        expect(answer.sentBytes, label).toBe(bodyBytes);
        expect(JSON.parse(answer.body), label).toHaveProperty("error");
      }
    }
    expect(received).toEqual([]);
  });

  it("hands JSON that is not an object on, for the schema to refuse", async () => {
    const { webhook, received } = recordingWebhook({ outcome: "malformed" });
    const base = await serve(new Map([["default", webhook]]));
    const response = await post(`${base}/webhooks/telegram`, "null", SECRET);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: "malformed" });
    expect(received).toEqual([null]);
  });
});
