import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import express from "express";
import { afterEach, describe, expect, it } from "vitest";
import { parseWebChatLimits } from "../../../adapters/web/limit-settings.js";
import { WebChannel } from "../../../adapters/web/outbound.js";
import { type WebChatRoutesOptions, webChatRoutes } from "../../../adapters/web/routes.js";
import { VisitorIdentity } from "../../../adapters/web/visitor-identity.js";
import { VisitorLimits } from "../../../adapters/web/visitor-limits.js";
import { readWidgetScript } from "../../../adapters/web/widget-bundle.js";
import type { InboundMessage, InboundSink } from "../../../src/bridge/inbound.js";
import { createBridgeMetrics } from "../../../src/bridge/metrics.js";
import { openMemoryStore } from "../../../src/bridge/store/memory-store.js";
import type { ChatbotSettings } from "../../../src/client/index.js";
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

/** A bridge that takes every message, and the messages it took. */
function recording(): { sink: InboundSink; accepted: InboundMessage[] } {
  const accepted: InboundMessage[] = [];
  const sink: InboundSink = {
    accept: async (message) => {
      accepted.push(message);
      return "accepted";
    },
    cancel: () => {},
  };
  return { sink, accepted };
}

/** The key visitors' identities are signed with here, and visitors' tokens under it. */
const identity = new VisitorIdentity(Buffer.alloc(32, 7));
const token = (id: string) => identity.tokenOf(id);
const VISITOR = "visitor-123-abcdef";

/** The chatbot behind the web chat, with settings a test can change as an `Edit` would. */
function chatbotWith(settings: ChatbotSettings | undefined = {}) {
  const view = { serialNumber: "sn-homes", current: settings, settings: async () => view.current };
  return view;
}

