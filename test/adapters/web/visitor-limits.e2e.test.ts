import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import express, { type Express, type Request } from "express";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { clientAddress } from "../../../adapters/web/client-address.js";
import {
  DEFAULT_WEB_CHAT_LIMITS,
  DEFAULT_WEB_CHAT_LIMITS_TEXT,
  parseWebChatLimits,
} from "../../../adapters/web/limit-settings.js";
import { WebChannel } from "../../../adapters/web/outbound.js";
import { PrivacyConsents } from "../../../adapters/web/privacy-consents.js";
import { webChatRoutes } from "../../../adapters/web/routes.js";
import { VisitorFiles } from "../../../adapters/web/visitor-files.js";
import { VisitorIdentity } from "../../../adapters/web/visitor-identity.js";
import { VisitorLimits } from "../../../adapters/web/visitor-limits.js";
import { webLimitedCounter } from "../../../adapters/web/web-metrics.js";
import type { RunningBridge } from "../../../src/app/bridge-app.js";
import type { InboundMessage, InboundSink } from "../../../src/bridge/inbound.js";
import { type BridgeMetrics, createBridgeMetrics } from "../../../src/bridge/metrics.js";
import type { BridgeStore } from "../../../src/bridge/store/bridge-store.js";
import { openMemoryStore } from "../../../src/bridge/store/memory-store.js";
import { openRedisStore } from "../../../src/bridge/store/redis-store.js";
import type { ChatbotSettings } from "../../../src/client/index.js";
import { startBridgeUnderTest } from "../../support/bridge-under-test.js";
import { deleteRedisKeys, freshRedisNamespace, redisForTests, TEST_REDIS_URL } from "../../support/redis.js";
import { until } from "../../support/waiting.js";
import { openWebChatStream } from "../../support/web-chat-stream.js";
import { ScriptedChatbot } from "../../upstream/scripted-chatbot.js";

const redis = await redisForTests();

/** Small budgets, so that each test goes over them in a few requests. */
const LIMITS = parseWebChatLimits("messages=3/1m,5/1m identities=2/1h uploads=2/10m,3/10m streams=2,3");

const identity = new VisitorIdentity(Buffer.alloc(32, 9));
const token = (id: string) => identity.tokenOf(id);

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** A bridge that takes every message, and the messages it took. */
function recording(): { sink: InboundSink; accepted: InboundMessage[] } {
  const accepted: InboundMessage[] = [];
  return {
    accepted,
    sink: {
      accept: async (message) => {
        accepted.push(message);
        return "accepted";
      },
      cancel: () => {},
    },
  };
}

interface Instance {
  base: string;
  accepted: InboundMessage[];
  metrics: BridgeMetrics;
  limits: VisitorLimits;
}

/**
 * The web chat's routes on a loopback port, as one instance of the bridge on `store`. The proxy in front of it is
 * the tests' own loopback (`trust proxy`), so a request says which client address it is from in X-Forwarded-For.
 */
async function serve(
  store: BridgeStore = openMemoryStore("test"),
  configure: (app: Express) => void = (app) => app.set("trust proxy", "loopback"),
  settings: ChatbotSettings = {},
): Promise<Instance> {
  const { sink, accepted } = recording();
  const metrics = createBridgeMetrics();
  const limits = new VisitorLimits(store, LIMITS, webLimitedCounter(metrics.registry));
  const chatbot = { serialNumber: "sn-homes", settings: async () => settings };
  const app = express();
  configure(app);
  app.use(
    webChatRoutes(new WebChannel(store.visitorEvents, "default", { files: new VisitorFiles(store.keyv) }), sink, {
      title: "Test",
      chatbot,
      widget: undefined,
      identity,
      limits,
      consents: new PrivacyConsents(store.keyv),
    }),
  );
  const server = app.listen(0, "127.0.0.1");
  servers.push(server);
  await new Promise((resolve) => server.once("listening", resolve));
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, accepted, metrics, limits };
}

const from = (ip: string | undefined): Record<string, string> => (ip ? { "x-forwarded-for": ip } : {});

const post = (base: string, visitor: string, messageId: string, ip?: string) =>
  fetch(`${base}/webchat/messages`, {
    method: "POST",
    headers: { "content-type": "application/json", ...from(ip) },
    body: JSON.stringify({ visitorId: token(visitor), messageId, text: `message ${messageId}` }),
  });

