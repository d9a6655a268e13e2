import { createHmac } from "node:crypto";
import { type Agent, fetch } from "undici";

/** How {@link deliverEvent} signs and marks a delivery. */
export interface SlackDeliveryOptions {
  signingSecret: string;
  /** Unix seconds for X-Slack-Request-Timestamp; default now. */
  timestamp?: number;
  /** X-Slack-Retry-Num, as on Slack's redeliveries. */
  retryNum?: number;
  /** X-Slack-Retry-Reason, e.g. "http_timeout". */
  retryReason?: string;
  /** Sent instead of the correct X-Slack-Signature, to test refusals. */
  signature?: string;
  /**
   * "form" sends the payload as interactivity requests come: `application/x-www-form-urlencoded` with the JSON in
   * a `payload` field (https://docs.slack.dev/interactivity/handling-user-interaction). Default "json" (Events API).
   */
  encoding?: "json" | "form";
}

/** What the receiver answered. */
export interface SlackDeliveryResult {
  status: number;
  body: string;
  headers: Record<string, string>;
}

/** "v0=" + hex HMAC-SHA256 of `v0:<timestamp>:<body>` (https://api.slack.com/authentication/verifying-requests-from-slack). */
export function slackSignature(signingSecret: string, timestamp: number, body: string): string {
  return `v0=${createHmac("sha256", signingSecret).update(`v0:${timestamp}:${body}`).digest("hex")}`;
}

/** POSTs an Events API payload (JSON) or an interactivity payload (form), signed and headed as Slack sends it. */
export async function deliverEvent(
  agent: Agent,
  url: string,
  payload: object,
  options: SlackDeliveryOptions,
): Promise<SlackDeliveryResult> {
  const form = options.encoding === "form";
  const body = form ? new URLSearchParams({ payload: JSON.stringify(payload) }).toString() : JSON.stringify(payload);
  const timestamp = options.timestamp ?? Math.floor(Date.now() / 1000);
  const response = await fetch(url, {
    dispatcher: agent,
    method: "POST",
    headers: {
      "content-type": form ? "application/x-www-form-urlencoded" : "application/json",
      "user-agent": "Slackbot 1.0 (+https://api.slack.com/robots)",
      "x-slack-request-timestamp": String(timestamp),
      "x-slack-signature": options.signature ?? slackSignature(options.signingSecret, timestamp, body),
      ...(options.retryNum !== undefined && { "x-slack-retry-num": String(options.retryNum) }),
      ...(options.retryReason !== undefined && { "x-slack-retry-reason": options.retryReason }),
    },
    body,
  });
  return { status: response.status, body: await response.text(), headers: Object.fromEntries(response.headers) };
}
