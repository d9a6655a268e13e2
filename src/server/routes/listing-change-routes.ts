import { type Response, Router } from "express";
import {
  LISTING_CHANGE_EVENT,
  LISTING_CHANGES_NAME,
  LISTING_CHANGES_PATH,
  listingChangesQuerySchema,
} from "../../api/listing-changes.js";
import { API_ROOT, OPERATIONS } from "../../api/operations.js";
import type { Logger } from "../../common/log.js";
import { ApiError } from "../http/api-error.js";
import { requireKey, workspaceOf } from "../http/auth.js";
import { strictRoutes } from "../http/methods.js";
import { parseRequest } from "../schemas/parse-request.js";
import type { ChatbotService } from "../services/chatbots.js";
import type { ApiStore } from "../store/api-store.js";

/** What the feed's route needs besides the store. */
export interface ListingChangeRouteOptions {
  /** Time between two heartbeats (SSE comments) on an idle feed, so that proxies keep it open. */
  heartbeatMs: number;
  log: Logger;
}

/** Bytes a subscriber may leave unread before its feed is ended (it reconnects and reads the listings anew). */
const MAX_UNREAD_BYTES = 1024 * 1024;

/**
 * `GET /chat/Chatbot/RealEstateChanges?SerialNumber=…`, an extension of the self-hosted server: the chatbot's
 * listing changes as Server-Sent Events (`event: listing`, `data: {"SerialNumber","MLSNumber","Kind"}`), a
 * `: heartbeat` comment every `heartbeatMs`. The session key, like RealEstateList (whose answer the events only point
 * at); a chatbot of another workspace is the same 404 as an unknown one. The 200 is sent once the subscription is in
 * place, so a change committed after it arrives is always announced. Not a row of the API's table: it answers a
 * stream that never ends by itself rather than an envelope's `Data`.
 *
 * `end()` ends every open feed cleanly (the last chunk sent), for a shutdown: a connection left open would hold
 * the server's close for its grace period, and a client that sees a clean end reconnects elsewhere.
 */
export function listingChangeRoutes(store: ApiStore, chatbots: ChatbotService, options: ListingChangeRouteOptions) {
  const router = Router();
  const open = new Set<Response>();
  strictRoutes(router).get(
    LISTING_CHANGES_PATH.slice(API_ROOT.length),
    requireKey(store, LISTING_CHANGES_NAME, OPERATIONS.listListings.accepts),
    async (req, res) => {
      const { SerialNumber } = parseRequest(listingChangesQuerySchema, req.query);
      const chatbot = await chatbots.owned(workspaceOf(res), SerialNumber);
      // HEAD asks whether the feed is there: its body is never sent, so it is answered without subscribing.
      if (req.method === "HEAD") {
        res.status(200).type("text/event-stream").end();
        return;
      }
      const write = (text: string) => {
        if (res.writableEnded) return;
        if (res.writableLength > MAX_UNREAD_BYTES) res.end();
        else res.write(text);
      };
      const unsubscribe = await store.listingChanges
        .subscribe(chatbot.serialNumber, {
          change: (change) => write(`event: ${LISTING_CHANGE_EVENT}\ndata: ${JSON.stringify(change)}\n\n`),
          lost: () => {
            if (!res.writableEnded) res.end();
          },
        })
        .catch((error: unknown) => {
          options.log.warn({ err: error }, "listings: the change feed cannot listen");
          throw new ApiError(503, "The change feed is unavailable for now; read RealEstateList instead");
        });
      // The subscriber may have left while the subscription was being set up.
      if (res.closed) {
        unsubscribe();
        return;
      }
      const heartbeat = setInterval(() => write(": heartbeat\n\n"), options.heartbeatMs);
      open.add(res);
      res.on("close", () => {
        clearInterval(heartbeat);
        unsubscribe();
        open.delete(res);
      });
      res.status(200).set({
        "content-type": "text/event-stream; charset=utf-8",
        "cache-control": "no-cache, no-transform",
        "x-accel-buffering": "no",
      });
      // A first comment sends the headers and tells the subscriber it listens now.
      res.write(": listening\n\n");
    },
  );
  return Object.assign(router, {
    end: () => {
      for (const res of open) res.end();
    },
  });
}
