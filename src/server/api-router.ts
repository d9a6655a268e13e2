import { Router } from "express";
import type { Logger } from "../common/log.js";
import { ApiError } from "./http/api-error.js";
import { apiErrorHandler } from "./http/error-handler.js";
import { chatRoutes } from "./routes/chat-routes.js";
import { chatbotRoutes } from "./routes/chatbot-routes.js";
import { fileRoutes } from "./routes/file-routes.js";
import { leadRoutes } from "./routes/lead-routes.js";
import { listingChangeRoutes } from "./routes/listing-change-routes.js";
import { listingRoutes } from "./routes/listing-routes.js";
import { pictureRoutes } from "./routes/picture-routes.js";
import { ChatService } from "./services/chat.js";
import { ChatbotService } from "./services/chatbots.js";
import type { EngineCatalog } from "./services/engine-catalog.js";
import { FileService } from "./services/files.js";
import { LeadService } from "./services/leads.js";
import { ListingService } from "./services/listings.js";
import type { ApiStore } from "./store/api-store.js";

/** What the self-hosted chatbot API is made of. */
export interface ApiDependencies {
  store: ApiStore;
  engines: EngineCatalog;
  /** Uploaded files live under `<dataDir>/files`. */
  dataDir: string;
  log: Logger;
  /** Time between two heartbeats on an idle listing change feed (default 15 s). */
  feedHeartbeatMs?: number;
  /** Base of the upload URLs handed out; default: the requesting host. */
  publicUrl?: string | undefined;
  now?: () => Date;
}

/** The API's router with what a shutdown needs. */
export type ApiRouter = Router & {
  /** Resolves when the answers under way are finished and stored, so a shutdown can close the store after them. */
  drain(): Promise<void>;
  /** Ends the listing change feeds cleanly: they never end by themselves. */
  endFeeds(): void;
};

/**
 * The whole chatbot API as an express router, to mount at `/chat`. Every answer, failures included, is the
 * JSON envelope (the streams once begun excepted); unknown operations are 404 envelopes naming the path, a known
 * one asked with another method a 405 (see `strictRoutes`).
 */
export function createApiRouter(deps: ApiDependencies): ApiRouter {
  const chatbots = new ChatbotService(deps.store, deps.engines);
  const files = new FileService(deps.store, deps.dataDir, deps.now);
  const leads = new LeadService(deps.store);
  const chat = new ChatService(deps.store, deps.engines, files, leads, deps.now);
  const listings = new ListingService(deps.store, deps.log);
  const feeds = listingChangeRoutes(deps.store, chatbots, {
    heartbeatMs: deps.feedHeartbeatMs ?? 15_000,
    log: deps.log,
  });
  const router = Router({ caseSensitive: false });
  router.use(chatbotRoutes(deps.store, chatbots, deps.engines));
  router.use(listingRoutes(deps.store, chatbots, listings));
  router.use(feeds);
  router.use(leadRoutes(deps.store, chatbots, leads));
  router.use(chatRoutes(deps.store, chat, deps.log));
  router.use(fileRoutes(deps.store, files, deps.publicUrl));
  router.use(pictureRoutes(files));
  router.use((req) => {
    const path = `${req.baseUrl}${req.path}`;
    throw new ApiError(404, `Unknown operation ${req.method} ${path.length > 200 ? `${path.slice(0, 200)}…` : path}`);
  });
  router.use(apiErrorHandler(deps.log));
  return Object.assign(router, { drain: () => chat.drain(), endFeeds: () => feeds.end() });
}
