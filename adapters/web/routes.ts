import express, { Router } from "express";
import type { ChatbotView, InboundSink } from "../../src/plugin/plugin-api.js";
import { answeringBeforeBody } from "../../src/plugin/plugin-api.js";
import { widgetCors } from "./origins.js";
import type { WebChannel } from "./outbound.js";
import type { PrivacyConsents } from "./privacy-consents.js";
import { WebChatAdmission } from "./routes/admission.js";
import { eventsRoute } from "./routes/events-route.js";
import { messageRoute } from "./routes/message-route.js";
import { noBody } from "./routes/request-shape.js";
import { uploadAdmission, uploadRoute } from "./routes/upload-route.js";
import { consentRoute, visitorsRoute } from "./routes/visitor-routes.js";
import {
  pageRoute,
  pictureRoute,
  type WidgetSettingsOptions,
  widgetScriptRoute,
  widgetSettingsRoute,
} from "./routes/widget-routes.js";
import { MAX_VISITOR_FILE_BYTES } from "./visitor-files.js";
import type { VisitorIdentity } from "./visitor-identity.js";
import type { VisitorLimits } from "./visitor-limits.js";
import type { WidgetScript } from "./widget-bundle.js";

// What the web chat's tests and fuzzers read from here: the settings' freshness and the message schema.
export { WIDGET_SETTINGS_MAX_AGE_S } from "./routes/admission.js";
export { webChatMessage } from "./routes/message-route.js";

/** What {@link webChatRoutes} serves. */
export interface WebChatRoutesOptions extends WidgetSettingsOptions {
  /** The chatbot of the web chat's bot, whose settings style the widget and whose Domains admit pages. */
  chatbot: ChatbotView | undefined;
  /** The widget's bundle; undefined when it was not built (see widget-bundle.ts). */
  widget: WidgetScript | undefined;
  /** Issues visitors' identities and checks them on every message and event stream. */
  identity: VisitorIdentity;
  /** Where visitors' consent to the privacy policy is recorded. */
  consents: PrivacyConsents;
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
 * origin the chatbot's `VerifyDomain`/`Domains` do not admit (routes/admission.ts). A post that is not a
 * {@link webChatMessage} is answered 400 naming the field; one that is not JSON or over 16 KB is refused in JSON by
 * the app's error handler (src/app/json-fallbacks.ts), as is a consent over 4 KB or a file over 20 MB; the endpoints
 * that read nothing take no body (413). Anyone can post here: nothing is counted or logged as malformed. Identities,
 * messages, uploads and event streams are limited per visitor and per client address (429 with the wait, in words:
 * see visitor-limits.ts); a refused request is neither processed nor recorded.
 */
export function webChatRoutes(channel: WebChannel, sink: InboundSink, options: WebChatRoutesOptions): Router {
  const { chatbot, widget, identity, consents, limits } = options;
  const admission = new WebChatAdmission(chatbot, identity, consents);
  const router = Router();
  router.get("/", pageRoute(options.title, chatbot, widget));
  router.get("/widget.js", widgetScriptRoute(widget));
  router.use("/webchat", widgetCors);
  router.get("/webchat/widget", noBody, widgetSettingsRoute(admission, options));
  router.get("/webchat/picture/:kind", noBody, pictureRoute(admission));
  router.post("/webchat/visitors", noBody, visitorsRoute(admission, identity, limits));
  router.post(
    "/webchat/uploads",
    // Its checks answer before the body is read: the rest is drained, so the client still sending it gets the answer.
    answeringBeforeBody,
    uploadAdmission(admission, limits),
    // Over the limit by its Content-Length: refused before reading; without one, cut as soon as it passes.
    express.raw({ type: () => true, limit: MAX_VISITOR_FILE_BYTES }),
    uploadRoute(channel),
  );
  router.post("/webchat/consent", express.json({ limit: "4kb" }), consentRoute(admission, consents));
  router.post("/webchat/messages", express.json({ limit: "16kb" }), messageRoute(admission, channel, sink, limits));
  router.get("/webchat/events", noBody, eventsRoute(admission, channel, limits));
  return router;
}
