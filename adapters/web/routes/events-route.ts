import type { RequestHandler } from "express";
import type { WebChannel } from "../outbound.js";
import type { VisitorLimits } from "../visitor-limits.js";
import type { WebChatAdmission } from "./admission.js";
import { named, visitorQuery } from "./request-shape.js";

/** How often an idle event stream says something: proxies close streams that stay silent. */
const KEEP_ALIVE_MS = 25_000;

/**
 * `GET /webchat/events?visitor=…`: the visitor's answers as Server-Sent Events, resumable with Last-Event-ID on any
 * instance of the same store, for a visitor token this deployment issued only, and as many streams at once as the
 * limits allow.
 */
export function eventsRoute(admission: WebChatAdmission, channel: WebChannel, limits: VisitorLimits): RequestHandler {
  return async (req, res) => {
    const token = visitorQuery(req, res);
    if (token === undefined || !(await admission.chatbot(req, res, named(req.query.chatbot)))) return;
    const id = admission.visitor(res, token);
    if (id === undefined || !limits.streams.take(req, res, id)) return;
    res.status(200).set({
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache, no-transform",
      "x-accel-buffering": "no",
    });
    res.flushHeaders();
    const last = Number(req.get("last-event-id") ?? Number.NaN);
    // The store cannot be reached: the stream ends, and the page's EventSource connects again a few seconds later.
    channel.subscribe(id, res, Number.isSafeInteger(last) && last >= 0 ? last : undefined).catch(() => res.end());
    const keepAlive = setInterval(() => res.write(": keep-alive\n\n"), KEEP_ALIVE_MS);
    res.on("close", () => clearInterval(keepAlive));
  };
}
