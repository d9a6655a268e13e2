import express, { type NextFunction, type Request, type Response, Router } from "express";
import { z } from "zod";
import type { ChatbotView } from "../../src/bridge/chatbot-link.js";
import type { InboundMessage, InboundSink } from "../../src/bridge/inbound.js";
import { originAllowed, originRefusal, widgetCors } from "./origins.js";
import type { WebChannel } from "./outbound.js";
import { webChatPage } from "./page.js";
import { type VisitorIdentity, visitorToken } from "./visitor-identity.js";
import type { VisitorLimits } from "./visitor-limits.js";
import type { WidgetScript } from "./widget-bundle.js";
import { widgetSettings } from "./widget-settings.js";

const serialNumber = z.string().trim().min(1).max(64);

const email = z.email();

/** An e-mail address, or a phone number as people write it: 7 to 15 digits, a leading +, spaces, dots, dashes, (). */
const contactField = z
  .string()
  .trim()
  .max(254)
  .refine(
    (contact) =>
      email.safeParse(contact).success ||
      (/^\+?[\d\s().-]{7,20}$/.test(contact) && /^\d{7,15}$/.test(contact.replace(/\D/g, ""))),
    "must be an e-mail address or a phone number",
  );

/**
 * A message the web chat posts. `chatbot` (the serial number the widget was given) is checked when present.
 * `contact` is how the team can reach the visitor, given with a request for a person: it becomes the user's handle
 * and link (mailto: or tel:), which the handoff mail shows and the lead records.
 */
export const webChatMessage = z.object({
  visitorId: visitorToken,
  messageId: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, "must be 1–64 letters, digits, - or _"),
  text: z.string().trim().min(1, "must not be empty").max(4000),
  chatbot: serialNumber.optional(),
  contact: contactField.optional(),
});

/** The visitor as the handoff sees them: their contact, and a link that reaches it. */
function visitor(id: string, contact: string | undefined): InboundMessage["user"] {
  if (!contact) return { id };
  const link = contact.includes("@") ? `mailto:${contact}` : `tel:${contact.replace(/[^\d+]/g, "")}`;
  return { id, handle: contact, link };
}

/**
 * Refuses a request with a body on a route that reads none (413, in words), so that nobody makes this instance take
 * in a body only to discard it.
 */
function noBody(req: Request, res: Response, next: NextFunction): void {
  if (req.get("transfer-encoding") !== undefined || Number(req.get("content-length") ?? 0) > 0) {
    res.status(413).set("connection", "close").json({ error: "this endpoint takes no request body" });
    return;
  }
  next();
}

/**
 * How fresh the settings the widget gets are: the bridge reads them again after this long and browsers keep them no
 * longer, so a chatbot's `Edit` shows on the visitors' next page load within about this time, without a restart.
 */
export const WIDGET_SETTINGS_MAX_AGE_S = 5;

/** What {@link webChatRoutes} serves. */
export interface WebChatRoutesOptions {
  /** The chatbot of the web chat's bot, whose settings style the widget and whose Domains admit pages. */
  chatbot: ChatbotView | undefined;
  /** The name shown when the chatbot's settings cannot be read. */
  title: string;
  /** The widget's bundle; undefined when it was not built (see widget-bundle.ts). */
  widget: WidgetScript | undefined;
  /** Whether requests for a person can be mailed, and HANDOFF_EMAIL. */
  handoff?: { canMail: boolean; email: string | undefined } | undefined;
  /** Issues visitors' identities and checks them on every message and event stream. */
  identity: VisitorIdentity;
  /** The limits per visitor and per client address on identities, messages and event streams. */
  limits: VisitorLimits;
}

/**
 * The web chat and its widget:
 * - `GET /` the bridge's own page (the widget, drawn over the whole page), `GET /widget.js` the widget's script;
 * - `GET /webchat/widget?chatbot=<serial>` the widget's settings from the chatbot's (WidgetSettings);
 * - `POST /webchat/visitors` a new visitor's identity (a token signed by the bridge, see visitor-identity.ts);
 * - `POST /webchat/messages` to send (answered 202 at once; the answer comes as events), and
 *   `GET /webchat/events?visitor=…` (Server-Sent Events, resumable with Last-Event-ID on any instance of the same store),
 *   both for a visitor token this deployment issued only (403 otherwise: nobody reads or writes another's conversation).
 * The three `/webchat/` endpoints answer pages of other origins (CORS), and refuse with 403 and the fix a page whose
 * origin the chatbot's `VerifyDomain`/`Domains` do not admit. A post that is not a {@link webChatMessage} is answered
 * 400 naming the field; one that is not JSON or over 16 KB is refused in JSON by the app's error handler
 * (src/json-fallbacks.ts); the other endpoints take no body (413). Anyone can post here: nothing is counted or logged
 * as malformed. Identities, messages and event streams are limited per visitor and per client address (429 with
 * the wait, in words: see visitor-limits.ts); a refused request is neither processed nor recorded.
 */
