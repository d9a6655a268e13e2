import { once } from "node:events";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { type App, type Logger, LogLevel } from "@slack/bolt";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SlackHttpReceiver } from "../../../adapters/slack/http-receiver.js";
import { finalErrorHandler, unknownRoute } from "../../../src/app/json-fallbacks.js";
import type { MalformedPayload } from "../../../src/bridge/malformed-payloads.js";
import { createLogger } from "../../../src/common/log.js";
import { slackSignature } from "../../emulators/slack-deliver.js";
import { expectAnswer, sendBody } from "../../support/raw-http.js";

const SIGNING_SECRET = "8f742231b10e8888abcd99yyyzzz85a5";
const EVENTS = "/webhooks/slack/events";
const ACTIONS = "/webhooks/slack/actions";
const MB = 1024 * 1024;
/** Twice the receiver's 1 MB limit. */
const OVERSIZED = 2 * MB;
const BAD_SIGNATURE = { error: "wrong or missing X-Slack-Signature" };
/** Right shape, wrong value: only the body could tell. */
const WELL_FORMED = `v0=${"ab".repeat(32)}`;
/** X-Slack-Signature values that can never match, whatever the body. */
const MALFORMED = [
  "",
  "v0=",
  "v0=deadbeef",
  `v0=${"g".repeat(64)}`,
  `v1=${"ab".repeat(32)}`,
  `V0=${"ab".repeat(32)}`,
  `v0=${"AB".repeat(32)}`,
  `v0=${"ab".repeat(32)}0`,
  "ab".repeat(32),
  `v0=${"ab".repeat(32)}, v0=${"ab".repeat(32)}`,
];

const silent: Logger = {
  debug: () => {},
  info: () => {},
  warn: () => {},
  error: () => {},
  setLevel: () => {},
  getLevel: () => LogLevel.ERROR,
  setName: () => {},
};

let server: Server;
let base: string;
const dispatched: unknown[] = [];
const malformed: MalformedPayload[] = [];

beforeAll(async () => {
  const receiver = new SlackHttpReceiver({
    signingSecret: SIGNING_SECRET,
    eventsPath: EVENTS,
    actionsPath: ACTIONS,
    botId: "default",
    logger: silent,
    onMalformed: (payload) => void malformed.push(payload),
  });
  receiver.init({
    processEvent: async (event: { body: unknown; ack: () => Promise<void> }) => {
      dispatched.push(event.body);
      await event.ack();
    },
  } as unknown as App);
  // As the bridge app serves it: the JSON fallbacks answer a body over the limit with a JSON 413.
  const app = express();
  app.use(receiver.router, unknownRoute, finalErrorHandler(createLogger("silent")));
  server = app.listen(0, "127.0.0.1");
  await once(server, "listening");
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/** Headers of a fresh request, with `signature` as X-Slack-Signature unless undefined (then none is sent). */
function headers(signature: string | undefined): Record<string, string> {
  return {
    "content-type": "application/json",
    "x-slack-request-timestamp": String(Math.floor(Date.now() / 1000)),
    ...(signature === undefined ? {} : { "x-slack-signature": signature }),
  };
}

describe("SlackHttpReceiver: a request that cannot be signed gets 401 before its body is read", () => {
  it("answers an oversized body without X-Slack-Signature with 401, not 413", async () => {
    for (const path of [EVENTS, ACTIONS]) {
      for (const connection of ["close", "keep-alive"] as const) {
        const answer = await sendBody(base, {
          method: "POST",
          path,
          headers: headers(undefined),
          bodyBytes: OVERSIZED,
          connection,
        });
        expectAnswer(answer, 401, BAD_SIGNATURE, `${path} ${connection}`);
        expect(answer.sentBytes).toBe(OVERSIZED);
      }
    }
    expect(dispatched).toEqual([]);
    expect(malformed).toEqual([]);
  });

  it("answers an oversized body with a malformed X-Slack-Signature with 401, not 413", async () => {
    for (const signature of MALFORMED) {
      const answer = await sendBody(base, {
        method: "POST",
        path: EVENTS,
        headers: headers(signature),
        bodyBytes: OVERSIZED,
        connection: "close",
      });
      expectAnswer(answer, 401, BAD_SIGNATURE, JSON.stringify(signature));
    }
    expect(dispatched).toEqual([]);
    expect(malformed).toEqual([]);
  });

  it("answers from the headers alone: the 401 comes while the body is withheld", async () => {
    for (const signature of [undefined, "v0=deadbeef"]) {
      const answer = await sendBody(base, {
        method: "POST",
        path: EVENTS,
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
        path: EVENTS,
        headers: headers(WELL_FORMED),
        bodyBytes: OVERSIZED,
        connection,
      });
      expectAnswer(answer, 413, { error: "the request body is over 1 MB" }, connection);
    }
    expect(dispatched).toEqual([]);
  });

  it("still checks a well-formed signature on the body: a wrong one is 401, the right one taken", async () => {
    const challenge = JSON.stringify({ token: "t", challenge: "c-42", type: "url_verification" });
    const wrong = await fetch(`${base}${EVENTS}`, { method: "POST", headers: headers(WELL_FORMED), body: challenge });
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toEqual(BAD_SIGNATURE);
    const timestamp = Math.floor(Date.now() / 1000);
    const signed = await fetch(`${base}${EVENTS}`, {
      method: "POST",
      headers: {
        ...headers(slackSignature(SIGNING_SECRET, timestamp, challenge)),
        "x-slack-request-timestamp": String(timestamp),
      },
      body: challenge,
    });
    expect(signed.status).toBe(200);
    expect(await signed.json()).toEqual({ challenge: "c-42" });
  });
});
