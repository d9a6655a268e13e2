import { once } from "node:events";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { WhatsAppChannel } from "../../../adapters/whatsapp/outbound.js";
import { WHATSAPP_WEBHOOK_PATH, whatsappWebhookRoutes } from "../../../adapters/whatsapp/routes.js";
import { finalErrorHandler, unknownRoute } from "../../../src/app/json-fallbacks.js";
import type { InboundMessage, InboundSink } from "../../../src/bridge/inbound.js";
import type { MalformedPayload } from "../../../src/bridge/malformed-payloads.js";
import { createLogger } from "../../../src/common/log.js";
import { hubSignature } from "../../emulators/whatsapp-webhook.js";
import { expectAnswer, sendBody } from "../../support/raw-http.js";

const APP_SECRET = "whatsapp-app-secret";
const PHONE_NUMBER_ID = "100000000000001";
const MB = 1024 * 1024;
/** Over the route's 3 MB limit. */
const OVERSIZED = 4 * MB;
const BAD_SIGNATURE = { error: "wrong or missing X-Hub-Signature-256" };
/** Right shape, wrong value: only the body could tell. */
const WELL_FORMED = `sha256=${"ab".repeat(32)}`;
/** X-Hub-Signature-256 values that can never match, whatever the body. */
const MALFORMED = [
  "",
  "sha256=",
  "sha256=00",
  `sha256=${"g".repeat(64)}`,
  `sha1=${"ab".repeat(20)}`,
  `SHA256=${"ab".repeat(32)}`,
  `sha256=${"AB".repeat(32)}`,
  `sha256=${"ab".repeat(32)}0`,
  "ab".repeat(32),
  `sha256=${"ab".repeat(32)}, sha256=${"ab".repeat(32)}`,
];

let server: Server;
let base: string;
const accepted: InboundMessage[] = [];
const malformed: MalformedPayload[] = [];

beforeAll(async () => {
  const bridge: InboundSink = {
    accept: async (message) => {
      accepted.push(message);
      return "accepted";
    },
    cancel: () => {},
  };
  const channel = { typing: async () => {} } as unknown as WhatsAppChannel;
  const router = whatsappWebhookRoutes({
    path: WHATSAPP_WEBHOOK_PATH,
    appSecret: APP_SECRET,
    verifyToken: "verify-me",
    botId: "default",
    phoneNumberId: PHONE_NUMBER_ID,
    bridge,
    channel,
    log: createLogger("silent"),
    onMalformed: (payload) => void malformed.push(payload),
  });
  // As the bridge app serves it: the JSON fallbacks answer a body over the limit with a JSON 413.
  const app = express();
  app.use(router, unknownRoute, finalErrorHandler(createLogger("silent")));
  server = app.listen(0, "127.0.0.1");
  await once(server, "listening");
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const headers = (signature: string | undefined): Record<string, string> => ({
  "content-type": "application/json",
  ...(signature === undefined ? {} : { "x-hub-signature-256": signature }),
});

describe("whatsappWebhookRoutes: a delivery that cannot be signed gets 401 before its body is read", () => {
  it("answers an oversized body without X-Hub-Signature-256 with 401, not 413", async () => {
    for (const connection of ["close", "keep-alive"] as const) {
      const answer = await sendBody(base, {
        method: "POST",
        path: WHATSAPP_WEBHOOK_PATH,
        headers: headers(undefined),
        bodyBytes: OVERSIZED,
        connection,
      });
      expectAnswer(answer, 401, BAD_SIGNATURE, connection);
      expect(answer.sentBytes).toBe(OVERSIZED);
    }
    expect(accepted).toEqual([]);
    expect(malformed).toEqual([]);
  });

  it("answers an oversized body with a malformed X-Hub-Signature-256 with 401, not 413", async () => {
    for (const signature of MALFORMED) {
      const answer = await sendBody(base, {
        method: "POST",
        path: WHATSAPP_WEBHOOK_PATH,
        headers: headers(signature),
        bodyBytes: OVERSIZED,
        connection: "close",
      });
      expectAnswer(answer, 401, BAD_SIGNATURE, JSON.stringify(signature));
    }
    expect(accepted).toEqual([]);
    expect(malformed).toEqual([]);
  });

  it("answers from the headers alone: the 401 comes while the body is withheld", async () => {
    for (const signature of [undefined, "sha256=00"]) {
      const answer = await sendBody(base, {
        method: "POST",
        path: WHATSAPP_WEBHOOK_PATH,
        headers: headers(signature),
        bodyBytes: OVERSIZED,
        connection: "keep-alive",
        withholdBody: true,
        timeoutMs: 5_000,
      });
      expectAnswer(answer, 401, BAD_SIGNATURE, String(signature));
    }
  });

  it("still answers a well-formed signature with an oversized body 413, as it cannot be checked", async () => {
    for (const connection of ["close", "keep-alive"] as const) {
      const answer = await sendBody(base, {
        method: "POST",
        path: WHATSAPP_WEBHOOK_PATH,
        headers: headers(WELL_FORMED),
        bodyBytes: OVERSIZED,
        connection,
      });
      expectAnswer(answer, 413, { error: "the request body is over 3 MB" }, connection);
    }
    expect(accepted).toEqual([]);
  });

  it("still checks a well-formed signature on the body: a wrong one is 401, the right one taken", async () => {
    const delivery = JSON.stringify({
      object: "whatsapp_business_account",
      entry: [
        {
          id: "0",
          changes: [
            {
              field: "messages",
              value: {
                messaging_product: "whatsapp",
                metadata: { display_phone_number: "15550000000", phone_number_id: PHONE_NUMBER_ID },
                contacts: [{ profile: { name: "Ana" }, wa_id: "15550002222" }],
                messages: [
                  {
                    from: "15550002222",
                    id: "wamid.shape-check",
                    timestamp: String(Math.floor(Date.now() / 1000)),
                    type: "text",
                    text: { body: "hi" },
                  },
                ],
              },
            },
          ],
        },
      ],
    });
    const post = (signature: string) =>
      fetch(`${base}${WHATSAPP_WEBHOOK_PATH}`, { method: "POST", headers: headers(signature), body: delivery });
    const wrong = await post(WELL_FORMED);
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toEqual(BAD_SIGNATURE);
    expect(accepted).toEqual([]);
    const signed = await post(hubSignature(APP_SECRET, delivery));
    expect(signed.status).toBe(200);
    expect(await signed.json()).toEqual({ status: "accepted", messages: 1 });
    expect(accepted.map((message) => message.text)).toEqual(["hi"]);
  });
});
