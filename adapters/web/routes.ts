import express, { type NextFunction, type Request, type Response, Router } from "express";
import { z } from "zod";
import {
  type ChatbotView,
  cardTapMessage,
  contactLink,
  etagMatches,
  type InboundMessage,
  type InboundSink,
  isContact,
  isPictureKind,
  mlsOfCode,
} from "../../src/plugin/plugin-api.js";
import { originAllowed, originRefusal, widgetCors } from "./origins.js";
import type { WebChannel } from "./outbound.js";
import { webChatPage } from "./page.js";
import type { PrivacyConsents } from "./privacy-consents.js";
import {
  MAX_VISITOR_FILE_BYTES,
  VISITOR_FILE_ID,
  type VisitorFile,
  type VisitorFileKind,
  visitorMedia,
} from "./visitor-files.js";
import { type VisitorIdentity, visitorToken } from "./visitor-identity.js";
import type { VisitorLimits } from "./visitor-limits.js";
import type { WidgetScript } from "./widget-bundle.js";
import { privacyPolicy, widgetSettings } from "./widget-settings.js";

const serialNumber = z.string().trim().min(1).max(64);

/** An e-mail address, or a phone number as people write it: 7 to 15 digits, a leading +, spaces, dots, dashes, (). */
const contactField = z.string().trim().max(254).refine(isContact, "must be an e-mail address or a phone number");

/** Files one message may carry: the photos one Image question takes (the chatbot API's limit). */
export const MAX_FILES_PER_MESSAGE = 10;

/**
 * A message the web chat posts. `chatbot` (the serial number the widget was given) is checked when present.
 * `contact` is how the team can reach the visitor, given with a request for a person: it becomes the user's handle
 * and link (mailto: or tel:), which the handoff mail shows and the lead records. `files` are ids of the visitor's
 * uploads (`POST /webchat/uploads`), sent in order with the text as their caption (which may then be empty).
 * `cardAction` is a tap on a listing card's button, its id as every channel carries it (`card:viewing:<MLS>`): the
 * message then reads as the tap (its text, if any, is not used).
 */
export const webChatMessage = z
  .object({
    visitorId: visitorToken,
    messageId: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, "must be 1–64 letters, digits, - or _"),
    text: z.string().trim().max(4000).default(""),
    chatbot: serialNumber.optional(),
    contact: contactField.optional(),
    cardAction: z
      .string()
      .max(128)
      .transform((id, context) => {
        const tap = cardTapMessage(id);
        if (!tap) context.addIssue({ code: "custom", message: "must be a listing card's action, card:<action>:<MLS>" });
        return tap ?? z.NEVER;
      })
      .optional(),
    files: z
      .array(z.string().regex(VISITOR_FILE_ID, "must be a file id from POST /webchat/uploads"))
      .max(MAX_FILES_PER_MESSAGE, `must hold at most ${MAX_FILES_PER_MESSAGE} files`)
      .optional(),
  })
  .refine((message) => message.text !== "" || (message.files?.length ?? 0) > 0 || message.cardAction !== undefined, {
    path: ["text"],
    message: "must not be empty",
  });

/** What an upload's Content-Type makes of it, where the chatbot's settings allow that kind. */
function uploadKind(contentType: string | undefined): VisitorFileKind | undefined {
  const type = contentType?.split(";")[0]?.trim().toLowerCase() ?? "";
  if (type.startsWith("image/")) return "image";
  if (type.startsWith("audio/")) return "voice";
  return undefined;
}

/** The visitor as the handoff sees them: their contact, and a link that reaches it. */
function visitor(id: string, contact: string | undefined): InboundMessage["user"] {
  if (!contact) return { id };
  return { id, handle: contact, link: contactLink(contact) };
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

/**
 * How long browsers keep a chatbot's picture without asking again (then an ETag makes it a 304): its address changes
 * with its file id, so an `Edit` that names another file shows at once all the same.
 */
const PICTURE_MAX_AGE_S = 300;

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
  /** Where visitors' consent to the privacy policy is recorded. */
  consents: PrivacyConsents;
  /** MEDIA_MAX_AUDIO_SECONDS: the widget stops a push-to-talk recording there (default 600). */
  maxAudioSeconds?: number | undefined;
  /** The limits per visitor and per client address on identities, messages, uploads and event streams. */
  limits: VisitorLimits;
}

