import { createReadStream } from "node:fs";
import { pipeline } from "node:stream/promises";
import { Router } from "express";
import { CHATBOT_PICTURE_PATH } from "../../api/chatbot-pictures.js";
import { API_ROOT } from "../../api/operations.js";
import { pictureQuerySchema } from "../../api/requests/chatbot.js";
import { etagMatches } from "../../common/etag-match.js";
import { strictRoutes } from "../http/methods.js";
import { parseRequest } from "../schemas/parse-request.js";
import type { FileService } from "../services/files.js";

/** How long browsers and proxies may keep a picture without asking again (an ETag answers that with a 304). */
const PICTURE_MAX_AGE_S = 300;

/**
 * `GET /chat/Chatbot/Picture?serialNumber=<serial>&kind=profile|icon`, an extension of the self-hosted server: the
 * bytes of the image a chatbot's ChatProfilePicture or ChatIcon names, so that the web chat can show a picture set
 * the documented way (a file id). Public on purpose, no key: a chatbot's avatar is shown on public pages, and only
 * the files a chatbot names as its pictures are served (see FileService.chatbotPicture), never other uploads.
 *
 * Not a row of the API's table (src/api/operations.ts), like the upload's PUT: a row is a JSON operation that takes
 * a workspace key and whose envelope's `Data` the client reads, while this takes no key and answers raw bytes (the
 * envelope only when it fails), cached by browsers with an ETag.
 */
export function pictureRoutes(files: FileService): Router {
  const router = Router();
  strictRoutes(router).get(CHATBOT_PICTURE_PATH.slice(API_ROOT.length), async (req, res) => {
    const { serialNumber, kind } = parseRequest(pictureQuerySchema, req.query);
    const picture = await files.chatbotPicture(serialNumber, kind);
    const etag = `"${picture.sha256}"`;
    res.set({
      etag,
      "cache-control": `public, max-age=${PICTURE_MAX_AGE_S}`,
      "x-content-type-options": "nosniff",
    });
    if (etagMatches(req.get("if-none-match"), etag)) {
      res.status(304).end();
      return;
    }
    res.status(200).set({ "content-type": picture.mime, "content-length": String(picture.size) });
    await pipeline(createReadStream(picture.path), res);
  });
  return router;
}
