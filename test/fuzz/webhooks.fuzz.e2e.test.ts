import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { shownText } from "../emulators/whatsapp.js";
import { until } from "../support/waiting.js";
import { newVisitor } from "../support/web-chat-stream.js";
import { type FuzzBridge, startFuzzBridge } from "./fuzz-bridge.js";
import {
  CHANNEL_OF,
  describeCase,
  type FuzzCase,
  fuzzCases,
  malformedCounts,
  post,
  postAll,
  problemOf,
  TARGETS,
  type Target,
} from "./webhook-fuzz.js";

/** Payloads per route (fewer for Slack's interactivity, which dispatches one kind); bench/fuzz-webhooks.ts runs more. */
const COUNT = 2_000;
const COUNTS: Record<Target, number> = {
  telegram: COUNT,
  whatsapp: COUNT,
  "slack-events": COUNT,
  "slack-actions": COUNT / 4,
  web: COUNT,
};
const SEED = 20_260_112;
/** Generous limits: the machine may be busy with other suites; the run itself takes a few seconds. */
const SLOW = 60_000;

let bridge: FuzzBridge;
let base: string;
const cases = TARGETS.flatMap((target) => fuzzCases(target, COUNTS[target], SEED));
const refused = cases.filter((fuzzCase) => fuzzCase.verdict !== "fits");
const fitting = cases.filter((fuzzCase) => fuzzCase.verdict === "fits");

beforeAll(async () => {
  bridge = await startFuzzBridge();
  base = bridge.running.url;
}, 30_000);

afterAll(() => bridge?.close(), 30_000);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Posts one JSON payload to a platform route, authenticated, and returns what the bridge answered. */
const postOne = (target: FuzzCase["target"], payload: unknown) =>
  post(base, { target, payload: JSON.stringify(payload), verdict: "malformed" }, bridge.secrets);

