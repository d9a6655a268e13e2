import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import express from "express";
import { afterEach, describe, expect, it } from "vitest";
import { parseWebChatLimits } from "../../../adapters/web/limit-settings.js";
import { WebChannel } from "../../../adapters/web/outbound.js";
import { PrivacyConsents } from "../../../adapters/web/privacy-consents.js";
import { type WebChatRoutesOptions, webChatRoutes } from "../../../adapters/web/routes.js";
import { VisitorFiles } from "../../../adapters/web/visitor-files.js";
import { VisitorIdentity } from "../../../adapters/web/visitor-identity.js";
import { VisitorLimits } from "../../../adapters/web/visitor-limits.js";
import { webLimitedCounter } from "../../../adapters/web/web-metrics.js";
import { readWidgetScript } from "../../../adapters/web/widget-bundle.js";
import type { InboundMessage, InboundSink } from "../../../src/bridge/inbound.js";
import { createBridgeMetrics } from "../../../src/bridge/metrics.js";
import { openMemoryStore } from "../../../src/bridge/store/memory-store.js";
import type { ChatbotSettings, PictureKind } from "../../../src/client/index.js";
import { png } from "../../support/media-fixtures.js";
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
  const limits = new VisitorLimits(
    openMemoryStore("test"),
    settings,
    webLimitedCounter(createBridgeMetrics().registry),
  );
  const consents = new PrivacyConsents(openMemoryStore("consents").keyv);
  const defaults = { title: "Test", chatbot: chatbotWith(), widget: undefined, identity, limits, consents };
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

  it("takes a tap on a listing card's button as its card action, and refuses an id that is not one", async () => {
    const { sink, accepted } = recording();
    const base = await serve(sink);
    const tap = { visitorId: token(VISITOR), messageId: "t1", cardAction: "card:viewing:TX-1001" };
    expect((await post(base, tap)).status).toBe(202);
    expect(accepted[0]).toMatchObject({
      eventId: `${VISITOR}:t1`,
      text: "Book a viewing of MLS TX-1001",
      button: "card:viewing:TX-1001",
    });
    for (const cardAction of ["card:tour:TX-1001", "card:viewing:", 42]) {
      const res = await post(base, { ...tap, messageId: "t2", cardAction });
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: string }).error).toMatch(/^cardAction /);
    }
    expect(accepted).toHaveLength(1);
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

  it("serves the chatbot's pictures to pages of any origin it admits, with their type and cache headers", async () => {
    const avatar = png(2, 2);
    const asked: string[] = [];
    const chatbot = {
      ...chatbotWith({ VerifyDomain: true, Domains: "agency.example" }),
      picture: async (kind: PictureKind) => {
        asked.push(kind);
        return kind === "profile" ? { bytes: avatar, contentType: "image/png", etag: '"abc"' } : undefined;
      },
    };
    const base = await serve(nobody, undefined, { chatbot });
    const picture = (path: string, headers: Record<string, string> = {}) => fetch(`${base}${path}`, { headers });
    const served = await picture("/webchat/picture/profile?chatbot=sn-homes&v=7", { origin: "https://agency.example" });
    expect(served.status).toBe(200);
    expect(served.headers.get("content-type")).toBe("image/png");
    expect(served.headers.get("cross-origin-resource-policy")).toBe("cross-origin");
    expect(served.headers.get("cache-control")).toBe("public, max-age=300");
    expect(served.headers.get("x-content-type-options")).toBe("nosniff");
    expect(served.headers.get("etag")).toBe('"abc"');
    expect(served.headers.get("access-control-allow-origin")).toBe("https://agency.example");
    expect(Buffer.from(await served.arrayBuffer()).equals(avatar)).toBe(true);
    // An <img> sends no Origin; the browser's copy is confirmed with a 304.
    expect((await picture("/webchat/picture/profile?v=7", { "if-none-match": '"abc"' })).status).toBe(304);
    const none = await picture("/webchat/picture/icon?chatbot=sn-homes&v=7");
    expect(none.status).toBe(404);
    expect(await none.json()).toEqual({ error: "this chatbot has no icon picture file" });
    expect((await picture("/webchat/picture/banner?chatbot=sn-homes")).status).toBe(404);
    expect((await picture("/webchat/picture/profile?chatbot=another")).status).toBe(404);
    expect((await picture("/webchat/picture/profile", { origin: "https://copycat.example" })).status).toBe(403);
    expect(asked).toEqual(["profile", "profile", "icon"]);
    // Where the bridge's view of the chatbot has no pictures (none to ask for), there is none either.
    server?.closeAllConnections();
    server?.close();
    const plain = await serve(nobody);
    expect((await fetch(`${plain}/webchat/picture/profile`)).status).toBe(404);
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

describe("web chat uploads", () => {
  const PNG = Buffer.from(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000" +
      "1f15c4890000000d49444154789c6360f8cfc0f01f0005000201e0a3ce5d0000000049454e44ae426082",
    "hex",
  );
  /** A web channel that keeps uploads, its store, and routes for a chatbot with the given switches. */
  async function serveUploads(settings: ChatbotSettings, sink: InboundSink = nobody) {
    const store = openMemoryStore("uploads");
    const channel = new WebChannel(store.visitorEvents, "default", { files: new VisitorFiles(store.keyv) });
    const base = await serve(sink, channel, { chatbot: chatbotWith(settings) });
    return { base, channel };
  }
  const upload = (base: string, visitor: string, body: Buffer, type = "image/png") =>
    fetch(`${base}/webchat/uploads?visitor=${encodeURIComponent(token(visitor))}`, {
      method: "POST",
      headers: { "content-type": type },
      body,
    });

  it("keeps a photo for the visitor and sends it with their message as a media item the channel downloads", async () => {
    const { sink, accepted } = recording();
    const { base, channel } = await serveUploads({ EnableUploadImage: true }, sink);
    const first = await upload(base, VISITOR, PNG);
    expect(first.status).toBe(201);
    const { file, kind, sizeBytes } = (await first.json()) as { file: string; kind: string; sizeBytes: number };
    expect({ kind, sizeBytes }).toEqual({ kind: "image", sizeBytes: PNG.length });
    const second = (await (await upload(base, VISITOR, PNG)).json()) as { file: string };
    const res = await post(base, { visitorId: token(VISITOR), messageId: "p1", text: "", files: [file, second.file] });
    expect(res.status).toBe(202);
    expect(accepted[0]?.text).toBe("");
    expect(accepted[0]?.media).toEqual([
      { kind: "image", platformId: `${VISITOR}/${file}`, mimeType: "image/png", sizeBytes: PNG.length },
      { kind: "image", platformId: `${VISITOR}/${second.file}`, mimeType: "image/png", sizeBytes: PNG.length },
    ]);
    const media = accepted[0]?.media[0];
    if (!media) throw new Error("no media");
    const signal = new AbortController().signal;
    expect(Buffer.from(await channel.download(media, { signal, maxBytes: 1024 }))).toEqual(PNG);
    await expect(channel.download(media, { signal, maxBytes: 10 })).rejects.toThrow(/over 10/);
    // The history names the files, so a reload shows them.
    const page = await openWebChatStream(base, token(VISITOR));
    try {
      await until(() => (page.events.length >= 1 ? true : undefined));
      expect(page.events[0]).toMatchObject({ messageId: "v-p1", from: "visitor" });
    } finally {
      await page.close();
    }
  });

  it("refuses what the chatbot does not take, another visitor's file, and bodies that are empty or too large", async () => {
    const { sink, accepted } = recording();
    const { base } = await serveUploads({ EnableUploadImage: true, EnablePushToTalk: false }, sink);
    const voice = await upload(base, VISITOR, PNG, "audio/wav");
    expect(voice.status).toBe(403);
    expect(await voice.json()).toEqual({ error: "this chatbot does not take voice messages (EnablePushToTalk)" });
    const pdf = await upload(base, VISITOR, PNG, "application/pdf");
    expect(pdf.status).toBe(415);
    expect((await upload(base, VISITOR, Buffer.alloc(0))).status).toBe(400);
    const huge = await upload(base, VISITOR, Buffer.alloc(20 * 1024 * 1024 + 1));
    expect(huge.status).toBe(413);
    const forged = await fetch(`${base}/webchat/uploads?visitor=${"a".repeat(20)}.${"b".repeat(43)}`, {
      method: "POST",
      headers: { "content-type": "image/png" },
      body: PNG,
    });
    expect(forged.status).toBe(403);
    // Ana's file cannot be sent by Bob.
    const { file } = (await (await upload(base, "visitor-ana-0001", PNG)).json()) as { file: string };
    const theft = await post(base, { visitorId: token("visitor-bob-0001"), messageId: "t1", text: "", files: [file] });
    expect(theft.status).toBe(400);
    expect(await theft.json()).toEqual({ error: "files.0 is not a file this visitor uploaded in the last day" });
    const bogus = await post(base, { visitorId: token(VISITOR), messageId: "t2", text: "hi", files: ["../etc"] });
    expect(bogus.status).toBe(400);
    expect(accepted).toEqual([]);
    const photosOff = await serveUploads({ EnableUploadImage: false });
    expect((await upload(photosOff.base, VISITOR, PNG)).status).toBe(403);
  });
});

describe("web chat privacy consent", () => {
  const POLICY = { ChatbotPrivacyPolicyName: "Privacy notice", ChatbotPrivacyPolicyUrl: "https://agency.example/p" };
  const consent = (base: string, visitor: string) =>
    fetch(`${base}/webchat/consent`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: "https://agency.example" },
      body: JSON.stringify({ visitorId: token(visitor) }),
    });

  it("takes messages only from visitors who accepted the policy in force, and records what they accepted", async () => {
    const { sink, accepted } = recording();
    const chatbot = chatbotWith(POLICY);
    const consents = new PrivacyConsents(openMemoryStore("consent-test").keyv);
    const base = await serve(sink, undefined, { chatbot, consents });
    const before = await post(base, { visitorId: token(VISITOR), messageId: "c1", text: "hello" });
    expect(before.status).toBe(403);
    expect(await before.json()).toEqual({
      error: 'the visitor has not accepted the privacy policy "Privacy notice": POST /webchat/consent first',
    });
    expect(accepted).toEqual([]);
    const given = await consent(base, VISITOR);
    expect(given.status).toBe(201);
    const record = await consents.find(VISITOR);
    expect(record).toMatchObject({
      policy: { name: "Privacy notice", url: "https://agency.example/p" },
      origin: "https://agency.example",
    });
    expect(Date.now() - Date.parse(record?.at ?? "")).toBeLessThan(5_000);
    expect((await post(base, { visitorId: token(VISITOR), messageId: "c2", text: "hello" })).status).toBe(202);
    expect(accepted.map((message) => message.text)).toEqual(["hello"]);
    // A new policy (another address) is accepted again before the next message.
    chatbot.current = { ...POLICY, ChatbotPrivacyPolicyUrl: "https://agency.example/p2" };
    expect((await post(base, { visitorId: token(VISITOR), messageId: "c3", text: "again" })).status).toBe(403);
    expect((await consent(base, VISITOR)).status).toBe(201);
    expect((await post(base, { visitorId: token(VISITOR), messageId: "c4", text: "again" })).status).toBe(202);
    // Without a policy there is nothing to accept.
    chatbot.current = {};
    expect((await consent(base, VISITOR)).status).toBe(404);
  });
});
