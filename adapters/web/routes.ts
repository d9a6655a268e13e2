import express, { Router } from "express";
import { z } from "zod";
import type { InboundSink } from "../../src/bridge/inbound.js";
import type { WebChannel } from "./outbound.js";
import { webChatPage } from "./page.js";

const visitorId = z.string().regex(/^[A-Za-z0-9_-]{8,64}$/, "must be 8–64 letters, digits, - or _");
/** A message the web chat page posts. */
export const webChatMessage = z.object({
  visitorId,
  messageId: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, "must be 1–64 letters, digits, - or _"),
  text: z.string().trim().min(1, "must not be empty").max(4000),
});

/**
 * The web chat: the page at `/`, `POST /webchat/messages` to send (answered 202 at once; the answer comes as
 * events) and `GET /webchat/events?visitor=…` (Server-Sent Events, resumable with Last-Event-ID on any instance of
 * the same store). A post that is not a {@link webChatMessage} is answered 400 naming the field; one that is not JSON
 * or over 16 KB is refused in JSON by the app's error handler (src/json-fallbacks.ts). Anyone can post here: nothing
 * is counted or logged as malformed.
 */
export function webChatRoutes(channel: WebChannel, sink: InboundSink, options: { title: string }): Router {
  const router = Router();
  router.get("/", (_req, res) => {
    res.type("html").set("cache-control", "no-cache").send(webChatPage(options.title));
  });
  router.post("/webchat/messages", express.json({ limit: "16kb" }), async (req, res) => {
    const parsed = webChatMessage.safeParse(req.body);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      res.status(400).json({ error: `${issue?.path.join(".") || "body"} ${issue?.message ?? "is invalid"}` });
      return;
    }
    const { visitorId: id, messageId, text } = parsed.data;
    const outcome = await sink
      .accept({
        channel: channel.name,
        botId: channel.botId,
        eventId: `${id}:${messageId}`,
        target: { chatId: id, isGroup: false },
        user: { id },
        text,
        media: [],
        receivedAt: new Date(),
      })
      // The store is unreachable: say so, so the page can offer to send again; nothing was queued.
      .catch(() => "unavailable" as const);
    res.status(outcome === "stopping" || outcome === "unavailable" ? 503 : 202).json({ status: outcome });
  });
  router.get("/webchat/events", (req, res) => {
    const parsed = visitorId.safeParse(req.query.visitor);
    if (!parsed.success) {
      res.status(400).json({ error: `visitor ${parsed.error.issues[0]?.message ?? "is invalid"}` });
      return;
    }
    res.status(200).set({
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache, no-transform",
      "x-accel-buffering": "no",
    });
    res.flushHeaders();
    const last = Number(req.get("last-event-id") ?? Number.NaN);
    // The store cannot be reached: the stream ends, and the page's EventSource connects again a few seconds later.
    channel
      .subscribe(parsed.data, res, Number.isSafeInteger(last) && last >= 0 ? last : undefined)
      .catch(() => res.end());
    // Proxies close idle streams; a comment every 25 s keeps this one open.
    const keepAlive = setInterval(() => res.write(": keep-alive\n\n"), 25_000);
    res.on("close", () => clearInterval(keepAlive));
  });
  return router;
}
