import { mkdtempSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { run } from "../../src/cli/run.js";
import { TelegramEmulator } from "../emulators/telegram.js";
import { cliLines, spawnCli } from "../support/cli-process.js";
import { closeServer, listenOnLoopback } from "../support/loopback-server.js";
import { terminal } from "../support/terminal.js";
import { freePort, until } from "../support/waiting.js";
import { FakeChatbotApi, sendEnvelope } from "../upstream/fake-chatbot-api.js";

const dataDir = () => mkdtempSync(path.join(tmpdir(), "chatbridge-probe-"));

/** What a web server that is not the chatbot API answers: an HTML 404 page. */
const HTML_404 =
  "<!DOCTYPE html><html><head><title>404 Not Found</title></head><body><h1>Not Found</h1><p>The requested URL was not found on this server.</p></body></html>";

async function htmlServer(port = 0): Promise<Server> {
  const server = createServer((_req, res) => {
    res.writeHead(404, { "content-type": "text/html" }).end(HTML_404);
  });
  await listenOnLoopback(server, port);
  return server;
}

/** A chatbot API that knows the chatbot `bot-9` and accepts the key `sk-test`. */
async function workingApi(port = 0): Promise<FakeChatbotApi> {
  const api = await FakeChatbotApi.start(port);
  const refused = (authorization: string | string[] | undefined) => authorization !== "sk-test";
  api.route("GET", "/chat/Chatbot/ModelList", (req, res) =>
    refused(req.headers.authorization)
      ? sendEnvelope(res, null, { status: 401, message: "Invalid API key" })
      : sendEnvelope(res, [{ Key: "2", Value: "gpt-4o", Status: true }]),
  );
  api.route("POST", "/chat/Chatbot/ChatContentHistory", (req, res) =>
    (req.body as { SerialNumber?: string }).SerialNumber === "bot-9"
      ? sendEnvelope(res, [])
      : sendEnvelope(res, null, { status: 404, message: "Chatbot not found" }),
  );
  return api;
}

const chatbotEnv = (url: string) => ({
  CHATBOT_API_URL: url,
  CHATBOT_API_KEY: "sk-test",
  CHATBOT_SERIAL_NUMBER: "bot-9",
  STORE_URL: "memory://",
});

async function readiness(port: number): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`http://127.0.0.1:${port}/readyz`);
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** Polls /readyz until it answers 200 (the probe runs again when the last one is older than 5 s). */
async function readyAgain(port: number, ms = 15_000): Promise<Record<string, unknown>> {
  const deadline = Date.now() + ms;
  for (;;) {
    const { status, body } = await readiness(port);
    if (status === 200) return body;
    if (Date.now() > deadline) throw new Error(`still not ready: ${JSON.stringify(body)}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

describe("chatbridge start with a chatbot API that cannot be used", { concurrent: true, timeout: 60_000 }, () => {
  it("nothing listens: the banner says so, /readyz says why, and readiness follows once the API is up", async () => {
    const upstreamPort = await freePort();
    const port = await freePort();
    const bridge = spawnCli(["start"], {
      PORT: String(port),
      DATA_DIR: dataDir(),
      ...chatbotEnv(`http://127.0.0.1:${upstreamPort}`),
    });
    let api: FakeChatbotApi | undefined;
    try {
      await until(() => (bridge.stdout().includes("Open the web chat") ? true : undefined), 40_000);
      expect(bridge.stdout()).toContain(
        `  ✗ chatbot API: http://127.0.0.1:${upstreamPort} · chatbot bot-9 — connection refused; check CHATBOT_API_URL and that the chatbot API is up (retrying every 30 s)\n`,
      );
      const notReady = await readiness(port);
      expect(notReady.status).toBe(503);
      expect(notReady.body).toMatchObject({
        status: "not ready",
        store: "ok",
        upstream: `http://127.0.0.1:${upstreamPort} · chatbot bot-9: connection refused; check CHATBOT_API_URL and that the chatbot API is up`,
      });
      api = await workingApi(upstreamPort);
      expect(await readyAgain(port)).toMatchObject({ status: "ready", upstream: "ok" });
      await until(() => (bridge.stderr().includes("is reachable now") ? true : undefined));
      expect(bridge.stderr()).toContain(
        `chatbot API http://127.0.0.1:${upstreamPort} · chatbot bot-9 is reachable now`,
      );
      // The probe reads the models and tomorrow's (empty) history: it creates no session.
      expect(api.requestsTo("/chat/Chatbot/GetSession")).toHaveLength(0);
      bridge.child.kill("SIGTERM");
      expect((await bridge.exited).code).toBe(0);
    } finally {
      bridge.child.kill("SIGKILL");
      await api?.close();
    }
  });

  it("an HTML 404 page: the banner says the address is not the API's, without the HTML", async () => {
    const html = await htmlServer();
    const upstreamPort = (html.address() as { port: number }).port;
    const port = await freePort();
    const bridge = spawnCli(["start"], {
      PORT: String(port),
      DATA_DIR: dataDir(),
      ...chatbotEnv(`http://127.0.0.1:${upstreamPort}`),
    });
    let api: FakeChatbotApi | undefined;
    try {
      await until(() => (bridge.stdout().includes("Open the web chat") ? true : undefined), 40_000);
      const problem = `it answers HTTP 404 with an HTML page ("404 Not Found"), not the API's JSON; check that CHATBOT_API_URL is the API's base address (e.g. https://usapi.hottask.com, without /chat)`;
      expect(bridge.stdout()).toContain(
        `  ✗ chatbot API: http://127.0.0.1:${upstreamPort} · chatbot bot-9 — ${problem} (retrying every 30 s)\n`,
      );
      expect(bridge.stdout() + bridge.stderr()).not.toContain("<h1>");
      const notReady = await readiness(port);
      expect(notReady.status).toBe(503);
      expect(notReady.body.upstream).toBe(`http://127.0.0.1:${upstreamPort} · chatbot bot-9: ${problem}`);
      expect(notReady.body.chatbots).toEqual([
        {
          url: `http://127.0.0.1:${upstreamPort}`,
          chatbot: "bot-9",
          bots: ["default"],
          status: "failing",
          problem: `it answers HTTP 404 with an HTML page ("404 Not Found"), not the API's JSON`,
          fix: "check that CHATBOT_API_URL is the API's base address (e.g. https://usapi.hottask.com, without /chat)",
        },
      ]);
      await closeServer(html);
      api = await workingApi(upstreamPort);
      expect(await readyAgain(port)).toMatchObject({ status: "ready" });
      bridge.child.kill("SIGTERM");
      expect((await bridge.exited).code).toBe(0);
      expect(cliLines(bridge.stderr())).toEqual([]);
    } finally {
      bridge.child.kill("SIGKILL");
      if (html.listening) await closeServer(html);
      await api?.close();
    }
  });
});

