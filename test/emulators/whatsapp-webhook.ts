import { createHmac } from "node:crypto";
import { type Agent, fetch } from "undici";

/** "sha256=" + hex HMAC-SHA256 of the raw body keyed with the app secret, as in X-Hub-Signature-256. */
export function hubSignature(appSecret: string, body: string): string {
  return `sha256=${createHmac("sha256", appSecret).update(body).digest("hex")}`;
}

/**
 * JSON with every non-ASCII character escaped (\uXXXX), as Meta writes webhook bodies (the reaction sample in the
 * Vercel Chat SDK's packages/adapter-whatsapp/sample-messages.md carries "\ud83d\udc4d"): a receiver that signs
 * re-serialized JSON instead of the raw body fails on such text.
 */
export const metaJson = (payload: object) =>
  JSON.stringify(payload).replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);

/** POSTs a webhook payload as Meta does: JSON with X-Hub-Signature-256 (or `signature` instead). */
export async function postWebhook(
  agent: Agent,
  url: string,
  appSecret: string,
  payload: object,
  signature?: string,
): Promise<{ status: number; body: string }> {
  const body = metaJson(payload);
  const response = await fetch(url, {
    dispatcher: agent,
    method: "POST",
    headers: {
      "content-type": "application/json",
      "x-hub-signature-256": signature ?? hubSignature(appSecret, body),
    },
    body,
  });
  return { status: response.status, body: await response.text() };
}

/** The GET Meta sends when a callback URL or verify token is set; the receiver should echo the challenge. */
export async function getVerification(
  agent: Agent,
  url: string,
  verifyToken: string,
  challenge: string,
): Promise<{ status: number; body: string }> {
  const target = new URL(url);
  target.searchParams.set("hub.mode", "subscribe");
  target.searchParams.set("hub.verify_token", verifyToken);
  target.searchParams.set("hub.challenge", challenge);
  const response = await fetch(target, { dispatcher: agent });
  return { status: response.status, body: await response.text() };
}
