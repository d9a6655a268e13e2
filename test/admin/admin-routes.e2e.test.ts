import { createServer, type Server } from "node:http";
import express from "express";
import { afterEach, describe, expect, it } from "vitest";
import { adminRoutes } from "../../src/admin/admin-routes.js";
import { createBridgeMetrics } from "../../src/bridge/metrics.js";
import { openBridgeStore } from "../../src/bridge/store/open-bridge-store.js";
import { createLogger } from "../../src/common/log.js";
import { HandoffDesk } from "../../src/features/handoff/handoff-desk.js";
import { handoffMetrics } from "../../src/features/handoff/handoff-metrics.js";
import { closeServer, listenOnLoopback, loopbackUrl } from "../support/loopback-server.js";

const TOKEN = "a-long-admin-token-0123";
const servers: Server[] = [];

afterEach(async () => {
  await Promise.all(servers.splice(0).map(closeServer));
});

async function serve(token: string | undefined): Promise<string> {
  const store = await openBridgeStore({ url: "memory://", dataDir: "/tmp" });
  const desk: HandoffDesk = new HandoffDesk({
    keyv: store.keyv,
    sets: store.sets,
    // As the conversation's holder would, at once.
    schedule: (place, action) => desk.handle(place.conversation, action, new AbortController().signal),
    outbox: undefined,
    timeoutMs: 60_000,
    log: createLogger("silent"),
    metrics: handoffMetrics(createBridgeMetrics().registry),
    notify: async () => undefined,
  });
  const app = express();
  app.use(adminRoutes(desk, token));
  const server = createServer(app);
  servers.push(server);
  await listenOnLoopback(server);
  return loopbackUrl(server);
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}`, "content-type": "application/json" });

describe("admin endpoints", () => {
  it("do not exist without ADMIN_TOKEN", async () => {
    const url = await serve(undefined);
    expect((await fetch(`${url}/admin/handoffs`, { headers: bearer("") })).status).toBe(404);
  });

  it("refuse a missing or wrong token with 401, and take the right one", async () => {
    const url = await serve(TOKEN);
    expect((await fetch(`${url}/admin/handoffs`)).status).toBe(401);
    expect((await fetch(`${url}/admin/handoffs`, { headers: bearer(`${TOKEN}x`) })).status).toBe(401);
    const ok = await fetch(`${url}/admin/handoffs`, { headers: bearer(TOKEN) });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ handoffs: [] });
  });

  it("say what a resume request must hold, and when there is nothing to resume", async () => {
    const url = await serve(TOKEN);
    const post = (body: string) =>
      fetch(`${url}/admin/handoffs/resume`, { method: "POST", headers: bearer(TOKEN), body });
    const bad = await post("{}");
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: string }).error).toContain('"conversation"');
    const none = await post(JSON.stringify({ conversation: "telegram:default:1" }));
    expect(none.status).toBe(404);
  });
});