export function webChatRoutes(channel: WebChannel, sink: InboundSink, options: WebChatRoutesOptions): Router {
  const router = Router();
  const { chatbot, widget, identity, limits } = options;
  /** The visitor id of a token this deployment issued, or a 403 said. */
  const visitorOf = (res: Response, token: string): string | undefined => {
    const id = identity.verify(token);
    if (id === undefined) {
      res
        .status(403)
        .json({ error: "this visitor token was not issued by this bridge: get one from POST /webchat/visitors" });
    }
    return id;
  };
  /** The chatbot a request names (none: the web chat's), or a 404 said; then the origin check. */
  const admitted = async (req: Request, res: Response, named: string | undefined): Promise<boolean> => {
    if (!chatbot || (named !== undefined && named !== chatbot.serialNumber)) {
      res.status(404).json({ error: `no chatbot ${JSON.stringify(named ?? "")} has a web chat on this bridge` });
      return false;
    }
    const origin = req.get("origin");
    if (origin === undefined) return true;
    const settings = await chatbot.settings(WIDGET_SETTINGS_MAX_AGE_S * 1000);
    if (originAllowed(origin, settings, req.get("host"))) return true;
    res.status(403).json(originRefusal(origin));
    return false;
  };
  const named = (value: unknown) => (typeof value === "string" && value !== "" ? value : undefined);

  router.get("/", (_req, res) => {
    res
      .type("html")
      .set("cache-control", "no-cache")
      .send(webChatPage(options.title, chatbot?.serialNumber, widget !== undefined));
  });
  router.get("/widget.js", (req, res) => {
    res.set({ "access-control-allow-origin": "*", "cross-origin-resource-policy": "cross-origin" });
    if (!widget) {
      res
        .status(503)
        .type("text/javascript")
        .send('console.error("chatbridge: the widget was not built: run npm run build");');
      return;
    }
    res.set({ etag: widget.etag, "cache-control": "public, max-age=300", vary: "Accept-Encoding" });
    res.type("text/javascript; charset=utf-8");
    const known = (req.get("if-none-match") ?? "").split(",").map((tag) => tag.trim());
    if (known.includes(widget.etag)) {
      res.status(304).end();
      return;
    }
    if (req.acceptsEncodings("gzip") === "gzip") res.set("content-encoding", "gzip").send(widget.gzipped);
    else res.send(widget.code);
  });
  router.use("/webchat", widgetCors);
  router.get("/webchat/widget", noBody, async (req, res) => {
    if (!(await admitted(req, res, named(req.query.chatbot))) || !chatbot) return;
    const settings = await chatbot.settings(WIDGET_SETTINGS_MAX_AGE_S * 1000);
    res.set("cache-control", `private, max-age=${WIDGET_SETTINGS_MAX_AGE_S}`);
    res.json(widgetSettings(chatbot.serialNumber, settings, options.title, options.handoff));
  });
  router.post("/webchat/visitors", noBody, async (req, res) => {
    if (!(await admitted(req, res, named(req.query.chatbot)))) return;
    if (!(await limits.admit(req, res, "identity"))) return;
    res.status(201).set("cache-control", "no-store").json({ visitor: identity.issue() });
  });
  router.post("/webchat/messages", express.json({ limit: "16kb" }), async (req, res) => {
    const parsed = webChatMessage.safeParse(req.body);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      res.status(400).json({ error: `${issue?.path.join(".") || "body"} ${issue?.message ?? "is invalid"}` });
      return;
    }
    const { visitorId: token, messageId, text, contact } = parsed.data;
    if (!(await admitted(req, res, parsed.data.chatbot))) return;
    const id = visitorOf(res, token);
    if (id === undefined || !(await limits.admit(req, res, "message", id))) return;
    const outcome = await sink
      .accept({
        channel: channel.name,
        botId: channel.botId,
        eventId: `${id}:${messageId}`,
        target: { chatId: id, isGroup: false },
        user: visitor(id, contact),
        text,
        media: [],
        receivedAt: new Date(),
      })
      // The store is unreachable: say so, so the page can offer to send again; nothing was queued.
      .catch(() => "unavailable" as const);
    if (outcome === "accepted") {
      // Commands stay out of the history; a request for a person is kept with the contact given.
      const said = text === "/reset" ? "reset" : contact ? { text: `Asked for a person: ${contact}` } : { text };
      if (said === "reset" || !text.startsWith("/") || contact) {
        // The message is taken whatever happens to its history: a failure here only means a reload will not show it.
        await channel.recordVisitor(id, messageId, said).catch(() => {});
      }
    }
    res.status(outcome === "stopping" || outcome === "unavailable" ? 503 : 202).json({ status: outcome });
  });
  router.get("/webchat/events", noBody, async (req, res) => {
    const parsed = visitorToken.safeParse(req.query.visitor);
    if (!parsed.success) {
      res.status(400).json({ error: `visitor ${parsed.error.issues[0]?.message ?? "is invalid"}` });
      return;
    }
    if (!(await admitted(req, res, named(req.query.chatbot)))) return;
    const id = visitorOf(res, parsed.data);
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
    // Proxies close idle streams; a comment every 25 s keeps this one open.
    const keepAlive = setInterval(() => res.write(": keep-alive\n\n"), 25_000);
    res.on("close", () => clearInterval(keepAlive));
  });
  return router;
}
