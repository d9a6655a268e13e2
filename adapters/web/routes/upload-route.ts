import type { RequestHandler } from "express";
import type { WebChannel } from "../outbound.js";
import type { VisitorFileKind } from "../visitor-files.js";
import type { VisitorLimits } from "../visitor-limits.js";
import type { WebChatAdmission } from "./admission.js";
import { named, visitorQuery } from "./request-shape.js";

/** What {@link uploadAdmission} lets in, handed to {@link uploadRoute} in `res.locals.upload`. */
interface AdmittedUpload {
  visitorId: string;
  kind: VisitorFileKind;
}

/** An upload's media type, lower-cased and without parameters: what the file is kept as. */
function mediaType(contentType: string | undefined): string {
  return contentType?.split(";")[0]?.trim().toLowerCase() ?? "";
}

/** What an upload's Content-Type makes of it, where the chatbot's settings allow that kind. */
function uploadKind(contentType: string | undefined): VisitorFileKind | undefined {
  const type = mediaType(contentType);
  if (type.startsWith("image/")) return "image";
  if (type.startsWith("audio/")) return "voice";
  return undefined;
}

/**
 * The checks of `POST /webchat/uploads?visitor=…`, made before its body is read so that a refused upload costs no
 * transfer: who uploads (their token, their limit, their consent), and whether the chatbot takes that kind of file —
 * a photo (image/…) with EnableUploadImage, a push-to-talk recording (audio/…) with EnablePushToTalk.
 */
export function uploadAdmission(admission: WebChatAdmission, limits: VisitorLimits): RequestHandler {
  return async (req, res, next) => {
    const token = visitorQuery(req, res);
    if (token === undefined || !(await admission.chatbot(req, res, named(req.query.chatbot)))) return;
    const id = admission.visitor(res, token);
    if (id === undefined || !(await limits.admit(req, res, "upload", id)) || !(await admission.consented(res, id))) {
      return;
    }
    const kind = uploadKind(req.get("content-type"));
    if (!kind) {
      res.status(415).json({ error: "content-type must be an image/… (a photo) or audio/… (a recording)" });
      return;
    }
    // The chatbot's own switches: EnableUploadImage for photos, EnablePushToTalk for recordings.
    const settings = await admission.settings();
    if (!(kind === "image" ? settings?.EnableUploadImage : settings?.EnablePushToTalk)) {
      const what = kind === "image" ? "photos (EnableUploadImage)" : "voice messages (EnablePushToTalk)";
      res.status(403).json({ error: `this chatbot does not take ${what}` });
      return;
    }
    const upload: AdmittedUpload = { visitorId: id, kind };
    res.locals.upload = upload;
    next();
  };
}

/**
 * `POST /webchat/uploads` once admitted and read: keeps the file for a day for the message that names it
 * (visitor-files.ts) and answers its id; a store that cannot keep it is a 503, to be tried again.
 */
export function uploadRoute(channel: WebChannel): RequestHandler {
  return async (req, res) => {
    const { visitorId, kind } = res.locals.upload as AdmittedUpload;
    const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    if (body.length === 0) {
      res.status(400).json({ error: "body must hold the file's bytes" });
      return;
    }
    const type = mediaType(req.get("content-type"));
    const file = await channel.files?.keep(visitorId, kind, type, body).catch(() => undefined);
    if (!file) {
      res.status(503).json({ error: "the file could not be kept: try again" });
      return;
    }
    res.status(201).set("cache-control", "no-store").json({ file: file.id, kind, sizeBytes: file.sizeBytes });
  };
}
