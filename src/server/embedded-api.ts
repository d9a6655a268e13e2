import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import express from "express";
import { listenOn } from "../common/http-listen.js";
import type { Logger } from "../common/log.js";
import { ensureWritableFolder } from "../common/writable-folder.js";
import type { Config } from "../config/config.js";
import type { Mailer } from "../mail/smtp-mailer.js";
import { type ApiRouter, createApiRouter } from "./api-router.js";
import { ensureDemo } from "./demo.js";
import { DigestScheduler } from "./digest-scheduler.js";
import type { Chatbot, Workspace } from "./domain.js";
import { createEngines } from "./engine/registry.js";
import { ChatbotService } from "./services/chatbots.js";
import type { ApiStore } from "./store/api-store.js";
import { openApiStore } from "./store/open-store.js";

/** The self-hosted API opened on its store, with the demo in place. */
export interface EmbeddedApi {
  store: ApiStore;
  router: ApiRouter;
  demo: { workspace: Workspace; chatbot: Chatbot; created: boolean };
  close(): Promise<void>;
}

/** Optional parts of the embedded API. */
export interface EmbeddedApiOptions {
  /**
   * Mails the daily digests (the chatbots' EmailForDailyChatLogs and EmailForDailyLeads) through it; without
   * one there are none. Typically `createSmtpMailer(config.mail)` when SMTP_URL is set. The caller keeps
   * ownership: closing the API stops the digests but leaves the mailer open.
   */
  mailer?: Mailer | undefined;
  /** The digests' clock; default the system clock. */
  now?: () => Date;
}

/**
 * Opens the store (SQLite in DATA_DIR or PostgreSQL at DATABASE_URL; migrations applied), the engines and
 * the demo, and builds the API router; with a mailer, starts the daily digests. Serving it is the caller's
 * choice: alone (`chatbridge api`) or inside the bridge's app (`chatbridge start`). Processes sharing one
 * database may all run the digests: each digest is still mailed once.
 */
export async function openEmbeddedApi(
  config: Config,
  log: Logger,
  options: EmbeddedApiOptions = {},
): Promise<EmbeddedApi> {
  // With PostgreSQL, DATA_DIR still holds the uploaded files: a folder that cannot be written fails the start, not
  // the first upload.
  if (config.databaseUrl) ensureWritableFolder(config.dataDir, { name: "DATA_DIR", value: config.dataDir });
  const store = await openApiStore({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  try {
    const engines = createEngines(config.llm);
    const demo = await ensureDemo(store, new ChatbotService(store, engines), config.chatbotApi);
    const router = createApiRouter({ store, engines, dataDir: config.dataDir, log });
    const digests = options.mailer && new DigestScheduler({ store, mailer: options.mailer, log, now: options.now });
    digests?.start();
    return {
      store,
      router,
      demo,
      close: async () => {
        await digests?.stop();
        await router.drain();
        await store.close();
      },
    };
  } catch (error) {
    await store.close();
    throw error;
  }
}

/** An HTTP server on `port` serving the API under `/chat` and `/healthz`; port 0 picks a free one. */
export async function serveApi(
  api: EmbeddedApi,
  options: { port: number; host?: string },
): Promise<{ server: Server; url: string }> {
  const app = express();
  app.disable("x-powered-by");
  app.get("/healthz", (_req, res) => {
    res.json({ status: "ok" });
  });
  app.use("/chat", api.router);
  const server = await listenOn(app, options.port, options.host ?? "0.0.0.0");
  const { port } = server.address() as AddressInfo;
  return { server, url: `http://127.0.0.1:${port}` };
}

/**
 * Stops accepting, ends the listing change feeds, lets in-flight answers finish for up to `graceMs`, then cuts what
 * is left (a cut stream stores its partial answer) and closes the store.
 */
export async function shutdownApi(server: Server, api: EmbeddedApi, graceMs = 10_000): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  api.router.endFeeds();
  const timer = setTimeout(() => server.closeAllConnections(), graceMs);
  await closed;
  clearTimeout(timer);
  await api.close();
}