/** `chatbridge start` in this process, until its banner; `stop` ends it as SIGTERM would. */
async function startInProcess(env: Record<string, string>) {
  const port = await freePort();
  const t = terminal({ PORT: String(port), DATA_DIR: dataDir(), LOG_LEVEL: "silent", ...env });
  const exit = run(["start"], t.io);
  const banner = await until(() => (t.out().includes("Open the web chat") ? t.out() : undefined), 20_000);
  return {
    port,
    banner,
    stop: async () => {
      t.io.signals.emit("terminate");
      expect(await exit).toBe(0);
    },
  };
}

describe("the start banner names the setting behind each chatbot's problem", () => {
  it("a key the API refuses: CHATBOT_API_KEY", async () => {
    const api = await workingApi();
    const bridge = await startInProcess({ ...chatbotEnv(api.url), CHATBOT_API_KEY: "sk-wrong" });
    try {
      expect(bridge.banner).toContain(
        `  ✗ chatbot API: ${api.url} · chatbot bot-9 — the secret key was refused (Invalid API key, 401); check CHATBOT_API_KEY (retrying every 30 s)`,
      );
      expect((await readiness(bridge.port)).status).toBe(503);
    } finally {
      await bridge.stop();
      await api.close();
    }
  });

  it("a chatbot the API does not know: CHATBOT_SERIAL_NUMBER", async () => {
    const api = await workingApi();
    const bridge = await startInProcess({ ...chatbotEnv(api.url), CHATBOT_SERIAL_NUMBER: "bot-404" });
    try {
      expect(bridge.banner).toContain(
        `  ✗ chatbot API: ${api.url} · chatbot bot-404 — no chatbot bot-404 for this key (Chatbot not found); check CHATBOT_SERIAL_NUMBER (retrying every 30 s)`,
      );
    } finally {
      await bridge.stop();
      await api.close();
    }
  });

  it("several chatbots: each is probed once, a bot's own setting named for its problem", async () => {
    const api = await workingApi();
    const bots = path.join(dataDir(), "bots.json");
    writeFileSync(
      bots,
      JSON.stringify({
        bots: [
          { id: "sales", chatbot: { serialNumber: "bot-missing" } },
          { id: "support", chatbot: {} },
        ],
      }),
    );
    const bridge = await startInProcess({ ...chatbotEnv(api.url), BRIDGE_CONFIG: bots });
    try {
      expect(bridge.banner).toContain(`  ✓ chatbot API: ${api.url} · chatbot bot-9 (bots default, support)\n`);
      expect(bridge.banner).toContain(
        `  ✗ chatbot API: ${api.url} · chatbot bot-missing (bots sales) — no chatbot bot-missing for this key (Chatbot not found); check chatbot.serialNumber of bot "sales" in BRIDGE_CONFIG (retrying every 30 s)`,
      );
      // bot-9 serves two bots but is probed once.
      expect(api.requestsTo("/chat/Chatbot/ChatContentHistory").map((request) => request.body)).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ SerialNumber: "bot-9" }),
          expect.objectContaining({ SerialNumber: "bot-missing" }),
        ]),
      );
      expect(api.requestsTo("/chat/Chatbot/ChatContentHistory")).toHaveLength(2);
    } finally {
      await bridge.stop();
      await api.close();
    }
  });

  it("a Telegram webhook with an http:// PUBLIC_URL: a warning that Telegram posts only to https", async () => {
    const token = "123456:AAAA-test-token-for-the-banner";
    const telegram = await TelegramEmulator.start({ token });
    const api = await workingApi();
    const bridge = await startInProcess({
      ...chatbotEnv(api.url),
      TELEGRAM_BOT_TOKEN: token,
      TELEGRAM_WEBHOOK_SECRET: "webhook-secret",
      TELEGRAM_API_ROOT: telegram.url,
      PUBLIC_URL: "http://bridge.example.com",
    });
    try {
      expect(bridge.banner).toContain(
        "  ! PUBLIC_URL=http://bridge.example.com is not https: Telegram posts webhooks only to https:// addresses (except a local Bot API server); set PUBLIC_URL to the https address of this server, or TELEGRAM_MODE=polling.\n",
      );
    } finally {
      await bridge.stop();
      await api.close();
      await telegram.close();
    }
  });
});