/** A refusal's status, Retry-After and body. */
async function refusal(response: Response) {
  return {
    status: response.status,
    retryAfter: Number(response.headers.get("retry-after")),
    body: (await response.json()) as { error: string; retryAfterSeconds?: number },
  };
}

/** How many refusals the counter holds for a kind and scope. */
async function refused(metrics: BridgeMetrics, kind: string, scope: string): Promise<number> {
  const { values } = await webLimitedCounter(metrics.registry).get();
  return values.find((value) => value.labels.kind === kind && value.labels.scope === scope)?.value ?? 0;
}

/** An event stream as a page opens it: its status, and how to close it. */
async function openStream(base: string, visitor: string, ip?: string) {
  const controller = new AbortController();
  const response = await fetch(`${base}/webchat/events?visitor=${token(visitor)}`, {
    headers: { accept: "text/event-stream", ...from(ip) },
    signal: controller.signal,
  });
  return {
    status: response.status,
    body: response.status === 200 ? undefined : ((await response.json()) as { error: string }),
    close: () => controller.abort(),
  };
}

describe("the web chat's limits per visitor and per address", () => {
  it("refuses a visitor's messages over their budget with 429, Retry-After and the wait, taking nothing", async () => {
    const instance = await serve();
    for (const id of ["m1", "m2", "m3"])
      expect((await post(instance.base, "visitor-aaaaaaaaaaaa", id)).status).toBe(202);
    const over = await refusal(await post(instance.base, "visitor-aaaaaaaaaaaa", "m4"));
    expect(over.status).toBe(429);
    expect(over.retryAfter).toBeGreaterThanOrEqual(1);
    expect(over.retryAfter).toBeLessThanOrEqual(60);
    expect(over.body).toEqual({
      error: `too many messages from this visitor: you can send again in ${over.retryAfter} s`,
      retryAfterSeconds: over.retryAfter,
    });
    // Neither handed to the bridge nor kept in the visitor's history.
    expect(instance.accepted.map((message) => message.text)).toEqual(["message m1", "message m2", "message m3"]);
    const page = await openWebChatStream(instance.base, token("visitor-aaaaaaaaaaaa"));
    await until(() => (page.events.length >= 3 ? true : undefined));
    await sleep(100);
    expect(page.events.map((event) => event.messageId)).toEqual(["v-m1", "v-m2", "v-m3"]);
    await page.close();
    expect(await refused(instance.metrics, "message", "visitor")).toBe(1);
  });

  it("limits every visitor of one address by the address's budget, and not those of another address", async () => {
    const instance = await serve();
    for (const id of ["a1", "a2", "a3"])
      expect((await post(instance.base, "visitor-bbbbbbbbbbbb", id)).status).toBe(202);
    for (const id of ["b1", "b2"]) expect((await post(instance.base, "visitor-cccccccccccc", id)).status).toBe(202);
    // A new visitor (a new identity) from the same address: the address has spent its 5.
    const over = await refusal(await post(instance.base, "visitor-dddddddddddd", "d1"));
    expect(over.status).toBe(429);
    expect(over.body.error).toBe(`too many messages from this address: you can send again in ${over.retryAfter} s`);
    expect((await post(instance.base, "visitor-dddddddddddd", "d2", "203.0.113.7")).status).toBe(202);
    expect(instance.accepted).toHaveLength(6);
    expect(await refused(instance.metrics, "message", "ip")).toBe(1);
  });

  it("takes the address from the connection, not X-Forwarded-For, unless the proxy is trusted", async () => {
    const instance = await serve(openMemoryStore("test"), () => {});
    for (const [n, ip] of ["198.51.100.1", "198.51.100.2", "198.51.100.3", "198.51.100.4", "198.51.100.5"].entries()) {
      expect((await post(instance.base, `visitor-eeeeeeeeeee${n}`, "e", ip)).status).toBe(202);
    }
    expect((await post(instance.base, "visitor-eeeeeeeeeee9", "e", "198.51.100.6")).status).toBe(429);
  });

  it("issues so many identities per address, then refuses with the wait", async () => {
    const instance = await serve();
    const ask = (ip?: string) => fetch(`${instance.base}/webchat/visitors`, { method: "POST", headers: from(ip) });
    expect((await ask()).status).toBe(201);
    expect((await ask()).status).toBe(201);
    const over = await refusal(await ask());
    expect(over.status).toBe(429);
    expect(over.retryAfter).toBeGreaterThan(3500);
    expect(over.body).toEqual({
      error: `too many new visitors from this address: you can start a chat again in ${Math.ceil(over.retryAfter / 60)} min`,
      retryAfterSeconds: over.retryAfter,
    });
    expect((await ask("2001:db8:5:6::1")).status).toBe(201);
    // The same /64: one host's addresses.
    expect((await ask("2001:db8:5:6:ffff::2")).status).toBe(201);
    expect((await ask("2001:db8:5:6:abcd::3")).status).toBe(429);
    expect(await refused(instance.metrics, "identity", "ip")).toBe(2);
  });

  it("limits uploads per visitor and per address before their bodies are read", async () => {
    const instance = await serve(undefined, undefined, { EnableUploadImage: true });
    const upload = (visitor: string, ip?: string) =>
      fetch(`${instance.base}/webchat/uploads?visitor=${encodeURIComponent(token(visitor))}`, {
        method: "POST",
        headers: { ...from(ip), "content-type": "image/png" },
        body: new Uint8Array([137, 80, 78, 71]),
      });
    expect([(await upload("visitor-up-000001")).status, (await upload("visitor-up-000001")).status]).toEqual([
      201, 201,
    ]);
    const over = await refusal(await upload("visitor-up-000001"));
    expect(over).toMatchObject({ status: 429, body: { retryAfterSeconds: over.retryAfter } });
    expect(over.body.error).toBe(
      `too many uploads from this visitor: you can upload again in ${Math.ceil(over.retryAfter / 60)} min`,
    );
    // The address has spent 3 of its 3 (the refused one counts): another visitor there is refused too.
    expect((await refusal(await upload("visitor-up-000002"))).body.error).toMatch(
      /^too many uploads from this address/,
    );
    expect((await upload("visitor-up-000002", "192.0.2.4")).status).toBe(201);
    expect(await refused(instance.metrics, "upload", "visitor")).toBe(1);
  });

  it("caps the streams open at once per visitor and per address, and a closed stream frees its slot", async () => {
    const instance = await serve();
    const first = await openStream(instance.base, "visitor-ffffffffffff");
    const second = await openStream(instance.base, "visitor-ffffffffffff");
    expect([first.status, second.status]).toEqual([200, 200]);
    const third = await openStream(instance.base, "visitor-ffffffffffff");
    expect(third).toMatchObject({
      status: 429,
      body: { error: "this visitor already has 2 chat streams open: close another tab of this chat and reload" },
    });
    // Another visitor from the same address takes the address's third and last slot.
    const other = await openStream(instance.base, "visitor-gggggggggggg");
    expect(other.status).toBe(200);
    const fourth = await openStream(instance.base, "visitor-hhhhhhhhhhhh");
    expect(fourth.body?.error).toBe(
      "this address already has 3 chat streams open: close another tab of this chat and reload",
    );
    const elsewhere = await openStream(instance.base, "visitor-hhhhhhhhhhhh", "203.0.113.8");
    expect(elsewhere.status).toBe(200);
    first.close();
    // The server sees the close a moment later; then the visitor may open one again.
    let again = await openStream(instance.base, "visitor-ffffffffffff");
    for (let attempt = 0; again.status !== 200 && attempt < 50; attempt++) {
      await sleep(50);
      again = await openStream(instance.base, "visitor-ffffffffffff");
    }
    expect(again.status).toBe(200);
    expect(await refused(instance.metrics, "stream", "visitor")).toBeGreaterThanOrEqual(1);
    expect(await refused(instance.metrics, "stream", "ip")).toBe(1);
    for (const stream of [second, other, elsewhere, again]) stream.close();
  });

  it("refuses a body on the endpoints that take none", async () => {
    const instance = await serve();
    const response = await fetch(`${instance.base}/webchat/visitors`, { method: "POST", body: "x".repeat(100_000) });
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({ error: "this endpoint takes no request body" });
  });

  it("reads WEB_CHAT_LIMITS: the defaults, a kind replaced, a budget off, and what it cannot read", () => {
    expect(parseWebChatLimits("")).toEqual(DEFAULT_WEB_CHAT_LIMITS);
    expect(parseWebChatLimits(DEFAULT_WEB_CHAT_LIMITS_TEXT)).toEqual(DEFAULT_WEB_CHAT_LIMITS);
    expect(parseWebChatLimits("messages=5/30s,off; streams=1,off")).toEqual({
      ...DEFAULT_WEB_CHAT_LIMITS,
      messages: { visitor: { points: 5, seconds: 30 }, ip: undefined },
      streams: { visitor: 1, ip: undefined },
    });
    expect(() => parseWebChatLimits("messages=5/1m")).toThrow(
      "messages takes two budgets, per visitor and per address, e.g. messages=20/1m,60/1m",
    );
    expect(() => parseWebChatLimits("identities=5/0m")).toThrow('"5/0m" is not a budget like 20/1m, 30/1h or off');
    expect(() => parseWebChatLimits("stream=3,20")).toThrow('"stream" is not one of messages, identities, uploads');
  });

  it("counts IPv4 through IPv6 as IPv4, and IPv6 by its /64", () => {
    const address = (ip: string) => clientAddress({ ip, socket: {} } as Request);
    expect(address("::ffff:192.0.2.1")).toBe("192.0.2.1");
    expect(address("192.0.2.1")).toBe("192.0.2.1");
    expect(address("2001:0db8:0001:0002:0003:4:5:6")).toBe("2001:db8:1:2::/64");
    expect(address("2001:db8::1")).toBe("2001:db8:0:0::/64");
    expect(address("::1")).toBe("0:0:0:0::/64");
    expect(address("fe80::1%eth0")).toBe("fe80:0:0:0::/64");
  });
});

