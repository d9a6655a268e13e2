import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type RunningBridge, startBridge } from "../../../src/app/bridge-app.js";
import { createLogger } from "../../../src/common/log.js";
import { loadConfig } from "../../../src/config/config.js";
import { VIEWING_TEXTS } from "../../../src/features/viewings/viewing-texts.js";
import { SlackEmulator, type SlackMessage } from "../../emulators/slack.js";
import { freePort, until } from "../../support/waiting.js";
import { listingItem, ScriptedChatbot } from "../../upstream/scripted-chatbot.js";

const SIGNING_SECRET = "8f742231b10e8888abcd99yyyzzz85a5";
const BOT_USER = "U00FAKEBOT01";
const TEAM = "T00FAKE00AA";

let slack: SlackEmulator;
let chatbot: ScriptedChatbot;
let running: RunningBridge;
let events: string;
let actionsUrl: string;

beforeAll(async () => {
  [slack, chatbot] = await Promise.all([
    SlackEmulator.start({ token: "xoxb-test-token", botUserId: BOT_USER, teamId: TEAM }),
    ScriptedChatbot.start(),
  ]);
  chatbot.listings = [
    listingItem("TX-1001"),
    listingItem("TX-1002"),
    listingItem("TX-1003"),
    listingItem("TX-1004"),
    listingItem("TX-2001", { Images: "https://images.homes.test/gone.jpg" }),
  ];
  slack.unreachableImages.add("https://images.homes.test/gone.jpg");
  const port = await freePort();
  const config = loadConfig(
    {
      PORT: String(port),
      DATA_DIR: mkdtempSync(path.join(tmpdir(), "chatbridge-slack-cards-")),
      STORE_URL: "memory://",
      CHATBOT_API_URL: chatbot.url,
      CHATBOT_API_KEY: "sk-test",
      CHATBOT_SESSION_KEY: "session-key-test",
      CHATBOT_SERIAL_NUMBER: "homes",
      SLACK_BOT_TOKEN: "xoxb-test-token",
      SLACK_SIGNING_SECRET: SIGNING_SECRET,
      SLACK_API_URL: slack.url,
    },
    { envFile: undefined },
  );
  running = await startBridge(config, createLogger("silent"), { host: "127.0.0.1" });
  events = `${running.url}/webhooks/slack/events`;
  actionsUrl = `${running.url}/webhooks/slack/actions`;
});

afterAll(async () => {
  await running?.close(1000);
  await Promise.all([slack?.close(), chatbot?.close()]);
});

afterEach(() => {
  // Cards are paced like any post: one per second in a conversation, never a 429.
  expect(slack.rateLimited()).toEqual([]);
});

let nextEvent = 100;
let nextTs = 1767480000;

/** A direct message to the bot, in a new conversation unless `channel` names one. */
function directMessage(text: string, channel = `D${++nextTs}`) {
  const event = { type: "message", user: "U00FAKEUSER1", ts: `${++nextTs}.000100`, text, channel, channel_type: "im" };
  return {
    channel,
    envelope: {
      token: "verification-token",
      team_id: TEAM,
      api_app_id: "A00FAKEAPP01",
      event,
      type: "event_callback",
      event_id: `EvCards${++nextEvent}`,
      event_time: Math.floor(Date.now() / 1000),
      authorizations: [{ user_id: BOT_USER, is_bot: true }],
    },
  };
}

async function quiet(ms = 600): Promise<void> {
  await until(() => (performance.now() - (slack.calls.at(-1)?.at ?? 0) > ms ? true : undefined), 20_000);
}

async function settled(channel: string, count: number): Promise<SlackMessage[]> {
  await until(() => (slack.messagesIn(channel).length >= count ? true : undefined), 20_000);
  await quiet();
  return slack.messagesIn(channel);
}

interface CardBlocks {
  type: string;
  text?: { type: string; text: string };
  accessory?: { type: string; image_url: string; alt_text: string };
  elements?: { type: string; action_id: string; text: { text: string }; url?: string; value?: string }[];
}
const blocksOf = (message: SlackMessage | undefined) => (message?.blocks ?? []) as CardBlocks[];

