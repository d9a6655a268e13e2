import { createHmac } from "node:crypto";
import type { App, Receiver, Logger as SlackLogger } from "@slack/bolt";
import express, { type NextFunction, type Request, type Response, type Router } from "express";
import { answerBeforeBody, type ReportMalformed, sameSecret } from "../../src/plugin/plugin-api.js";
import { type ScreenedSlackPayload, screenEventsPayload, screenInteractivePayload } from "./schema.js";

/** Slack's replay window: "more than five minutes from local time" is refused (https://docs.slack.dev/authentication/verifying-requests-from-slack). */
const MAX_CLOCK_SKEW_S = 5 * 60;

/** Slack's events and interactivity payloads are small (a message is at most 40,000 characters); checked while streaming. */
const MAX_BODY = "1mb";

/** What X-Slack-Signature looks like: `v0=` and the HMAC-SHA256 in 64 lowercase hex digits, as Slack writes it. */
const SIGNATURE_SHAPE = /^v0=[0-9a-f]{64}$/;

/** The answer to a request whose signature is missing, cannot be one, or does not match. */
const BAD_SIGNATURE = { error: "wrong or missing X-Slack-Signature" };

/** What {@link SlackHttpReceiver} needs. */
export interface SlackHttpOptions {
  signingSecret: string;
  /** The Events API path and the interactivity path. */
  eventsPath: string;
  actionsPath: string;
  /** The bot of this deployment, for the reports. */
  botId: string;
  logger: SlackLogger;
  onMalformed?: ReportMalformed | undefined;
}

type Endpoint = "events" | "interactive";

/**
 * The Events API and interactivity over HTTP, in place of Bolt's ExpressReceiver so that every answer is ours and
 * JSON: a request whose X-Slack-Request-Timestamp is missing or more than five minutes from now, in either direction,
 * or whose X-Slack-Signature is missing or not of the form `v0=<64 hex digits>`, is refused with 401 before its body
 * is read; the body is read up to 1 MB while it streams (413 beyond, from the app's error handler); the signature
 * (HMAC-SHA256 of `v0:<timestamp>:<body>`, compared in constant time) must match, else 401 and nothing is processed.
 * An authentic payload is then sorted (schema.ts): the url_verification challenge is answered, a payload that does
 * not fit is reported and acknowledged (Slack would otherwise retry it), an ignored kind acknowledged unread, and the
 * rest handed to Bolt, answered once the bridge has taken it (milliseconds, inside Slack's 3 s), or 500 so that Slack
 * delivers it again. Events acknowledgements carry a small JSON status; interactivity acknowledgements are empty, as
 * Slack reads a body there as a message.
 */
export class SlackHttpReceiver implements Receiver {
  readonly router: Router;
  readonly #options: SlackHttpOptions;
  #app: App | undefined;

  constructor(options: SlackHttpOptions) {
    this.#options = options;
    const body = express.raw({ type: () => true, limit: MAX_BODY });
    this.router = express.Router();
    this.router.post(options.eventsPath, refuseStale, refuseUnsigned, body, (req: Request, res: Response) =>
      this.#receive(req, res, "events"),
    );
    this.router.post(options.actionsPath, refuseStale, refuseUnsigned, body, (req: Request, res: Response) =>
      this.#receive(req, res, "interactive"),
    );
  }

  init(app: App): void {
    this.#app = app;
  }

  /** The routes are served by the bridge's express app: nothing to start or stop. */
  async start(): Promise<void> {}

  async stop(): Promise<void> {}

