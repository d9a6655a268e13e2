import { createHmac } from "node:crypto";
import express, { type NextFunction, type Request, type Response, type Router } from "express";
import {
  answerBeforeBody,
  type InboundSink,
  type Logger,
  type MalformedReason,
  type Refusal,
  type ReportMalformed,
  sameSecret,
} from "../../src/plugin/plugin-api.js";
import { parseDelivery } from "./inbound.js";
import type { WhatsAppChannel } from "./outbound.js";

/** The webhook path of the default bot; named bots use `${WHATSAPP_WEBHOOK_PATH}/<botId>` (one Meta app each). */
export const WHATSAPP_WEBHOOK_PATH = "/webhooks/whatsapp";

/** Meta's deliveries are small (a few KB, up to a hundred messages); the limit applies while the body streams in. */
const MAX_BODY = "3mb";

/** What X-Hub-Signature-256 looks like: `sha256=` and the HMAC-SHA256 in 64 lowercase hex digits, as Meta writes it. */
const SIGNATURE_SHAPE = /^sha256=[0-9a-f]{64}$/;

/** The answer to a delivery whose signature is missing, cannot be one, or does not match. */
const BAD_SIGNATURE = { error: "wrong or missing X-Hub-Signature-256" };

/** What {@link whatsappWebhookRoutes} needs: one number's webhook. */
export interface WhatsAppRoutesOptions {
  /** {@link WHATSAPP_WEBHOOK_PATH}, followed by `/<botId>` for a named bot. */
  path: string;
  appSecret: string;
  verifyToken: string;
  botId: string;
  phoneNumberId: string;
  bridge: InboundSink;
  /** Marks each message taken as read, with "typing…". */
  channel: WhatsAppChannel;
  log: Logger;
  onStatus?: ((status: string) => void) | undefined;
  onMalformed?: ReportMalformed | undefined;
}

/**
 * `GET <path>` answers Meta's subscription handshake (the challenge when `hub.verify_token` matches, compared in
 * constant time; 403 otherwise), and `POST <path>` checks `X-Hub-Signature-256` (HMAC-SHA256 of the raw body with
 * the app secret, in constant time; 401 and nothing processed otherwise), hands every message of the delivery to the
 * bridge in order and answers 200 at once — 500 if the bridge could not take them, so Meta delivers again (it
 * retries for days, and the bridge deduplicates on the message id). A signed delivery that is not JSON or does not
 * fit the schema of what the bridge reads (schema.ts) is reported and answered 200 `malformed`: none of it is used,
 * and Meta stops sending it. A request whose X-Hub-Signature-256 is missing or not of the form `sha256=<64 hex
 * digits>` is refused with 401 before its body is read; the signature covers the body, so a well-formed one with a
 * body over 3 MB is refused (413, JSON, by the app's error handler) before it can be checked; answers are always
 * JSON.
 */
export function whatsappWebhookRoutes(options: WhatsAppRoutesOptions): Router {
  const { path, appSecret, verifyToken, botId, phoneNumberId, bridge, channel, log } = options;
  const router = express.Router();
  router.get(path, (req: Request, res: Response) => {
    const token = typeof req.query["hub.verify_token"] === "string" ? req.query["hub.verify_token"] : undefined;
    if (req.query["hub.mode"] === "subscribe" && token !== undefined && sameSecret(verifyToken, token)) {
      res.type("text/plain").send(String(req.query["hub.challenge"] ?? ""));
      return;
    }
    res.status(403).json({ error: "verification failed" });
  });
  const malformed = (res: Response, reason: MalformedReason, body?: unknown, issues?: Refusal["issues"]) => {
    options.onMalformed?.({ channel: "whatsapp", botId, reason, body, issues });
    res.status(200).json({ status: "malformed" });
  };
  // The raw bytes are what the signature covers.
  const rawBody = express.raw({ type: () => true, limit: MAX_BODY });
  router.post(path, refuseUnsigned, rawBody, async (req: Request, res: Response) => {
    const raw: Buffer = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    const expected = `sha256=${createHmac("sha256", appSecret).update(raw).digest("hex")}`;
    if (!sameSecret(expected, req.get("x-hub-signature-256") ?? "")) {
      res.status(401).json(BAD_SIGNATURE);
      return;
    }
    let body: unknown;
    try {
      body = JSON.parse(raw.toString("utf8"));
    } catch {
      // Authentic but unreadable: retrying would not help.
      malformed(res, "unreadable");
      return;
    }
    const delivery = parseDelivery(body, { botId, phoneNumberId });
    if (delivery.malformed) {
      malformed(res, delivery.malformed.reason, body, delivery.malformed.issues);
      return;
    }
    for (const status of delivery.statuses) options.onStatus?.(status.status);
    try {
      for (const message of delivery.messages) {
        const outcome = await bridge.accept(message);
        if (outcome === "stopping") {
          res.status(503).json({ status: "stopping" });
          return;
        }
        // Read and "typing…" at once, outside the pacing of messages (it is not one): the person sees the message
        // was taken even while earlier answers are still going out; the bridge renews it while the answer comes.
        if (outcome === "accepted") {
          channel.typing(message.target).catch((error: unknown) => {
            log.debug({ channel: "whatsapp", reason: String(error) }, "read receipt not sent");
          });
        }
      }
    } catch (error) {
      log.warn({ err: error, channel: "whatsapp" }, "delivery not taken; WhatsApp will retry");
      res.status(500).json({ error: "the delivery could not be taken; retry" });
      return;
    }
    res.status(200).json({ status: "accepted", messages: delivery.messages.length });
  });
  return router;
}

/**
 * 401 for a delivery whose X-Hub-Signature-256 is missing or cannot be a signature, before its body is read: no body
 * could make it match, so a forged request gets its 401 whatever its size (not a 413 for a body over the limit), and
 * nothing of it is read but what the drain throws away. The shape says nothing about the secret; whether a
 * well-formed signature matches is checked on the body, in constant time.
 */
function refuseUnsigned(req: Request, res: Response, next: NextFunction): void {
  if (!SIGNATURE_SHAPE.test(req.get("x-hub-signature-256") ?? "")) {
    answerBeforeBody(req, res, 401, BAD_SIGNATURE);
    return;
  }
  next();
}
