import type { RequestHandler } from "express";
import { type ChatbotView, etagMatches, isPictureKind } from "../../../src/plugin/plugin-api.js";
import { webChatPage } from "../page.js";
import { MAX_VISITOR_FILE_BYTES } from "../visitor-files.js";
import type { WidgetScript } from "../widget-bundle.js";
import { widgetSettings } from "../widget-settings.js";
import { type WebChatAdmission, WIDGET_SETTINGS_MAX_AGE_S } from "./admission.js";
import { MAX_FILES_PER_MESSAGE } from "./message-route.js";
import { named } from "./request-shape.js";

/**
 * How long browsers keep a chatbot's picture without asking again (then an ETag makes it a 304): its address changes
 * with its file id, so an `Edit` that names another file shows at once all the same.
 */
const PICTURE_MAX_AGE_S = 300;

/** `GET /`: the bridge's own page, the widget drawn over the whole page, asked for again on every load. */
export function pageRoute(
  title: string,
  chatbot: ChatbotView | undefined,
  widget: WidgetScript | undefined,
): RequestHandler {
  return (_req, res) => {
    res
      .type("html")
      .set("cache-control", "no-cache")
      .send(webChatPage(title, chatbot?.serialNumber, widget !== undefined));
  };
}

/**
 * `GET /widget.js`: the widget's script, for pages of any origin, gzipped where the browser takes it and a 304 for
 * the build it has; a 503 that says so in the browser's console when the widget was not built.
 */
export function widgetScriptRoute(widget: WidgetScript | undefined): RequestHandler {
  return (req, res) => {
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
  };
}

/** What the widget's settings say besides the chatbot's own; the page's title is the name too. */
export interface WidgetSettingsOptions {
  /** The name shown when the chatbot's settings cannot be read. */
  title: string;
  /** Whether requests for a person can be mailed, and HANDOFF_EMAIL. */
  handoff?: { canMail: boolean; email: string | undefined } | undefined;
  /** MEDIA_MAX_AUDIO_SECONDS: the widget stops a push-to-talk recording there (default 600). */
  maxAudioSeconds?: number | undefined;
}

/**
 * `GET /webchat/widget?chatbot=<serial>`: the widget's settings from the chatbot's (WidgetSettings) and the limits on
 * what a visitor sends, kept by the browser as long as the bridge keeps the chatbot's.
 */
export function widgetSettingsRoute(admission: WebChatAdmission, options: WidgetSettingsOptions): RequestHandler {
  return async (req, res) => {
    const chatbot = await admission.chatbot(req, res, named(req.query.chatbot));
    if (!chatbot) return;
    const settings = await admission.settings();
    res.set("cache-control", `private, max-age=${WIDGET_SETTINGS_MAX_AGE_S}`);
    res.json(
      widgetSettings(chatbot.serialNumber, settings, options.title, options.handoff, {
        maxBytes: MAX_VISITOR_FILE_BYTES,
        maxFiles: MAX_FILES_PER_MESSAGE,
        maxVoiceSeconds: options.maxAudioSeconds ?? 600,
      }),
    );
  };
}

/**
 * `GET /webchat/picture/profile|icon?chatbot=<serial>&v=<file id>`: the chatbot's avatar or launcher picture set as a
 * file id, from the chatbot API (its self-hosted server's picture route); `v` only makes a new file a new address.
 */
export function pictureRoute(admission: WebChatAdmission): RequestHandler {
  return async (req, res) => {
    const { kind } = req.params;
    if (!isPictureKind(kind)) {
      res.status(404).json({ error: "the pictures are /webchat/picture/profile and /webchat/picture/icon" });
      return;
    }
    const chatbot = await admission.chatbot(req, res, named(req.query.chatbot));
    if (!chatbot) return;
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
  };
}