async function serve(
  sink: InboundSink,
  channel = new WebChannel(openMemoryStore("test").visitorEvents),
  options: Partial<WebChatRoutesOptions> = {},
): Promise<string> {
  const app = express();
  // The default limits, but room for streams: a test opens the next before the server has seen the last one close.
  const settings = parseWebChatLimits("streams=20,20");
  const limits = new VisitorLimits(openMemoryStore("test"), settings, createBridgeMetrics().webLimited);
  const defaults = { title: "Test", chatbot: chatbotWith(), widget: undefined, identity, limits };
  app.use(webChatRoutes(channel, sink, { ...defaults, ...options }));
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
    const { sink, accepted } = recording();
    const base = await serve(sink);
    const res = await post(base, { visitorId: token(VISITOR), messageId: "m1", text: "  hello  " });
    expect(res.status).toBe(202);
    expect(accepted).toHaveLength(1);
    expect(accepted[0]).toMatchObject({
      channel: "web",
      botId: "default",
      eventId: `${VISITOR}:m1`,
      target: { chatId: VISITOR, isGroup: false },
      user: { id: VISITOR },
      text: "hello",
    });
  });

  it("takes a request for a person with the visitor's contact, as the user's handle and link", async () => {
    const { sink, accepted } = recording();
    const base = await serve(sink);
    const ask = (messageId: string, contact: string) =>
      post(base, { visitorId: token(VISITOR), messageId, text: "/human", contact });
    expect((await ask("h1", " ana@example.com ")).status).toBe(202);
    expect((await ask("h2", "+1 (512) 555-0100")).status).toBe(202);
    expect((await ask("h3", "0612 34 56 78")).status).toBe(202);
    expect(accepted.map((message) => message.user)).toEqual([
      { id: VISITOR, handle: "ana@example.com", link: "mailto:ana@example.com" },
      { id: VISITOR, handle: "+1 (512) 555-0100", link: "tel:+15125550100" },
      { id: VISITOR, handle: "0612 34 56 78", link: "tel:0612345678" },
    ]);
    for (const contact of ["ana", "12345", "call me maybe", "+1 555"]) {
      const refused = await ask(`bad-${contact.length}`, contact);
      expect(refused.status).toBe(400);
      expect(await refused.json()).toEqual({ error: "contact must be an e-mail address or a phone number" });
    }
  });

  it("keeps what the visitor said in their history, commands aside, and a new conversation as a reset", async () => {
    const base = await serve(nobody);
    await post(base, { visitorId: token("visitor-history-1"), messageId: "a1", text: "/start" });
    await post(base, { visitorId: token("visitor-history-1"), messageId: "a2", text: "  lofts near the park " });
    await post(base, {
      visitorId: token("visitor-history-1"),
      messageId: "a3",
      text: "/human",
      contact: "ana@example.com",
    });
    await post(base, { visitorId: token("visitor-history-1"), messageId: "a4", text: "/reset" });
    const page = await openWebChatStream(base, token("visitor-history-1"));
    try {
      await until(() => (page.events.length >= 3 ? true : undefined));
      expect(
        page.events.map(({ type, messageId, from, text, html }) => ({ type, messageId, from, text, html })),
      ).toEqual([
        {
          type: "message",
          messageId: "v-a2",
          from: "visitor",
          text: "lofts near the park",
          html: "lofts near the park",
        },
        {
          type: "message",
          messageId: "v-a3",
          from: "visitor",
          text: "Asked for a person: ana@example.com",
          html: "Asked for a person: ana@example.com",
        },
        { type: "reset", messageId: "v-a4", from: undefined, text: undefined, html: undefined },
      ]);
    } finally {
      await page.close();
    }
  });

  it("answers 400 naming the field, and 503 when the bridge cannot take the message", async () => {
    const base = await serve({
      accept: async () => {
        throw new Error("store down");
      },
      cancel: () => {},
    });
    const empty = await post(base, { visitorId: token(VISITOR), messageId: "m1", text: "   " });
    expect(empty.status).toBe(400);
    expect(await empty.json()).toEqual({ error: "text must not be empty" });
    const down = await post(base, { visitorId: token(VISITOR), messageId: "m2", text: "hi" });
    expect(down.status).toBe(503);
    expect(await down.json()).toEqual({ status: "unavailable" });
    expect((await fetch(`${base}/webchat/events?visitor=bad`)).status).toBe(400);
  });

  it("replays from Last-Event-ID, and from the start when the header is not an event id", async () => {
    const channel = new WebChannel(openMemoryStore("test").visitorEvents);
    const base = await serve(nobody, channel);
    const target = { chatId: VISITOR, isGroup: false };
    await channel.send(target, { text: "first", format: "plain" });
    await channel.send(target, { text: "second", format: "plain" });
    const all = await openWebChatStream(base, token(VISITOR));
    await until(() => (all.events.length === 2 ? true : undefined));
    const firstId = all.events[0]?.id;
    const resumed = await openWebChatStream(base, token(VISITOR), firstId);
    await until(() => (resumed.events.length > 0 ? true : undefined));
    expect(resumed.events.map((event) => event.text)).toEqual(["second"]);
    for (const header of ["garbage", "-5", "1.5"]) {
      const response = await fetch(`${base}/webchat/events?visitor=${token(VISITOR)}`, {
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

describe("the widget's endpoints", () => {
  const settingsOf = async (base: string, origin?: string, chatbot = "sn-homes") =>
    fetch(`${base}/webchat/widget?chatbot=${chatbot}`, { headers: origin ? { origin } : {} });

  it("gives the widget its settings from the chatbot's, to pages of any origin, fresh within seconds", async () => {
    const chatbot = chatbotWith({ Name: "Harbor Homes", ChatBubbleColor: "rgb(250, 204, 21)", ChatBubbleAlign: 1 });
    const base = await serve(nobody, undefined, { chatbot });
    const answer = await settingsOf(base, "https://agency.example");
    expect(answer.status).toBe(200);
    expect(answer.headers.get("access-control-allow-origin")).toBe("https://agency.example");
    expect(answer.headers.get("vary")).toContain("Origin");
    expect(answer.headers.get("cache-control")).toBe("private, max-age=5");
    expect(await answer.json()).toMatchObject({
      chatbot: "sn-homes",
      name: "Harbor Homes",
      align: "left",
      // Yellow takes dark text: white on it would read at 1.6:1.
      colors: { bot: { background: "rgb(250,204,21)", text: "rgb(17,24,39)" } },
    });
    chatbot.current = { Name: "Harbor & Pine" };
    expect(await (await settingsOf(base)).json()).toMatchObject({ name: "Harbor & Pine", align: "right" });
    expect((await settingsOf(base, undefined, "another")).status).toBe(404);
  });

  it("refuses pages of origins the chatbot's Domains do not admit, on every endpoint, in words", async () => {
    const chatbot = chatbotWith({ VerifyDomain: true, Domains: "https://agency.example, homes.example.org" });
    const { sink, accepted } = recording();
    const base = await serve(sink, undefined, { chatbot });
    const refused = await settingsOf(base, "https://copycat.example");
    expect(refused.status).toBe(403);
    expect(await refused.json()).toEqual({
      error:
        "this chatbot's widget is not enabled on https://copycat.example: add its domain to the chatbot's Domains, or turn VerifyDomain off",
    });
    const message = { visitorId: token(VISITOR), messageId: "m1", text: "hi", chatbot: "sn-homes" };
    const posted = await fetch(`${base}/webchat/messages`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: "https://copycat.example" },
      body: JSON.stringify(message),
    });
    expect(posted.status).toBe(403);
    expect(accepted).toEqual([]);
    const events = await fetch(`${base}/webchat/events?visitor=${token(VISITOR)}`, {
      headers: { origin: "https://copycat.example" },
    });
    expect(events.status).toBe(403);
    // Listed domains and their subdomains are admitted; so is a request with no Origin (not another site's page).
    for (const origin of ["https://agency.example", "https://www.homes.example.org", undefined]) {
      expect((await settingsOf(base, origin)).status).toBe(200);
    }
    const preflight = await fetch(`${base}/webchat/messages`, {
      method: "OPTIONS",
      headers: { origin: "https://agency.example", "access-control-request-method": "POST" },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-headers")).toContain("content-type");
  });

  it("serves the widget's script gzipped with an ETag to any page, and says when it was not built", async () => {
    const widget = readWidgetScript();
    expect(widget).toBeDefined();
    const base = await serve(nobody, undefined, { widget });
    const script = await fetch(`${base}/widget.js`, { headers: { "accept-encoding": "gzip" } });
    expect(script.status).toBe(200);
    expect(script.headers.get("content-encoding")).toBe("gzip");
    expect(script.headers.get("access-control-allow-origin")).toBe("*");
    expect(Buffer.from(await script.arrayBuffer()).equals(widget?.code as Buffer)).toBe(true);
    const again = await fetch(`${base}/widget.js`, { headers: { "if-none-match": script.headers.get("etag") ?? "" } });
    expect(again.status).toBe(304);
    server?.closeAllConnections();
    server?.close();
    const unbuilt = await serve(nobody);
    const missing = await fetch(`${unbuilt}/widget.js`);
    expect(missing.status).toBe(503);
    expect(await missing.text()).toContain("run npm run build");
  });

  it("issues visitors' identities, and refuses a token it did not sign, reading and writing nothing", async () => {
    const { sink, accepted } = recording();
    const base = await serve(sink);
    const issued = await fetch(`${base}/webchat/visitors`, { method: "POST" });
    expect(issued.status).toBe(201);
    const { visitor } = (await issued.json()) as { visitor: string };
    const id = visitor.slice(0, visitor.indexOf("."));
    expect(identity.verify(visitor)).toBe(id);
    // Another visitor's id with a signature of one's own making: the right shape, not this bridge's.
    const forged = `${VISITOR}.${"A".repeat(43)}`;
    const otherKey = new VisitorIdentity(Buffer.alloc(32, 8)).tokenOf(VISITOR);
    for (const token of [forged, otherKey]) {
      const posted = await post(base, { visitorId: token, messageId: "f1", text: "hi" });
      expect(posted.status).toBe(403);
      expect(await posted.json()).toEqual({
        error: "this visitor token was not issued by this bridge: get one from POST /webchat/visitors",
      });
      expect((await fetch(`${base}/webchat/events?visitor=${encodeURIComponent(token)}`)).status).toBe(403);
    }
    expect(accepted).toEqual([]);
    expect((await post(base, { visitorId: visitor, messageId: "ok", text: "hi" })).status).toBe(202);
    expect(accepted.map((message) => message.user.id)).toEqual([id]);
  });
});