describe("Slack listing cards (Events API, emulator, scripted chatbot)", () => {
  it("posts a card per listing after the answer: the photo as accessory, Details and Similar homes buttons", async () => {
    const { channel, envelope } = directMessage("homes?");
    chatbot.answer = () => ({
      fragments: ["MLS# NOPE-1 is gone. See MLS# TX-1001, MLS# TX-1002, MLS# TX-1003 and MLS# TX-1004."],
    });
    await slack.deliver(events, envelope, { signingSecret: SIGNING_SECRET });
    const messages = await settled(channel, 4);
    expect(messages).toHaveLength(4);
    expect(messages[0]?.text).toContain("MLS# TX-1004");
    const [section, actions] = blocksOf(messages[1]);
    expect(section).toEqual({
      type: "section",
      text: {
        type: "mrkdwn",
        text: "*$450,000 · 3 beds · 2 baths · 1,850 sq ft*\n12 Oak St, Austin, TX 78701\nHouse · MLS TX-1001",
      },
      accessory: {
        type: "image",
        image_url: "https://images.homes.test/tx-1001-1.jpg",
        alt_text: "12 Oak St, Austin, TX 78701",
      },
    });
    expect(actions?.elements).toEqual([
      {
        type: "button",
        action_id: "chatbridge_card_details",
        text: { type: "plain_text", text: "Details" },
        url: "https://homes.test/listing/tx-1001",
      },
      {
        type: "button",
        action_id: "chatbridge_card_similar",
        text: { type: "plain_text", text: "Similar homes" },
        value: "card:similar:TX-1001",
      },
      {
        type: "button",
        action_id: "chatbridge_card_viewing",
        text: { type: "plain_text", text: "Book a viewing" },
        value: "card:viewing:TX-1001",
      },
    ]);
    // At most three: the fourth listing has no card.
    expect(messages.slice(1).map((message) => blocksOf(message)[0]?.text?.text.split("MLS ")[1])).toEqual([
      "TX-1001",
      "TX-1002",
      "TX-1003",
    ]);
  });

  it("asks the chatbot for similar homes when Similar homes is tapped; a tap on Details asks nothing", async () => {
    const { channel, envelope } = directMessage("one?");
    chatbot.answer = (question) => ({
      fragments: [question.startsWith("Show me") ? "Nothing similar right now." : "See MLS# TX-1002."],
    });
    await slack.deliver(events, envelope, { signingSecret: SIGNING_SECRET });
    const [, card] = await settled(channel, 2);
    const asked = chatbot.asks.length;
    const tap = (action: { action_id: string; value?: string }, ts: string) => ({
      type: "block_actions",
      user: { id: "U00FAKEUSER1", team_id: TEAM },
      team: { id: TEAM },
      channel: { id: channel },
      message: { ts: card?.ts },
      actions: [{ ...action, action_ts: ts }],
    });
    const [details, similar] = blocksOf(card)[1]?.elements ?? [];
    const form = { signingSecret: SIGNING_SECRET, encoding: "form" as const };
    expect(
      (await slack.deliver(actionsUrl, tap({ action_id: details?.action_id ?? "" }, "1767499999.1"), form)).status,
    ).toBe(200);
    expect(
      (
        await slack.deliver(
          actionsUrl,
          tap({ action_id: similar?.action_id ?? "", value: similar?.value }, "1767499999.2"),
          form,
        )
      ).status,
    ).toBe(200);
    const messages = await settled(channel, 3);
    expect(chatbot.asks.slice(asked).map((ask) => ask.content)).toEqual([
      "Show me homes similar to MLS TX-1002: in Austin, for sale, about $450,000 (±20%: $360,000 to $540,000), 2 to 4 bedrooms.",
    ]);
    expect(messages[2]?.text).toBe("Nothing similar right now.");
  });

  it("asks for a time when Book a viewing is tapped, and says honestly that no mail can reach the agency", async () => {
    const { channel, envelope } = directMessage("which one?");
    chatbot.answer = () => ({ fragments: ["See MLS# TX-1002."] });
    await slack.deliver(events, envelope, { signingSecret: SIGNING_SECRET });
    const [, card] = await settled(channel, 2);
    const asked = chatbot.asks.length;
    const book = blocksOf(card)[1]?.elements?.[2];
    expect(book?.value).toBe("card:viewing:TX-1002");
    const tap = {
      type: "block_actions",
      user: { id: "U00FAKEUSER1", team_id: TEAM },
      team: { id: TEAM },
      channel: { id: channel },
      message: { ts: card?.ts },
      actions: [{ action_id: book?.action_id, value: book?.value, action_ts: "1767499999.3" }],
    };
    const form = { signingSecret: SIGNING_SECRET, encoding: "form" as const };
    expect((await slack.deliver(actionsUrl, tap, form)).status).toBe(200);
    const question = await settled(channel, 3);
    expect(question[2]?.text).toBe(VIEWING_TEXTS.askTime("12 Oak St, Austin, TX 78701"));
    // Slack links the conversation: no contact is asked; no SMTP server here, so nobody can be reached.
    await slack.deliver(events, directMessage("Saturday at 10am", channel).envelope, { signingSecret: SIGNING_SECRET });
    const messages = await settled(channel, 4);
    expect(messages[3]?.text).toBe(VIEWING_TEXTS.unreachable);
    expect(chatbot.asks.length).toBe(asked);
  });

  it("posts a card whose photo Slack cannot download without it", async () => {
    const { channel, envelope } = directMessage("that?");
    chatbot.answer = () => ({ fragments: ["Try MLS# TX-2001."] });
    await slack.deliver(events, envelope, { signingSecret: SIGNING_SECRET });
    const messages = await settled(channel, 2);
    expect(messages).toHaveLength(2);
    expect(slack.callsTo("chat.postMessage").some((call) => call.error === "invalid_blocks")).toBe(true);
    const [section, actions] = blocksOf(messages[1]);
    expect(section?.accessory).toBeUndefined();
    expect(section?.text?.text).toContain("$450,000 · 3 beds");
    expect(actions?.elements?.map((button) => button.text.text)).toEqual([
      "Details",
      "Similar homes",
      "Book a viewing",
    ]);
  });
});