describe("the limits in the running bridge", () => {
  let chatbot: ScriptedChatbot;
  let bridge: RunningBridge;
  beforeAll(async () => {
    chatbot = await ScriptedChatbot.start();
    bridge = await startBridgeUnderTest(chatbot, { TRUST_PROXY: "loopback", WEB_CHAT_LIMITS: "identities=1/1h" });
  });
  afterAll(async () => {
    await bridge?.close(1000);
    await chatbot?.close();
  });

  it("reads WEB_CHAT_LIMITS and TRUST_PROXY, and counts refusals in /metrics", async () => {
    const ask = (ip: string) => fetch(`${bridge.url}/webchat/visitors`, { method: "POST", headers: from(ip) });
    expect((await ask("198.51.100.20")).status).toBe(201);
    expect((await ask("198.51.100.20")).status).toBe(429);
    expect((await ask("198.51.100.21")).status).toBe(201);
    const metrics = await (await fetch(`${bridge.url}/metrics`)).text();
    expect(metrics).toContain('chatbridge_web_limited_total{kind="identity",scope="ip"} 1');
  });
});

describe.skipIf(!redis.available)("the limits on a Redis store", () => {
  const namespace = freshRedisNamespace();
  const stores: BridgeStore[] = [];
  afterAll(async () => {
    await Promise.all(stores.map((store) => store.close()));
    if (redis.available) await deleteRedisKeys(namespace);
  });

  it("are one budget for every instance on the store, kept under the namespace", async () => {
    for (let n = 0; n < 2; n++) stores.push(await openRedisStore(TEST_REDIS_URL, "redis", namespace));
    const [a, b] = await Promise.all(stores.map((store) => serve(store)));
    if (!a || !b) throw new Error("two instances expected");
    const visitor = "visitor-redis-shared-1";
    // 3 per visitor, whichever instance the messages reach.
    const statuses = [];
    for (const [n, instance] of [a, b, a, b].entries())
      statuses.push((await post(instance.base, visitor, `r${n}`)).status);
    expect(statuses).toEqual([202, 202, 202, 429]);
    expect(a.accepted.length + b.accepted.length).toBe(3);
    const client = stores[0]?.redis?.client;
    const keys = await client?.keys(`${namespace}:webchat-limit:*`);
    expect(keys?.sort()).toEqual([
      `${namespace}:webchat-limit:message-ip:127.0.0.1`,
      `${namespace}:webchat-limit:message-visitor:${visitor}`,
    ]);
    // A third instance started later spends from the same budget.
    const c = await serve(stores[0]);
    expect((await refusal(await post(c.base, visitor, "r9"))).status).toBe(429);
  });

  it("count in each instance's memory while Redis is away, rather than admitting everyone", async () => {
    const store = await openRedisStore(TEST_REDIS_URL, "redis", namespace);
    const instance = await serve(store);
    await store.close();
    const statuses = [];
    for (const id of ["x1", "x2", "x3", "x4"])
      statuses.push((await post(instance.base, "visitor-redis-away-1", id)).status);
    expect(statuses).toEqual([202, 202, 202, 429]);
  });
});
