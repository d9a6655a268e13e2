import { once } from "node:events";
import type { Server } from "node:http";
import express from "express";
import { WebChannel } from "../adapters/web/web-channel.js";
import { webChatRoutes } from "../adapters/web/web-routes.js";
import { Bridge } from "./bridge/bridge.js";
import { createBridgeMetrics } from "./bridge/metrics.js";
import { type BridgeStore, openBridgeStore } from "./bridge/store/bridge-store.js";
import { ChatbotClient } from "./client/index.js";
import { type Config, ConfigError } from "./config.js";
import type { Logger } from "./log.js";
import { type EmbeddedApi, openEmbeddedApi } from "./server/embedded-api.js";

/** One line of the start banner per channel: enabled, or what is missing. */
export interface ChannelStatus {
  name: string;
  enabled: boolean;
  detail: string;
}

/** The running bridge. */
export interface RunningBridge {
  url: string;
  channels: ChannelStatus[];
  /** The embedded API's demo, when the chatbot API is the embedded one. */
  embedded: EmbeddedApi | undefined;
  /** Stops accepting, lets answers finish for up to `graceMs` (then ends them cleanly), closes everything. */
  close(graceMs: number): Promise<void>;
}

/**
 * `chatbridge start`: one express app on PORT with the embedded chatbot API (unless CHATBOT_API_URL), the
 * web chat at `/`, the channels' webhooks, `/healthz`, `/readyz` and `/metrics`. The bridge reaches the
 * chatbot API over HTTP through the client, also when it is the embedded one in this very process.
 */
export async function startBridge(
  config: Config,
  log: Logger,
  options: { host?: string } = {},
): Promise<RunningBridge> {
  const api = config.chatbotApi;
  if (api.url && (!api.apiKey || !api.serialNumber)) {
    throw new ConfigError(
      [
        api.apiKey ? "" : "CHATBOT_API_KEY is not set: with CHATBOT_API_URL, set it to the workspace's secret key.",
        api.serialNumber ? "" : "CHATBOT_SERIAL_NUMBER is not set: with CHATBOT_API_URL, set it to the chatbot's id.",
      ].filter(Boolean),
    );
  }
  const embedded = api.url ? undefined : await openEmbeddedApi(config, log);
  let store: BridgeStore | undefined;
  try {
    store = await openBridgeStore({ url: config.bridge.storeUrl, dataDir: config.dataDir });
    const client = new ChatbotClient({
      baseUrl: api.url ?? `http://127.0.0.1:${config.port}`,
      apiKey: embedded ? embedded.demo.workspace.secretKey : api.apiKey,
      sessionKey: embedded ? embedded.demo.workspace.sessionKey : api.sessionKey,
      timeoutMs: api.timeoutMs,
      uploadConfirmPath: api.uploadConfirmPath,
    });
    const serialNumber = embedded ? embedded.demo.chatbot.serialNumber : (api.serialNumber as string);
    const metrics = createBridgeMetrics();
    const bridge = new Bridge({
      store,
      config: config.bridge,
      chatbots: [{ botId: "default", client, serialNumber }],
      log,
      metrics,
    });
    const app = express();
    app.disable("x-powered-by");
    if (embedded) app.use("/chat", embedded.router);
    const web = new WebChannel();
    bridge.attach(web);
    app.use(webChatRoutes(web, bridge, { title: embedded?.demo.chatbot.settings.Name ?? "chatbridge" }));
    app.get("/healthz", (_req, res) => {
      res.json({ status: "ok" });
    });
    const bridgeStore = store;
    app.get("/readyz", async (_req, res) => {
      const checks = await Promise.allSettled([
        bridgeStore.ping(),
        client.listModels({ signal: AbortSignal.timeout(3000) }),
      ]);
      const [storeCheck, upstreamCheck] = checks.map((check) =>
        check.status === "fulfilled" ? "ok" : String(check.reason),
      );
      const ready = checks.every((check) => check.status === "fulfilled");
      res
        .status(ready ? 200 : 503)
        .json({ status: ready ? "ready" : "not ready", store: storeCheck, upstream: upstreamCheck });
    });
    app.get("/metrics", async (_req, res) => {
      res.type(metrics.registry.contentType).send(await metrics.registry.metrics());
    });
    const server: Server = app.listen(config.port, options.host ?? "0.0.0.0");
    await once(server, "listening");
    const url = `http://127.0.0.1:${config.port}`;
    const channels: ChannelStatus[] = [
      { name: "web chat", enabled: true, detail: `${config.bridge.publicUrl ?? url}/` },
      { name: "Telegram", enabled: false, detail: "not in this version yet (TELEGRAM_BOT_TOKEN)" },
      { name: "Slack", enabled: false, detail: "not in this version yet (SLACK_BOT_TOKEN, SLACK_SIGNING_SECRET)" },
      { name: "WhatsApp", enabled: false, detail: "not in this version yet (WHATSAPP_ACCESS_TOKEN …)" },
    ];
    return {
      url,
      channels,
      embedded,
      close: async (graceMs) => {
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        await bridge.stop(graceMs);
        // Event streams of web chat pages never end by themselves.
        server.closeAllConnections();
        await closed;
        await client.close();
        await bridgeStore.close();
        await embedded?.close();
      },
    };
  } catch (error) {
    await store?.close();
    await embedded?.close();
    throw error;
  }
}
