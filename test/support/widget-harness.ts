import { mkdtempSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { type RunningBridge, startBridge } from "../../src/app/bridge-app.js";
import { ChatbotClient } from "../../src/client/index.js";
import { createLogger } from "../../src/common/log.js";
import { loadConfig } from "../../src/config/config.js";
import { freePort } from "./waiting.js";

/** Where the widget tests save screenshots for people to look at (copied out by `.ci/run`). */
export const SCREENSHOTS = path.resolve("reports", "screenshots");

/** `chatbridge start` with the embedded chatbot API and its demo chatbot, and a client of that chatbot's API. */
export interface DemoBridge {
  running: RunningBridge;
  /** The demo chatbot's serial number, which the widget's tag names. */
  serial: string;
  client: ChatbotClient;
}

/**
 * Starts the bridge as `npm start` does on a fresh machine (embedded API, demo chatbot), on a free loopback port
 * with a memory store and a fresh data folder; `env` adds or overrides variables (SMTP, limits…).
 */
export async function startDemoBridge(env: Record<string, string> = {}): Promise<DemoBridge> {
  const config = loadConfig(
    {
      PORT: String(await freePort()),
      DATA_DIR: mkdtempSync(path.join(tmpdir(), "chatbridge-widget-")),
      STORE_URL: "memory://",
      ...env,
    },
    { envFile: undefined },
  );
  const running = await startBridge(config, createLogger("silent"), { host: "127.0.0.1" });
  const demo = running.embedded?.demo;
  if (!demo) throw new Error("the embedded API's demo is expected");
  const { secretKey, sessionKey } = demo.workspace;
  return {
    running,
    serial: demo.chatbot.serialNumber,
    client: new ChatbotClient({ baseUrl: running.url, apiKey: secretKey, sessionKey }),
  };
}

/** An agency's web page on an origin of its own, embedding the widget with its one tag. */
export interface AgencySite {
  url: string;
  close(): void;
}

/**
 * Serves, on another loopback port (so another origin than the bridge's), a page whose body is `body` followed by
 * the widget's tag for chatbot `serial` of the bridge at `bridgeUrl`; `head` adds to its head (hostile CSS…).
 */
export async function serveAgencySite(
  bridgeUrl: string,
  serial: string,
  page: { head?: string; body?: string } = {},
): Promise<AgencySite> {
  const server: Server = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.end(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Agency</title>${page.head ?? ""}</head>
<body>${page.body ?? "<h1>Homes for sale</h1>"}
<script src="${bridgeUrl}/widget.js" data-chatbot="${serial}" async></script></body></html>`);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}
