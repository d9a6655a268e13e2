import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import express from "express";
import { afterEach, describe, expect, it } from "vitest";
import { WebChannel } from "../../../adapters/web/outbound.js";
import { webChatRoutes } from "../../../adapters/web/routes.js";
import type { InboundMessage, InboundSink } from "../../../src/bridge/inbound.js";
import { openMemoryStore } from "../../../src/bridge/store/memory-store.js";
import { until } from "../../support/waiting.js";
import { openWebChatStream } from "../../support/web-chat-stream.js";

let server: Server | undefined;
afterEach(
  () =>
    new Promise<void>((resolve) => {
      server?.closeAllConnections();
      return server ? server.close(() => resolve()) : resolve();
    }),
);

const nobody: InboundSink = { accept: async () => "accepted", cancel: () => {} };

async function serve(
  sink: InboundSink,
  channel = new WebChannel(openMemoryStore("test").visitorEvents),
): Promise<string> {
  const app = express();
  app.use(webChatRoutes(channel, sink, { title: "Test" }));
  server = app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server?.once("listening", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const post = (base: string, body: unknown) =>
  fetch(`${base}/webchat/messages`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });

describe("web chat routes", () => {
  it("hands a valid message to the bridge as an InboundMessage and answers 202", async () => {
    const accepted: InboundMessage[] = [];
    const base = await serve({
      accept: async (message) => {
        accepted.push(message);
        return "accepted";
      },
      cancel: () => {},
    });
    const res = await post(base, { visitorId: "visitor-123", messageId: "m1", text: "  hello  " });
    expect(res.status).toBe(202);
    expect(accepted).toHaveLength(1);
    expect(accepted[0]).toMatchObject({
      channel: "web",
      botId: "default",
      eventId: "visitor-123:m1",
      target: { chatId: "visitor-123", isGroup: false },
      user: { id: "visitor-123" },
      text: "hello",
    });
  });

  it("answers 400 naming the field, and 503 when the bridge cannot take the message", async () => {
    const base = await serve({
      accept: async () => {
        throw new Error("store down");
      },
      cancel: () => {},
    });
    const empty = await post(base, { visitorId: "visitor-123", messageId: "m1", text: "   " });
    expect(empty.status).toBe(400);
    expect(await empty.json()).toEqual({ error: "text must not be empty" });
    const down = await post(base, { visitorId: "visitor-123", messageId: "m2", text: "hi" });
    expect(down.status).toBe(503);
    expect(await down.json()).toEqual({ status: "unavailable" });
    expect((await fetch(`${base}/webchat/events?visitor=bad`)).status).toBe(400);
  });

  it("replays from Last-Event-ID, and from the start when the header is not an event id", async () => {
    const channel = new WebChannel(openMemoryStore("test").visitorEvents);
    const base = await serve(nobody, channel);
    const target = { chatId: "visitor-123", isGroup: false };
    await channel.send(target, { text: "first", format: "plain" });
    await channel.send(target, { text: "second", format: "plain" });
    const all = await openWebChatStream(base, "visitor-123");
    await until(() => (all.events.length === 2 ? true : undefined));
    const firstId = all.events[0]?.id;
    const resumed = await openWebChatStream(base, "visitor-123", firstId);
    await until(() => (resumed.events.length > 0 ? true : undefined));
    expect(resumed.events.map((event) => event.text)).toEqual(["second"]);
    for (const header of ["garbage", "-5", "1.5"]) {
      const response = await fetch(`${base}/webchat/events?visitor=visitor-123`, {
        headers: { "last-event-id": header },
      });
      const reader = response.body?.getReader();
      const chunk = new TextDecoder().decode((await reader?.read())?.value);
      expect(chunk).toContain('"text":"first"');
      await reader?.cancel();
    }
    await all.close();
    await resumed.close();
  });
});
