import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type RunningBridge, startBridge } from "../../../src/app/bridge-app.js";
import { createLogger } from "../../../src/common/log.js";
import { loadConfig } from "../../../src/config/config.js";
import { SlackEmulator } from "../../emulators/slack.js";
import { freePort, until } from "../../support/waiting.js";
import { ScriptedChatbot } from "../../upstream/scripted-chatbot.js";

const FIXTURES = new URL("../../fixtures/vercel-chat/", import.meta.url);
const fixture = (name: string) => JSON.parse(readFileSync(new URL(name, FIXTURES), "utf8"));
const dm = fixture("dm-slack.json");
const channelFixture = fixture("slack.json");

const SIGNING_SECRET = "8f742231b10e8888abcd99yyyzzz85a5";
const BOT_USER = dm.botUserId as string;

let slack: SlackEmulator;
let chatbot: ScriptedChatbot;
let running: RunningBridge;
let events: string;

beforeAll(async () => {
  [slack, chatbot] = await Promise.all([
    SlackEmulator.start({ token: "xoxb-test-token", botUserId: BOT_USER, teamId: "T00FAKE00AA" }),
    ScriptedChatbot.start(),
  ]);
  const port = await freePort();
  const config = loadConfig(
    {
      PORT: String(port),
      DATA_DIR: mkdtempSync(path.join(tmpdir(), "chatbridge-slack-")),
      STORE_URL: "memory://",
      CHATBOT_API_URL: chatbot.url,
      CHATBOT_API_KEY: "sk-test",
      CHATBOT_SERIAL_NUMBER: "homes",
      SLACK_BOT_TOKEN: "xoxb-test-token",
      SLACK_SIGNING_SECRET: SIGNING_SECRET,
      SLACK_API_URL: slack.url,
    },
    { envFile: undefined },
  );
  running = await startBridge(config, createLogger("silent"), { host: "127.0.0.1" });
  events = `${running.url}/webhooks/slack/events`;
});

afterAll(async () => {
  await running?.close(1000);
  await Promise.all([slack?.close(), chatbot?.close()]);
});

afterEach(() => {
  // The pacer keeps every call within the method tiers: the emulator never had to refuse one.
  expect(slack.rateLimited()).toEqual([]);
});

let nextEvent = 0;
let nextTs = 1767380000;

/** An Events API envelope around `event`, with a fresh event id. */
function envelope(event: object): object {
  return {
    token: "verification-token",
    team_id: "T00FAKE00AA",
    api_app_id: "A00FAKEAPP01",
    event,
    type: "event_callback",
    event_id: `Ev${++nextEvent}`,
    event_time: Math.floor(Date.now() / 1000),
    authorizations: [{ user_id: BOT_USER, is_bot: true }],
  };
}

/** A direct message from a person in a DM channel of its own. */
function directMessage(text: string, channel = `D${++nextTs}`) {
  return { type: "message", user: "U00FAKEUSER1", ts: `${++nextTs}.000100`, text, channel, channel_type: "im" };
}

const deliver = (payload: object, options: { retryNum?: number; timestamp?: number; signature?: string } = {}) =>
  slack.deliver(events, payload, { signingSecret: SIGNING_SECRET, ...options });

/** Resolves once the emulator has received no call for `ms`. */
async function quiet(ms = 400): Promise<void> {
  await until(() => (performance.now() - (slack.calls.at(-1)?.at ?? 0) > ms ? true : undefined), 15_000);
}

async function settled(channel: string, count: number, threadTs?: string): Promise<string[]> {
  await until(() => (slack.messagesIn(channel, threadTs).length >= count ? true : undefined), 15_000);
  await quiet();
  return slack.messagesIn(channel, threadTs).map((message) => message.text);
}

