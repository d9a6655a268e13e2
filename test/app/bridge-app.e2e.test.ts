import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningBridge, startBridge } from "../../src/app/bridge-app.js";
import { createLogger } from "../../src/common/log.js";
import { loadConfig } from "../../src/config/config.js";
import { freePort, until } from "../support/waiting.js";
import { newVisitor } from "../support/web-chat-stream.js";

interface PageEvent {
  type: string;
  from?: string;
  id?: string;
  text?: string;
  quickReplies?: string[];
}

/** A web chat page: the event stream of one visitor, and the latest text of each of the bridge's messages. */
async function openPage(base: string, visitor: string) {
  const controller = new AbortController();
  const response = await fetch(`${base}/webchat/events?visitor=${visitor}`, { signal: controller.signal });
  const messages = new Map<string, PageEvent>();
  const order: string[] = [];
  let buffer = "";
  const pump = (async () => {
    const decoder = new TextDecoder();
    try {
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        let end = buffer.indexOf("\n\n");
        while (end >= 0) {
          const data = buffer
            .slice(0, end)
            .split("\n")
            .find((line) => line.startsWith("data: "));
          buffer = buffer.slice(end + 2);
          if (data) {
            const event = JSON.parse(data.slice(6)) as PageEvent;
            // The bridge's messages; the visitor's own, kept for the history, are not what these tests read.
            if (event.type === "message" && event.id && event.from !== "visitor") {
              if (!messages.has(event.id)) order.push(event.id);
              messages.set(event.id, event);
            }
          }
          end = buffer.indexOf("\n\n");
        }
      }
    } catch {
      // closed by the test
    }
  })();
  return {
    texts: () => order.map((id) => messages.get(id)?.text ?? ""),
    last: () => messages.get(order.at(-1) ?? ""),
    close: async () => {
      controller.abort();
      await pump;
    },
  };
}

let running: RunningBridge;
let base: string;

beforeAll(async () => {
  const port = await freePort();
  const config = loadConfig(
    { PORT: String(port), DATA_DIR: mkdtempSync(path.join(tmpdir(), "chatbridge-app-")), STORE_URL: "memory://" },
    { envFile: undefined },
  );
  running = await startBridge(config, createLogger("silent"), { host: "127.0.0.1" });
  base = running.url;
});
afterAll(() => running.close(1000));

const send = (visitorId: string, messageId: string, text: string) =>
  fetch(`${base}/webchat/messages`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ visitorId, messageId, text }),
  });

describe("chatbridge start with the embedded API and the web chat", () => {
  it("serves the page, health, readiness and metrics", async () => {
    const page = await fetch(`${base}/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toMatch(/<script src="\/widget\.js" data-chatbot="[^"]+" data-mode="page" async>/);
    expect((await fetch(`${base}/widget.js`)).status).toBe(200);
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    const ready = await fetch(`${base}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ status: "ready", store: "ok", upstream: "ok" });
    const metrics = await (await fetch(`${base}/metrics`)).text();
    expect(metrics).toContain("chatbridge_messages_in_total");
    expect(metrics).toMatch(/^nodejs_heap_size_used_bytes \d+/m);
  });

  it("greets on /start with the WelcomeMessage and quick replies, then streams answers in order", async () => {
    const visitor = await newVisitor(base);
    const page = await openPage(base, visitor);
    expect((await send(visitor, "a1", "/start")).status).toBe(202);
    const greeting = await until(() => page.last());
    expect(greeting.text).toContain("Harbor & Pine Realty");
    expect(greeting.quickReplies).toContain("3 bedroom homes for sale in Austin");
    await send(visitor, "a2", "homes for sale in Austin");
    await send(visitor, "a3", "homes for sale in Denver");
    const texts = await until(() => (page.texts().length >= 3 ? page.texts() : undefined));
    await until(() => (/Denver/.test(page.texts()[2] ?? "") ? true : undefined));
    expect(texts[1]).toMatch(/Austin/);
    expect(page.texts()[2]).toMatch(/Denver/);
    await page.close();
  });

  it("answers a re-delivered message only once", async () => {
    const visitor = await newVisitor(base);
    const page = await openPage(base, visitor);
    await send(visitor, "same", "/start");
    const again = await send(visitor, "same", "/start");
    expect(await again.json()).toEqual({ status: "duplicate" });
    await until(() => page.last());
    await new Promise((r) => setTimeout(r, 200));
    expect(page.texts()).toHaveLength(1);
    await page.close();
  });

  it("refuses malformed posts with a clear error", async () => {
    const bad = await fetch(`${base}/webchat/messages`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ visitorId: "x", messageId: "1", text: "hi" }),
    });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: string }).error).toMatch(/^visitorId must be/);
  });
});
