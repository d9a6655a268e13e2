import { afterAll, beforeAll, expect, it } from "vitest";
import { screenEventsPayload, screenInteractivePayload } from "../../adapters/slack/schema.js";
import type { RunningBridge } from "../../src/app/bridge-app.js";
import { SlackEmulator } from "../emulators/slack.js";
import { startBridgeUnderTest } from "../support/bridge-under-test.js";
import { until } from "../support/waiting.js";
import { ScriptedChatbot } from "../upstream/scripted-chatbot.js";
import { fuzzer, type Json } from "./mutate.js";
import { malformedCounts } from "./webhook-fuzz.js";
import { SLACK_BOT_USER, slackActionSeeds, slackEventSeeds } from "./webhook-seeds.js";

const APP_TOKEN = "xapp-1-A0FUZZ-test";
const COUNT = 300;

let slack: SlackEmulator;
let chatbot: ScriptedChatbot;
let running: RunningBridge;

beforeAll(async () => {
  [slack, chatbot] = await Promise.all([
    SlackEmulator.start({ token: "xoxb-socket-fuzz", appToken: APP_TOKEN, botUserId: SLACK_BOT_USER }),
    ScriptedChatbot.start(),
  ]);
  running = await startBridgeUnderTest(chatbot, {
    SLACK_BOT_TOKEN: "xoxb-socket-fuzz",
    SLACK_APP_TOKEN: APP_TOKEN,
    SLACK_API_URL: slack.url,
  });
});

afterAll(async () => {
  await running?.close(1000);
  await Promise.all([slack?.close(), chatbot?.close()]);
});

interface Envelope {
  kind: "events_api" | "interactive";
  payload: object;
  malformed: boolean;
}

/**
 * Mutated Events API and interactivity payloads that are not dispatched (malformed, or kinds acknowledged unread),
 * with payloads or events the Socket Mode client itself cannot read among them ({}, an event of null).
 */
function refusedEnvelopes(): Envelope[] {
  const random = fuzzer(9_001);
  const seeds = { events_api: slackEventSeeds(), interactive: slackActionSeeds() };
  const envelopes: Envelope[] = [
    { kind: "events_api", payload: {}, malformed: true },
    { kind: "events_api", payload: { type: "event_callback", event: null }, malformed: true },
    { kind: "events_api", payload: { type: "event_callback", event: 5 }, malformed: true },
    { kind: "events_api", payload: [], malformed: true },
  ];
  while (envelopes.length < COUNT) {
    const kind = random.chance(0.8) ? "events_api" : "interactive";
    const payload = random.variant(random.pick(seeds[kind])) as Json;
    // The emulator wraps objects; a null payload is among the fixed cases' kind ({} has no event either).
    if (typeof payload !== "object" || payload === null) continue;
    const screened = (kind === "events_api" ? screenEventsPayload : screenInteractivePayload)(payload);
    if (screened.kind !== "dispatch") envelopes.push({ kind, payload, malformed: screened.kind === "malformed" });
  }
  return envelopes;
}

it("acknowledges every envelope that does not fit, counts it, dispatches none, and answers the next valid one", async () => {
  const before = { upstream: chatbot.api.requests.length, slack: slack.calls.length };
  const envelopes = refusedEnvelopes();
  for (const envelope of envelopes) {
    // Unacknowledged, Slack would send it again: each gets its ack within the emulator's 3 s.
    const ack = await slack.sendOverSocket(envelope.payload, { kind: envelope.kind });
    expect(ack.envelope_id).toBeTruthy();
  }
  expect({ upstream: chatbot.api.requests.length, slack: slack.calls.length }).toEqual(before);
  expect((await malformedCounts(running.url)).slack).toBe(envelopes.filter((envelope) => envelope.malformed).length);
  await slack.sendOverSocket({
    type: "event_callback",
    team_id: "T0TEST",
    event_id: "EvAfterGarbage",
    event: {
      type: "message",
      channel_type: "im",
      channel: "D0SOCKFUZZ",
      user: "U0ANA",
      ts: "1767400000.000100",
      text: "still there?",
    },
  });
  await until(
    () => (slack.messagesIn("D0SOCKFUZZ").some((m) => m.text?.endsWith("Answer to still there?")) ? true : undefined),
    15_000,
  );
});
