import express, { type NextFunction, type Request, type Response, Router } from "express";
import { answerBeforeBody, type Logger, type ReportMalformed, sameSecret } from "../../src/plugin/plugin-api.js";
import type { DeliveryOutcome } from "./delivery.js";

/** The header Telegram sends the webhook's `secret_token` in (https://core.telegram.org/bots/api#setwebhook). */
export const SECRET_HEADER = "x-telegram-bot-api-secret-token";

/** The webhook path of the default bot; named bots use `${TELEGRAM_WEBHOOK_PATH}/<botId>`. */
export const TELEGRAM_WEBHOOK_PATH = "/webhooks/telegram";

/**
 * How long a webhook request may wait for the bridge to take its update. The bridge only claims and queues
 * (milliseconds); past this, something is slow and Telegram, which holds back a chat's later updates until
 * this one is acknowledged, should not wait for it.
 */
export const DEFAULT_ACK_WITHIN_MS = 1_500;

/** One bot's webhook: the secret it was registered with and where its updates go. */
export interface TelegramWebhook {
  /** The `secret_token` given to setWebhook (TELEGRAM_WEBHOOK_SECRET). */
  secret: string;
  deliver(update: unknown): Promise<DeliveryOutcome>;
}

/** Options of {@link telegramWebhookRoutes}. */
export interface TelegramRoutesOptions {
  log?: Logger | undefined;
  /** See {@link DEFAULT_ACK_WITHIN_MS}. */
  ackWithinMs?: number | undefined;
  /** Where authentic bodies that cannot be read (not JSON, over 1 MB) are reported. */
  onMalformed?: ReportMalformed | undefined;
}

/** Telegram's updates are small; 1 MB leaves room for long captions and entities without inviting abuse. */
const MAX_BODY = "1mb";

/**
 * `POST /webhooks/telegram` (the bot `default`) and `POST /webhooks/telegram/:botId`. The secret header is
 * checked in constant time before the body is read: a missing or wrong one gets 401 and nothing is read, so the
 * 1 MB limit only ever applies to authentic requests. An authentic update is answered at once, always in JSON — 200
 * when the bridge took it, or it was a duplicate, or it is malformed (not JSON, over 1 MB, or not fitting the schema
 * of what the bridge reads: retrying would not help, and the answer stops Telegram from sending it again); 503
 * while the bridge stops and 500 when it failed, so Telegram delivers it again ("we will repeat the request",
 * https://core.telegram.org/bots/api#setwebhook). The answer itself is never awaited.
 */
export function telegramWebhookRoutes(
  webhooks: ReadonlyMap<string, TelegramWebhook>,
  options: TelegramRoutesOptions = {},
): Router {
  const router = Router();
  const ackWithinMs = options.ackWithinMs ?? DEFAULT_ACK_WITHIN_MS;
  const authenticate = (req: Request, res: Response, next: NextFunction) => {
    const webhook = webhooks.get(botIdOf(req));
    // Both refusals come before the body is read: it is drained, so that the sender gets the answer.
    if (!webhook) {
      answerBeforeBody(req, res, 404, { error: "no such Telegram bot" });
      return;
    }
    if (!secretMatches(webhook.secret, req.get(SECRET_HEADER))) {
      answerBeforeBody(req, res, 401, { error: "wrong or missing X-Telegram-Bot-Api-Secret-Token" });
      return;
    }
    res.locals.webhook = webhook;
    next();
  };
  const receive = async (req: Request, res: Response) => {
    const webhook = res.locals.webhook as TelegramWebhook;
    const outcome = await settleWithin(webhook.deliver(req.body), ackWithinMs);
    if (outcome.state === "late") {
      outcome.later.catch((error: unknown) =>
        options.log?.error({ err: error, channel: "telegram" }, "an update acknowledged late could not be taken"),
      );
      answer(res, 200, { status: "pending" });
    } else if (outcome.state === "failed") {
      options.log?.warn({ err: outcome.error, channel: "telegram" }, "update not taken; Telegram will retry");
      answer(res, 500, { error: "the update could not be taken; retry" });
    } else answer(res, outcome.value === "stopping" ? 503 : 200, { status: outcome.value });
  };
  // Not strict: a body of `null` or `5` is JSON that does not fit the schema, which TelegramInbound reports as such.
  const body = express.json({ limit: MAX_BODY, type: () => true, strict: false });
  const unreadable = (error: unknown, req: Request, res: Response, next: NextFunction) => {
    const type = (error as { type?: unknown } | undefined)?.type;
    // Nobody is left to answer, or something else than the body failed.
    if (res.headersSent || type === "request.aborted" || typeof type !== "string") return next(error);
    const reason = type === "entity.too.large" ? "too_large" : "unreadable";
    options.onMalformed?.({ channel: "telegram", botId: botIdOf(req), reason });
    res.status(200).json({ status: "malformed" });
  };
  for (const path of [TELEGRAM_WEBHOOK_PATH, `${TELEGRAM_WEBHOOK_PATH}/:botId`]) {
    router.post(path, authenticate, body, receive, unreadable);
  }
  return router;
}

/**
 * Compares a received secret with the configured one in constant time (no early exit on the first differing
 * byte, which would let an attacker find the secret byte by byte). Only the length can be learnt, and Telegram
 * secrets have no secret length.
 */
export function secretMatches(expected: string, received: string | undefined): boolean {
  if (received === undefined || expected === "") return false;
  return sameSecret(expected, received);
}

function botIdOf(req: Request): string {
  const botId = req.params.botId;
  return typeof botId === "string" && botId !== "" ? botId : "default";
}

/**
 * Answers a webhook post with `body` as JSON, without what `res.json` adds for pages (an ETag hashed from the body,
 * a freshness check): nobody caches a webhook's answer, and at a thousand posts a second that was a fifth of the
 * webhook's CPU.
 */
function answer(res: Response, status: number, body: object): void {
  res.status(status).type("application/json").end(JSON.stringify(body));
}

type Settled<T> =
  | { state: "done"; value: T }
  | { state: "failed"; error: unknown }
  | { state: "late"; later: Promise<T> };

/** The promise's result if it settles within `ms`, else "late" with the promise to follow up. */
async function settleWithin<T>(promise: Promise<T>, ms: number): Promise<Settled<T>> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<"late">((resolve) => {
    timer = setTimeout(() => resolve("late"), ms);
  });
  try {
    const winner = await Promise.race([promise.then((value) => ({ value })), late]);
    return winner === "late" ? { state: "late", later: promise } : { state: "done", value: winner.value };
  } catch (error) {
    return { state: "failed", error };
  } finally {
    clearTimeout(timer);
  }
}