  async #receive(req: Request, res: Response, endpoint: Endpoint): Promise<void> {
    const raw: Buffer = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    if (!this.#authentic(req, raw)) {
      res.status(401).json(BAD_SIGNATURE);
      return;
    }
    const acknowledge = (status: string) => {
      if (endpoint === "events") res.status(200).json({ status });
      else res.status(200).end();
    };
    const payload = parsePayload(raw.toString("utf8"), req.get("content-type"));
    if (payload === undefined) {
      this.#options.onMalformed?.({ channel: "slack", botId: this.#options.botId, reason: "unreadable" });
      acknowledge("malformed");
      return;
    }
    const screened: ScreenedSlackPayload =
      endpoint === "events" ? screenEventsPayload(payload.value) : screenInteractivePayload(payload.value);
    switch (screened.kind) {
      case "challenge":
        res.status(200).json({ challenge: screened.challenge });
        return;
      case "malformed":
        this.#options.onMalformed?.({
          channel: "slack",
          botId: this.#options.botId,
          reason: screened.reason,
          body: payload.value,
          issues: screened.issues,
        });
        acknowledge("malformed");
        return;
      case "rate_limited":
        this.#options.logger.warn("Slack is holding back this app's events (app_rate_limited)");
        acknowledge("ignored");
        return;
      case "ignored":
        this.#options.logger.debug(`Slack payload ignored: ${screened.reason}`);
        acknowledge("ignored");
        return;
      case "dispatch":
        await this.#dispatch(req, res, screened.body, endpoint);
    }
  }

  async #dispatch(req: Request, res: Response, body: Record<string, unknown>, endpoint: Endpoint): Promise<void> {
    let response: unknown;
    const retryNum = Number(req.get("x-slack-retry-num"));
    try {
      await this.#app?.processEvent({
        body,
        retryNum: Number.isSafeInteger(retryNum) ? retryNum : undefined,
        retryReason: req.get("x-slack-retry-reason"),
        ack: async (answer?: unknown) => {
          response = answer;
        },
      });
    } catch (error) {
      this.#options.logger.warn(`Slack payload not taken (Slack sends it again): ${String(error)}`);
      res.status(500).json({ error: "the event could not be taken; retry" });
      return;
    }
    // Our listeners acknowledge without content; an object would be a response Slack reads (a modal's errors).
    if (typeof response === "object" && response !== null) res.status(200).json(response);
    else if (endpoint === "events") res.status(200).json({ status: "accepted" });
    else res.status(200).end();
  }

  /** The signature covers the raw bytes, as Slack sent them. */
  #authentic(req: Request, raw: Buffer): boolean {
    const timestamp = req.get("x-slack-request-timestamp") ?? "";
    const hmac = createHmac("sha256", this.#options.signingSecret).update(`v0:${timestamp}:`).update(raw);
    const expected = `v0=${hmac.digest("hex")}`;
    return sameSecret(expected, req.get("x-slack-signature") ?? "");
  }
}

/** 401 for a request whose timestamp is missing or more than five minutes from now, either way (Bolt checks only the past). */
function refuseStale(req: Request, res: Response, next: NextFunction): void {
  const timestamp = Number(req.get("x-slack-request-timestamp"));
  if (!Number.isFinite(timestamp) || Math.abs(Date.now() / 1000 - timestamp) > MAX_CLOCK_SKEW_S) {
    answerBeforeBody(req, res, 401, {
      error: "X-Slack-Request-Timestamp is missing or more than five minutes from now",
    });
    return;
  }
  next();
}

/**
 * 401 for a request whose X-Slack-Signature is missing or cannot be a signature, before its body is read: no body
 * could make it match, so a forged request gets its 401 whatever its size (not a 413 for a body over the limit), and
 * nothing of it is read but what the drain throws away. The shape says nothing about the secret; whether a
 * well-formed signature matches is checked on the body, in constant time.
 */
function refuseUnsigned(req: Request, res: Response, next: NextFunction): void {
  if (!SIGNATURE_SHAPE.test(req.get("x-slack-signature") ?? "")) {
    answerBeforeBody(req, res, 401, BAD_SIGNATURE);
    return;
  }
  next();
}

/**
 * The payload of a request: JSON (the Events API), or the JSON in the `payload` field of a form (interactivity,
 * https://docs.slack.dev/interactivity/handling-user-interaction). Undefined when it cannot be read.
 */
function parsePayload(raw: string, contentType: string | undefined): { value: unknown } | undefined {
  try {
    if (contentType?.startsWith("application/x-www-form-urlencoded")) {
      const field = new URLSearchParams(raw).get("payload");
      return field === null ? undefined : { value: JSON.parse(field) };
    }
    return { value: JSON.parse(raw) };
  } catch {
    return undefined;
  }
}