describe("the webhooks and the web chat under fuzzing (authentic, malformed bodies)", () => {
  it("generates, for every route, payloads that fit and payloads that do not", () => {
    for (const target of TARGETS) {
      const verdicts = cases.filter((fuzzCase) => fuzzCase.target === target).map((fuzzCase) => fuzzCase.verdict);
      expect(verdicts.filter((verdict) => verdict === "fits").length, target).toBeGreaterThanOrEqual(5);
      expect(verdicts.filter((verdict) => verdict !== "fits").length, target).toBeGreaterThan(COUNTS[target] / 4);
    }
  });

  it(
    "acknowledges every payload that does not fit, in JSON, counts it, and neither asks nor sends anything",
    async () => {
      const before = bridge.outgoing();
      const countsBefore = await malformedCounts(base);
      const run = await postAll(base, refused, bridge.secrets);
      expect(
        run.problems.map(
          ({ fuzzCase, answer, problem }) => `${problem}: ${answer.body.slice(0, 200)} ← ${describeCase(fuzzCase)}`,
        ),
      ).toEqual([]);
      expect(run.answered).toBe(refused.length);
      // Platforms get 2xx (so they stop re-delivering); the web chat, anyone's, 400 and 413.
      expect([...run.statuses.keys()].sort()).toEqual(expect.arrayContaining([200]));
      for (const status of run.statuses.keys()) expect([200, 400, 413]).toContain(status);
      // Anything the bridge would do with them happens within milliseconds of the acknowledgement.
      await sleep(500);
      expect(bridge.outgoing()).toEqual(before);
      const counts = await malformedCounts(base);
      for (const channel of ["telegram", "whatsapp", "slack"]) {
        const expected = refused.filter((c) => c.verdict === "malformed" && CHANNEL_OF[c.target] === channel).length;
        expect((counts[channel] ?? 0) - (countsBefore[channel] ?? 0), channel).toBe(expected);
      }
      expect(counts.web).toBeUndefined();
    },
    SLOW,
  );

  it("refuses the shapes the first fuzzing found, with no request upstream or to the platform", async () => {
    const before = bridge.outgoing();
    const update = (message: Record<string, unknown>) => ({
      update_id: 990_000,
      message: {
        message_id: 1,
        date: 1,
        chat: { id: 7527593, type: "private" },
        from: { id: 7527593 },
        text: "hi",
        ...message,
      },
    });
    const telegram: unknown[] = [
      update({ chat: { id: "abc", type: "private" } }),
      update({ chat: { id: 1.5, type: "private" } }),
      update({ chat: { id: null, type: "private" } }),
      update({ chat: undefined }),
      update({ chat: "7527593" }),
      update({ text: { bold: true } }),
      update({ entities: "mention" }),
      { update_id: 990_001, stopped_message_generation: { chat: "5" } },
    ];
    const delivery = (message: Record<string, unknown>, value: Record<string, unknown> = {}) => ({
      object: "whatsapp_business_account",
      entry: [
        {
          changes: [
            {
              field: "messages",
              value: {
                metadata: { phone_number_id: bridge.whatsapp.phoneNumberId },
                contacts: [{ wa_id: "15550002222" }],
                messages: [
                  { id: "wamid.regression", type: "text", text: { body: "hi" }, from: "15550002222", ...message },
                ],
                ...value,
              },
            },
          ],
        },
      ],
    });
    const whatsapp: unknown[] = [
      delivery({ from: {} }),
      delivery({ from: [] }),
      delivery({ from: 5 }),
      delivery({}, { contacts: { wa_id: "15550002222" } }),
      delivery({}, { messages: { id: "x" } }),
      delivery({}, { statuses: 5 }),
      { object: "whatsapp_business_account", entry: { changes: [] } },
    ];
    const event = (fields: Record<string, unknown>) => ({
      type: "event_callback",
      team_id: "T00FAKE00AA",
      event: {
        type: "message",
        user: "U1",
        ts: "1.2",
        text: "hi",
        channel: "D0A5319PS02",
        channel_type: "im",
        ...fields,
      },
    });
    const slack: unknown[] = [
      event({ channel: { id: "D0A5319PS02" } }),
      event({ channel: 5 }),
      { type: "event_callback", event: "message" },
      { type: "event_callback", event: null },
      null,
      [],
      { event: event({}).event },
      { type: "x_unknown", event: event({}).event },
      { ...event({}), authorizations: { team_id: "T1" } },
    ];
    const answers = [
      ...(await Promise.all(telegram.map((payload) => postOne("telegram", payload)))),
      ...(await Promise.all(whatsapp.map((payload) => postOne("whatsapp", payload)))),
      ...(await Promise.all(slack.map((payload) => postOne("slack-events", payload)))),
    ];
    for (const answer of answers) {
      expect(answer.status).toBe(200);
      expect(JSON.parse(answer.body)).toEqual({ status: "malformed" });
    }
    await sleep(300);
    expect(bridge.outgoing()).toEqual(before);
  });

  it("answers JSON, never an HTML page or a stack, on broken posts to any route", async () => {
    const brokenWebPost = await fetch(`${base}/webchat/messages`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{",
    });
    expect(brokenWebPost.status).toBe(400);
    expect(await brokenWebPost.json()).toEqual({ error: "the request body is not valid JSON" });
    // A signature that can never match is refused from the headers, whatever the size of the body; a well-formed one
    // needs the body, which is over the limit.
    const hugeUnsigned = await fetch(`${base}/webhooks/whatsapp`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "x".repeat(4 * 1024 * 1024),
    });
    expect(hugeUnsigned.status).toBe(401);
    expect(await hugeUnsigned.json()).toEqual({ error: "wrong or missing X-Hub-Signature-256" });
    const huge = await fetch(`${base}/webhooks/whatsapp`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-hub-signature-256": `sha256=${"0".repeat(64)}` },
      body: "x".repeat(4 * 1024 * 1024),
    });
    expect(huge.status).toBe(413);
    expect(await huge.json()).toEqual({ error: "the request body is over 3 MB" });
    const unknown = await fetch(`${base}/webhooks/nowhere`, { method: "POST", body: "{}" });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({ error: "not found" });
    const badSlack = await fetch(`${base}/webhooks/slack/events`, { method: "POST", body: "{}" });
    expect(badSlack.status).toBe(401);
    expect(
      problemOf({ status: 401, contentType: badSlack.headers.get("content-type") ?? "", body: await badSlack.text() }),
    ).toBeUndefined();
  });

  it(
    "answers every payload that fits without a failure, and sends the platforms only well-typed ids",
    async () => {
      bridge.chatbot.answer = () => ({ fragments: ["ok"], pauseMs: 0 });
      const run = await postAll(base, fitting, bridge.secrets);
      expect(
        run.problems.map(
          ({ fuzzCase, answer, problem }) => `${problem}: ${answer.body.slice(0, 200)} ← ${describeCase(fuzzCase)}`,
        ),
      ).toEqual([]);
      for (const status of run.statuses.keys()) expect([200, 202]).toContain(status);
      await sleep(500);
      for (const call of bridge.telegram.calls) {
        if ("chat_id" in call.params)
          expect(Number.isSafeInteger(Number(call.params.chat_id)), JSON.stringify(call.params)).toBe(true);
      }
      for (const call of bridge.slack.calls) {
        if ("channel" in call.params) expect(typeof call.params.channel).toBe("string");
      }
      for (const call of bridge.whatsapp.calls) {
        const to = (call.body as { to?: unknown } | undefined)?.to;
        if (to !== undefined) expect(typeof to).toBe("string");
      }
    },
    SLOW,
  );

  it(
    "still answers a valid message on every channel at the end",
    async () => {
      bridge.chatbot.answer = (question) => ({ fragments: ["Answer ", "to ", question] });
      const chatId = 9_100_001;
      await bridge.telegram.deliver({
        update_id: 9_100_001,
        message: {
          message_id: 1,
          date: 1,
          chat: { id: chatId, type: "private" },
          from: { id: chatId, is_bot: false, first_name: "Ana" },
          text: "last telegram",
        },
      });
      const waId = "15559100001";
      await bridge.whatsapp.deliver(
        `${base}/webhooks/whatsapp`,
        bridge.whatsapp.delivery([{ type: "text", text: { body: "last whatsapp" } }], { from: waId }),
      );
      await bridge.slack.deliver(
        `${base}/webhooks/slack/events`,
        {
          type: "event_callback",
          team_id: "T00FAKE00AA",
          event_id: "EvLast",
          event: {
            type: "message",
            user: "U0ANA",
            ts: "1767400000.000100",
            text: "last slack",
            channel: "D0LAST",
            channel_type: "im",
          },
        },
        { signingSecret: bridge.secrets.slackSigningSecret },
      );
      const web = await fetch(`${base}/webchat/messages`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ visitorId: await newVisitor(base), messageId: "last", text: "last web" }),
      });
      expect(web.status).toBe(202);
      await until(
        () =>
          bridge.telegram.messagesIn(chatId).some((m) => m.text?.endsWith("Answer to last telegram"))
            ? true
            : undefined,
        15_000,
      );
      await until(
        () =>
          bridge.whatsapp.sentTo(waId).some((m) => shownText(m).endsWith("Answer to last whatsapp")) ? true : undefined,
        15_000,
      );
      await until(
        () =>
          bridge.slack.messagesIn("D0LAST").some((m) => m.text?.endsWith("Answer to last slack")) ? true : undefined,
        15_000,
      );
      await until(() => (bridge.chatbot.asks.some((ask) => ask.content === "last web") ? true : undefined), 15_000);
      expect((await fetch(`${base}/healthz`)).status).toBe(200);
    },
    SLOW,
  );
});
