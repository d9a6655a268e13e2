import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { screenEventsPayload, screenInteractivePayload } from "../../../adapters/slack/schema.js";

const FIXTURES = new URL("../../fixtures/vercel-chat/", import.meta.url);
const fixture = (name: string) => JSON.parse(readFileSync(new URL(name, FIXTURES), "utf8"));
const dm = fixture("dm-slack.json");
const channel = fixture("slack.json");
const mention = fixture("channel-mention-slack.json");

const withEvent = (event: Record<string, unknown>) => ({ ...dm.dmMessage, event: { ...dm.dmMessage.event, ...event } });

describe("screenEventsPayload", () => {
  it("dispatches the recorded events, without the fields Bolt and the bridge do not read", () => {
    for (const payload of [
      dm.mention,
      dm.dmRequest,
      dm.dmMessage,
      channel.mention,
      channel.followUp,
      mention.mention,
    ]) {
      expect(screenEventsPayload(payload).kind).toBe("dispatch");
    }
    const screened = screenEventsPayload({ ...mention.mention, response_urls: null });
    expect(screened.kind === "dispatch" && screened.body).toMatchObject({
      type: "event_callback",
      team_id: "T00FAKE00AA",
      event: { type: "message", channel: "C00FAKECHAN1", ts: "1773327463.619929" },
    });
    expect(screened.kind === "dispatch" && Object.keys(screened.body)).not.toContain("response_urls");
    expect(screened.kind === "dispatch" && Object.keys(screened.body.event as object)).not.toContain("blocks");
  });

  it("answers the handshake, and ignores bookkeeping subtypes and event types it does not read", () => {
    expect(screenEventsPayload({ token: "t", challenge: "abc", type: "url_verification" })).toEqual({
      kind: "challenge",
      challenge: "abc",
    });
    expect(screenEventsPayload({ type: "app_rate_limited", minute_rate_limited: 1 })).toEqual({ kind: "rate_limited" });
    expect(screenEventsPayload(withEvent({ subtype: "message_changed", channel: { odd: true } }))).toEqual({
      kind: "ignored",
      reason: "message_changed message",
    });
    expect(screenEventsPayload(withEvent({ type: "reaction_added", item: 5 }))).toEqual({
      kind: "ignored",
      reason: "reaction_added event",
    });
  });

  it("refuses what does not fit: a missing or unknown envelope type, an event of another shape", () => {
    const reasons = (payloads: unknown[]) =>
      payloads.map((payload) => {
        const screened = screenEventsPayload(payload);
        return screened.kind === "malformed" ? screened.reason : screened.kind;
      });
    expect(reasons([{ type: "x_unknown" }, { type: "EVENT_CALLBACK", event: dm.dmMessage.event }])).toEqual([
      "unknown_type",
      "unknown_type",
    ]);
    expect(
      reasons([
        null,
        [],
        "event_callback",
        { event: dm.dmMessage.event },
        { ...dm.dmMessage, event: "message" },
        { ...dm.dmMessage, event: null },
        withEvent({ channel: 5 }),
        withEvent({ channel: { id: "D1" } }),
        withEvent({ ts: 1767377001.319859 }),
        withEvent({ text: ["hi"] }),
        withEvent({ subtype: 7 }),
        withEvent({ files: { id: "F1" } }),
        { ...dm.dmMessage, authorizations: { team_id: "T1" } },
        { ...dm.dmMessage, team_id: "__proto__" },
        { type: "url_verification" },
        withEvent({ type: "assistant_thread_started", assistant_thread: { user_id: "U1" } }),
      ]),
    ).toEqual(Array(16).fill("schema"));
  });
});

describe("screenInteractivePayload", () => {
  const tap = {
    type: "block_actions",
    user: { id: "U1", team_id: "T1" },
    channel: { id: "D1" },
    message: { ts: "100.1" },
    actions: [{ action_id: "chatbridge_quick_reply_1", value: "Rentals", action_ts: "101.5" }],
  };

  it("dispatches a button tap, ignores the other documented payloads, and refuses the rest", () => {
    expect(screenInteractivePayload(tap).kind).toBe("dispatch");
    expect(screenInteractivePayload({ type: "view_submission", view: {} })).toEqual({
      kind: "ignored",
      reason: "view_submission payload",
    });
    expect(screenInteractivePayload({ type: "x_unknown" })).toMatchObject({
      kind: "malformed",
      reason: "unknown_type",
    });
    for (const broken of [
      { ...tap, actions: [] },
      { ...tap, user: "U1" },
      { ...tap, team: 5 },
      // Bolt keys its client pools by the workspace id: found by the fuzzing as a 500.
      { ...tap, team: { id: "__proto__" } },
      { ...tap, user: { id: "U1", team_id: "constructor" } },
      { ...tap, type: 1 },
    ]) {
      expect(screenInteractivePayload(broken)).toMatchObject({ kind: "malformed", reason: "schema" });
    }
  });
});