describe("Slack end to end (Events API, emulator, scripted chatbot)", () => {
  it("answers url_verification with the challenge, and shows Slack enabled", async () => {
    const answer = await deliver({
      token: "t",
      challenge: "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P",
      type: "url_verification",
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toContain("3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P");
    expect(running.channels.find((channel) => channel.name === "Slack")).toMatchObject({ enabled: true });
  });

  it("answers the recorded DM: the greeting opening the exact final text, as mrkdwn", async () => {
    chatbot.answer = (question) => ({ fragments: ["**Bold** answer ", "to ", question], pauseMs: 100 });
    const started = performance.now();
    const ack = await deliver({ ...dm.dmMessage, event_id: "EvDM1" });
    expect(ack.status).toBe(200);
    expect(performance.now() - started).toBeLessThan(1000);
    const channel = dm.dmMessage.event.channel as string;
    // At first contact the greeting opens the answer's message, shown at once and edited to the whole answer (an
    // edit Slack takes at most once a second in a channel).
    const final = "Welcome to *Homes*!\n\n*Bold* answer to Hey!";
    await until(() => (slack.messagesIn(channel)[0]?.text === final ? true : undefined));
    expect(await settled(channel, 1)).toEqual([final]);
    expect(chatbot.asks.at(-1)?.content).toBe("Hey!");
  });

  it("offers suggested questions as buttons in a plain DM, and answers the one tapped", async () => {
    chatbot.answer = (question) => ({ fragments: [`About ${question}`] });
    const message = directMessage("hello there");
    await deliver(envelope(message));
    type Blocks = { type: string; elements?: { action_id: string; value: string }[] }[];
    const actionsOf = (sent: { blocks?: unknown } | undefined) =>
      (sent?.blocks as Blocks | undefined)?.find((block) => block.type === "actions");
    // At first contact the greeting opens the answer, and its suggestions come with the answer's end.
    const answer = await until(() => {
      const [first] = slack.messagesIn(message.channel);
      return actionsOf(first) ? first : undefined;
    });
    const actions = actionsOf(answer);
    expect(actions?.elements?.map((button) => button.value)).toEqual(["Homes for sale", "Rentals"]);
    await quiet();
    expect(slack.messagesIn(message.channel).map((sent) => sent.text)).toEqual([
      "Welcome to *Homes*!\n\nAbout hello there",
    ]);
    const tap = {
      type: "block_actions",
      user: { id: "U00FAKEUSER1", team_id: "T00FAKE00AA" },
      team: { id: "T00FAKE00AA" },
      channel: { id: message.channel },
      message: { ts: answer?.ts },
      actions: [{ action_id: actions?.elements?.[1]?.action_id, value: "Rentals", action_ts: "1767399999.123" }],
    };
    const actionsUrl = `${running.url}/webhooks/slack/actions`;
    const tapped = await slack.deliver(actionsUrl, tap, { signingSecret: SIGNING_SECRET, encoding: "form" });
    expect(tapped.status).toBe(200);
    expect(
      (await slack.deliver(actionsUrl, tap, { signingSecret: SIGNING_SECRET, encoding: "form", signature: "v0=00" }))
        .status,
    ).toBe(401);
    const texts = await settled(message.channel, 2);
    expect(texts[1]).toBe("About Rentals");
    expect(chatbot.asks.filter((ask) => ask.content === "Rentals")).toHaveLength(1);
  });

  it("answers a mention in a channel in the message's thread, without the mention", async () => {
    chatbot.answer = (question) => ({
      fragments: ["Re: ", `**${question}**`, " — ", "in ", "full, ", "streamed ", "natively"],
      pauseMs: 500,
    });
    const event = channelFixture.mention.event;
    await deliver({ ...channelFixture.mention, event_id: "EvMention1" });
    await until(() => (slack.messagesIn(event.channel, event.ts)[0]?.stoppedAt !== undefined ? true : undefined));
    // At first contact the greeting opens the answer, in the same stream.
    const full = "Welcome to **Homes**!\n\nRe: **Hey** — in full, streamed natively";
    expect(await settled(event.channel, 1, event.ts)).toEqual([full]);
    expect(slack.messagesIn(event.channel).every((message) => message.threadTs === event.ts)).toBe(true);
    // In a thread the answer streams natively, to the person who asked, in their workspace.
    const answer = slack.messagesIn(event.channel, event.ts)[0];
    expect(answer).toMatchObject({ format: "markdown", streaming: false, recipientUserId: "U00FAKEUSER1" });
    expect(answer?.recipientTeamId).toBe("T00FAKE00AA");
    expect(answer?.appends).toBeGreaterThan(0);
    // Only the new text is appended each time: the calls add up to the answer, with no repeats.
    const streamed = slack.calls
      .filter((call) => call.ok && call.method.endsWith("Stream") && call.params.channel === event.channel)
      .map((call) => String(call.params.markdown_text ?? ""));
    expect(streamed.join("")).toBe(full);
  });

  it("answers follow-ups in a thread it takes part in without a new mention, and nothing in other threads", async () => {
    chatbot.answer = (question) => ({ fragments: [`On ${question}`] });
    const channel = "C00FOLLOW";
    const mention = {
      type: "app_mention",
      user: "U00FAKEUSER1",
      ts: `${++nextTs}.000700`,
      text: `<@${BOT_USER}> flats?`,
      channel,
    };
    await deliver(envelope(mention));
    await settled(channel, 1, mention.ts);
    const followUp = { type: "message", channel_type: "channel", user: "U00FAKEUSER1", channel, thread_ts: mention.ts };
    await deliver(envelope({ ...followUp, ts: `${++nextTs}.000800`, text: "and houses?" }));
    await deliver(envelope({ ...followUp, ts: `${++nextTs}.000900`, thread_ts: "1000.000001", text: "other thread" }));
    const texts = await settled(channel, 2, mention.ts);
    expect(texts).toEqual(["Welcome to **Homes**!\n\nOn flats?", "On and houses?"]);
    expect(chatbot.asks.some((ask) => ask.content === "other thread")).toBe(false);
    // One conversation per thread: the follow-up continued the mention's session.
    const [first, second] = ["flats?", "and houses?"].map((q) => chatbot.asks.find((ask) => ask.content === q));
    expect(second?.sessionId).toBe(first?.sessionId);
  });

  it("falls back to posting and editing when Slack refuses to stream, with the exact final text", async () => {
    slack.refuseStreaming("feature_not_enabled");
    try {
      // Slow enough that the workspace budget, shared with the tests before, has room for intermediate text.
      const fragments = ["A **garden** ", "flat, ", "2 rooms, ", "near ", "the ", "park, ", "$1,800 ", "a month"];
      chatbot.answer = () => ({ fragments, pauseMs: 600 });
      const mention = {
        type: "app_mention",
        user: "U00FAKEUSER1",
        ts: `${++nextTs}.000400`,
        text: `<@${BOT_USER}> rentals?`,
        channel: "C00RENTALS",
        team: "T00FAKE00AA",
      };
      await deliver(envelope(mention));
      // At first contact the greeting opens the answer.
      const final = "Welcome to *Homes*!\n\nA *garden* flat, 2 rooms, near the park, $1,800 a month";
      await until(() => (slack.messagesIn("C00RENTALS", mention.ts)[0]?.text === final ? true : undefined));
      await quiet();
      expect(slack.messagesIn("C00RENTALS", mention.ts).map((m) => [m.text, m.format])).toEqual([[final, "mrkdwn"]]);
      const refused = slack.callsTo("chat.startStream").filter((call) => call.params.channel === "C00RENTALS");
      expect(refused.map((call) => call.error)).toEqual(["feature_not_enabled"]);
    } finally {
      slack.refuseStreaming(undefined);
    }
  });

  it("greets a new assistant thread with suggested prompts, then shows a status and streams the answer", async () => {
    const channel = `D${++nextTs}`;
    const threadTs = `${++nextTs}.000500`;
    await deliver(
      envelope({
        type: "assistant_thread_started",
        assistant_thread: { user_id: "U00FAKEUSER1", channel_id: channel, thread_ts: threadTs, context: {} },
        event_ts: threadTs,
      }),
    );
    await until(() => slack.suggestedPrompts(channel, threadTs));
    expect(slack.suggestedPrompts(channel, threadTs)?.prompts).toEqual([
      { title: "Homes for sale", message: "Homes for sale" },
      { title: "Rentals", message: "Rentals" },
    ]);
    expect((await settled(channel, 1, threadTs))[0]).toBe("Welcome to *Homes*!");
    chatbot.answer = () => ({
      fragments: ["Three ", "homes ", "match: ", "**A**, ", "**B** ", "and ", "**C**."],
      // A long think: the status is a courtesy that waits for spare workspace budget, which the greeting used.
      firstFragmentMs: 4_000,
      pauseMs: 400,
    });
    const question = {
      type: "message",
      user: "U00FAKEUSER1",
      ts: `${++nextTs}.000600`,
      text: "Homes for sale",
      channel,
      channel_type: "im",
      thread_ts: threadTs,
    };
    await deliver(envelope(question));
    await until(() => (slack.messagesIn(channel, threadTs)[1]?.stoppedAt !== undefined ? true : undefined));
    const answer = slack.messagesIn(channel, threadTs)[1];
    expect(answer).toMatchObject({ text: "Three homes match: **A**, **B** and **C**.", format: "markdown" });
    const statuses = slack.statuses(channel, threadTs);
    expect(statuses.map((status) => status.status)).toContain("is thinking…");
    expect(statuses[0]?.at).toBeLessThan(answer?.postedAt ?? 0);
  });

  it("refuses a bad signature or a stale timestamp with 401 and processes nothing", async () => {
    const asked = chatbot.asks.length;
    const message = directMessage("let me in");
    expect((await deliver(envelope(message), { signature: "v0=deadbeef" })).status).toBe(401);
    const sixMinutes = 6 * 60;
    expect((await deliver(envelope(message), { timestamp: Math.floor(Date.now() / 1000) - sixMinutes })).status).toBe(
      401,
    );
    expect((await deliver(envelope(message), { timestamp: Math.floor(Date.now() / 1000) + sixMinutes })).status).toBe(
      401,
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(chatbot.asks.length).toBe(asked);
    expect(slack.messagesIn(message.channel)).toEqual([]);
  });

  it("gives no second answer to a retry, nor to the app_mention twin of a mention", async () => {
    chatbot.answer = (question) => ({ fragments: ["Once: ", question], pauseMs: 100 });
    const message = directMessage("only once");
    const first = envelope(message);
    expect((await deliver(first)).status).toBe(200);
    expect((await deliver(first, { retryNum: 1 })).status).toBe(200);
    const mention = {
      type: "message",
      user: "U00FAKEUSER1",
      ts: `${++nextTs}.000200`,
      text: `<@${BOT_USER}> twice?`,
      channel: "C00TWINS",
      channel_type: "channel",
    };
    await deliver(envelope(mention));
    await deliver(envelope({ ...mention, type: "app_mention" }));
    const once = "Welcome to *Homes*!\n\nOnce: only once";
    await until(() => (slack.messagesIn(message.channel)[0]?.text === once ? true : undefined));
    expect(await settled(message.channel, 1)).toEqual([once]);
    expect(await settled("C00TWINS", 1, mention.ts)).toEqual(["Welcome to **Homes**!\n\nOnce: twice?"]);
    expect(chatbot.asks.filter((ask) => ask.content === "only once")).toHaveLength(1);
    expect(chatbot.asks.filter((ask) => ask.content === "twice?")).toHaveLength(1);
  });

  it("ignores the bot's own messages, other bots, edits and channel chatter", async () => {
    const asked = chatbot.asks.length;
    const channel = `D${++nextTs}`;
    const ts = () => `${++nextTs}.000300`;
    await deliver(
      envelope({ type: "message", user: BOT_USER, ts: ts(), text: "my own answer", channel, channel_type: "im" }),
    );
    await deliver(
      envelope({
        type: "message",
        subtype: "bot_message",
        bot_id: "B0OTHER",
        ts: ts(),
        text: "beep",
        channel,
        channel_type: "im",
      }),
    );
    await deliver(
      envelope({
        type: "message",
        subtype: "message_changed",
        hidden: true,
        ts: ts(),
        channel,
        channel_type: "im",
        message: { text: "edited" },
      }),
    );
    await deliver(
      envelope({
        type: "message",
        user: "U00FAKEUSER1",
        ts: ts(),
        text: "lunch?",
        channel: "C00CHATTER",
        channel_type: "channel",
      }),
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(chatbot.asks.length).toBe(asked);
    expect(slack.messagesIn(channel)).toEqual([]);
  });

  it("keeps the text so far and apologises when the stream breaks", async () => {
    chatbot.answer = () => ({ fragments: ["Half of ", "the answer", " never comes"], breakAfter: 2, pauseMs: 50 });
    const message = directMessage("break please");
    await deliver(envelope(message));
    const texts = await settled(message.channel, 2);
    expect(texts).toEqual([
      "Welcome to *Homes*!\n\nHalf of the answer",
      "Sorry, I couldn't finish that answer. Please try again in a moment.",
    ]);
  });
});