/**
 * The web chat and its widget:
 * - `GET /` the bridge's own page (the widget, drawn over the whole page), `GET /widget.js` the widget's script;
 * - `GET /webchat/widget?chatbot=<serial>` the widget's settings from the chatbot's (WidgetSettings);
 * - `GET /webchat/picture/profile|icon?chatbot=<serial>&v=<file id>` the chatbot's avatar or launcher picture set as a
 *   file id, from the chatbot API (its self-hosted server's picture route); `v` only makes a new file a new address;
 * - `POST /webchat/visitors` a new visitor's identity (a token signed by the bridge, see visitor-identity.ts);
 * - `POST /webchat/consent` records that the visitor accepted the chatbot's privacy policy (privacy-consents.ts):
 *   while a policy is in force, messages and uploads of a visitor who has not accepted it are refused (403);
 * - `POST /webchat/uploads?visitor=…` a photo (image/…, with EnableUploadImage) or a push-to-talk recording
 *   (audio/…, with EnablePushToTalk), up to 20 MB, kept for a day for the message that names it (visitor-files.ts);
 * - `POST /webchat/messages` to send (answered 202 at once; the answer comes as events), and
 *   `GET /webchat/events?visitor=…` (Server-Sent Events, resumable with Last-Event-ID on any instance of the same store),
 *   both for a visitor token this deployment issued only (403 otherwise: nobody reads or writes another's conversation).
 * The `/webchat/` endpoints answer pages of other origins (CORS), and refuse with 403 and the fix a page whose
 * origin the chatbot's `VerifyDomain`/`Domains` do not admit. A post that is not a {@link webChatMessage} is answered
 * 400 naming the field; one that is not JSON or over 16 KB is refused in JSON by the app's error handler
 * (src/app/json-fallbacks.ts), as is a consent over 4 KB or a file over 20 MB; the endpoints that read nothing take no
 * body (413). Anyone can post here: nothing is counted or logged
 * as malformed. Identities, messages, uploads and event streams are limited per visitor and per client address (429 with
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
  /**
   * Whether the visitor accepted the privacy policy in force (none: nothing to accept), or a 403 said: a changed
   * policy (another name or address) is accepted again.
   */
  const consented = async (res: Response, visitorId: string): Promise<boolean> => {
    const policy = privacyPolicy(await chatbot?.settings(WIDGET_SETTINGS_MAX_AGE_S * 1000));
    if (!policy) return true;
    const consent = await options.consents.find(visitorId);
    if (consent?.policy.name === policy.name && consent.policy.url === policy.url) return true;
    res.status(403).json({
      error: `the visitor has not accepted the privacy policy ${JSON.stringify(policy.name)}: POST /webchat/consent first`,
    });
    return false;
  };

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
    res.json(
      widgetSettings(chatbot.serialNumber, settings, options.title, options.handoff, {
        maxBytes: MAX_VISITOR_FILE_BYTES,
        maxFiles: MAX_FILES_PER_MESSAGE,
        maxVoiceSeconds: options.maxAudioSeconds ?? 600,
      }),
    );
  });
  router.get("/webchat/picture/:kind", noBody, async (req, res) => {
    const { kind } = req.params;
    if (!isPictureKind(kind)) {
      res.status(404).json({ error: "the pictures are /webchat/picture/profile and /webchat/picture/icon" });
      return;
    }
    if (!(await admitted(req, res, named(req.query.chatbot))) || !chatbot) return;
    const picture = await chatbot.picture?.(kind);
    if (!picture) {
      res
        .status(404)
        .set("cache-control", "no-store")
        .json({ error: `this chatbot has no ${kind} picture file` });
      return;
    }
    // Shown by pages of other origins as an <img>, which a page isolated with COEP loads only when told it may.
    res.set({
      "cross-origin-resource-policy": "cross-origin",
      "cache-control": `public, max-age=${PICTURE_MAX_AGE_S}`,
      "x-content-type-options": "nosniff",
    });
    if (picture.etag) {
      res.set("etag", picture.etag);
      if (etagMatches(req.get("if-none-match"), picture.etag)) {
        res.status(304).end();
        return;
      }
    }
    res.type(picture.contentType).send(Buffer.from(picture.bytes));
  });
  router.post("/webchat/visitors", noBody, async (req, res) => {
    if (!(await admitted(req, res, named(req.query.chatbot)))) return;
    if (!(await limits.admit(req, res, "identity"))) return;
    res.status(201).set("cache-control", "no-store").json({ visitor: identity.issue() });
  });
  // Who uploads, and whether the chatbot takes that kind of file, are checked before the body is read.
  router.post(
    "/webchat/uploads",
    async (req, res, next) => {
      const parsed = visitorToken.safeParse(req.query.visitor);
      if (!parsed.success) {
        res.status(400).json({ error: `visitor ${parsed.error.issues[0]?.message ?? "is invalid"}` });
        return;
      }
      if (!(await admitted(req, res, named(req.query.chatbot))) || !chatbot) return;
      const id = visitorOf(res, parsed.data);
      if (id === undefined || !(await limits.admit(req, res, "upload", id)) || !(await consented(res, id))) return;
      const kind = uploadKind(req.get("content-type"));
      if (!kind) {
        res.status(415).json({ error: "content-type must be an image/… (a photo) or audio/… (a recording)" });
        return;
      }
      // The chatbot's own switches: EnableUploadImage for photos, EnablePushToTalk for recordings.
      const settings = await chatbot.settings(WIDGET_SETTINGS_MAX_AGE_S * 1000);
      if (!(kind === "image" ? settings?.EnableUploadImage : settings?.EnablePushToTalk)) {
        const what = kind === "image" ? "photos (EnableUploadImage)" : "voice messages (EnablePushToTalk)";
        res.status(403).json({ error: `this chatbot does not take ${what}` });
        return;
      }
      res.locals.upload = { visitorId: id, kind };
      next();
    },
    // Over the limit by its Content-Length: refused before reading; without one, cut as soon as it passes.
    express.raw({ type: () => true, limit: MAX_VISITOR_FILE_BYTES }),
    async (req, res) => {
      const { visitorId, kind } = res.locals.upload as { visitorId: string; kind: VisitorFileKind };
      const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      if (body.length === 0) {
        res.status(400).json({ error: "body must hold the file's bytes" });
        return;
      }
      const mimeType = req.get("content-type")?.split(";")[0]?.trim().toLowerCase() ?? "";
      const file = await channel.files?.keep(visitorId, kind, mimeType, body).catch(() => undefined);
      if (!file) {
        res.status(503).json({ error: "the file could not be kept: try again" });
        return;
      }
      res.status(201).set("cache-control", "no-store").json({ file: file.id, kind, sizeBytes: file.sizeBytes });
    },
  );
  router.post("/webchat/consent", express.json({ limit: "4kb" }), async (req, res) => {
    const parsed = z.object({ visitorId: visitorToken, chatbot: serialNumber.optional() }).safeParse(req.body);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      res.status(400).json({ error: `${issue?.path.join(".") || "body"} ${issue?.message ?? "is invalid"}` });
      return;
    }
    if (!(await admitted(req, res, parsed.data.chatbot))) return;
    const id = visitorOf(res, parsed.data.visitorId);
    if (id === undefined) return;
    // What the visitor accepted is the policy in force now, as the bridge read it, not what the page says.
    const policy = privacyPolicy(await chatbot?.settings(WIDGET_SETTINGS_MAX_AGE_S * 1000));
    if (!policy) {
      res.status(404).json({ error: "this chatbot has no privacy policy to accept" });
      return;
    }
    const consent = {
      at: new Date().toISOString(),
      policy: { name: policy.name, url: policy.url },
      origin: req.get("origin"),
    };
    const kept = await options.consents.record(id, consent).then(
      () => true,
      () => false,
    );
    if (!kept) {
      res.status(503).json({ error: "the consent could not be recorded: try again" });
      return;
    }
    res.status(201).set("cache-control", "no-store").json(consent);
  });
  router.post("/webchat/messages", express.json({ limit: "16kb" }), async (req, res) => {
    const parsed = webChatMessage.safeParse(req.body);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      res.status(400).json({ error: `${issue?.path.join(".") || "body"} ${issue?.message ?? "is invalid"}` });
      return;
    }
    const { visitorId: token, messageId, contact, cardAction } = parsed.data;
    const text = cardAction ? cardAction.text : parsed.data.text;
    if (!(await admitted(req, res, parsed.data.chatbot))) return;
    const id = visitorOf(res, token);
    if (id === undefined || !(await limits.admit(req, res, "message", id))) return;
    if (!(await consented(res, id))) return;
    const files: VisitorFile[] = [];
    for (const [index, fileId] of (parsed.data.files ?? []).entries()) {
      const file = await channel.files?.find(id, fileId);
      if (!file) {
        res.status(400).json({ error: `files.${index} is not a file this visitor uploaded in the last day` });
        return;
      }
      files.push(file);
    }
    const outcome = await sink
      .accept({
        channel: channel.name,
        botId: channel.botId,
        eventId: `${id}:${messageId}`,
        target: { chatId: id, isGroup: false },
        user: visitor(id, contact),
        text,
        media: files.map((file) => visitorMedia(id, file)),
        ...(cardAction && { button: cardAction.button }),
        receivedAt: new Date(),
      })
      // The store is unreachable: say so, so the page can offer to send again; nothing was queued.
      .catch(() => "unavailable" as const);
    if (outcome === "accepted") {
      // Commands stay out of the history, and so does a listing's code sent alone (the opening of a listing's link
      // by a widget from before it sent `/start <code>`); a request for a person is kept with the contact given.
      const said =
        text === "/reset"
          ? "reset"
          : contact
            ? { text: `Asked for a person: ${contact}` }
            : { text, files: files.map((file) => file.kind) };
      const opening = mlsOfCode(text.trim()) !== undefined;
      if (said === "reset" || (!text.startsWith("/") && !opening) || contact) {
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