describe("chatbridge ask with a CHATBOT_API_URL that is not the chatbot API", () => {
  it("says CHATBOT_API_URL looks wrong, without the HTML", async () => {
    const html = await htmlServer();
    try {
      const t = terminal({
        CHATBOT_API_URL: `http://127.0.0.1:${(html.address() as { port: number }).port}`,
        CHATBOT_API_KEY: "sk-test",
        CHATBOT_SERIAL_NUMBER: "bot-9",
      });
      expect(await run(["ask", "hi"], t.io)).toBe(1);
      expect(t.err()).toBe(
        `chatbridge: GetSession: HTTP 404 with an HTML page ("404 Not Found"), not the API's JSON — the server at CHATBOT_API_URL does not answer like the chatbot API: check that CHATBOT_API_URL is the API's base address (e.g. https://usapi.hottask.com, without /chat)\n`,
      );
      expect(t.err()).not.toContain("CHATBOT_SERIAL_NUMBER");
    } finally {
      await closeServer(html);
    }
  });

  it("a 404 in the API's own envelope still points at CHATBOT_SERIAL_NUMBER", async () => {
    const api = await workingApi();
    api.route("POST", "/chat/Chatbot/GetSession", (_req, res) =>
      sendEnvelope(res, null, { status: 404, message: "Chatbot not found" }),
    );
    try {
      const t = terminal({ CHATBOT_API_URL: api.url, CHATBOT_API_KEY: "sk-test", CHATBOT_SERIAL_NUMBER: "bot-x" });
      expect(await run(["ask", "hi"], t.io)).toBe(1);
      expect(t.err()).toBe(
        "chatbridge: GetSession: Chatbot not found (404) — no such chatbot for this key: check CHATBOT_SERIAL_NUMBER\n",
      );
    } finally {
      await api.close();
    }
  });
});
