import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { RunningBridge } from "../../../src/app/bridge-app.js";
import { loadConfig } from "../../../src/config/config.js";
import { SlackEmulator } from "../../emulators/slack.js";
import { startBridgeUnderTest } from "../../support/bridge-under-test.js";
import { gif, mediaFixture, png, SPEECH_SECONDS } from "../../support/media-fixtures.js";
import { until } from "../../support/waiting.js";
import { parseWav, rms } from "../../support/wav-header.js";
import { describingTheAsk, ScriptedChatbot } from "../../upstream/scripted-chatbot.js";

const SIGNING_SECRET = "slack-media-signing-secret";
const BOT_USER = "U0BOTMEDIA1";
const MB = 1024 * 1024;
/** The scripted chatbot's WelcomeMessage in mrkdwn: at first contact it opens the first answer's message. */
const WELCOME = "Welcome to *Homes*!";

let slack: SlackEmulator;
let chatbot: ScriptedChatbot;
let running: RunningBridge;
let events: string;

beforeAll(async () => {
  [slack, chatbot] = await Promise.all([
    SlackEmulator.start({ token: "xoxb-media-token", botUserId: BOT_USER, teamId: "T0MEDIA0001" }),
    ScriptedChatbot.start(),
  ]);
  running = await startBridgeUnderTest(chatbot, {
    SLACK_BOT_TOKEN: "xoxb-media-token",
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
    SLACK_API_URL: slack.url,
  });
  events = `${running.url}/webhooks/slack/events`;
});

afterAll(async () => {
  await running?.close(1000);
  await Promise.all([slack?.close(), chatbot?.close()]);
});

beforeEach(() => {
  chatbot.answer = describingTheAsk;
});

afterEach(() => {
  expect(slack.rateLimited()).toEqual([]);
});

let nextEvent = 0;
let nextTs = 1767390000;

type Shared = { name: string; mimetype: string; bytes: Uint8Array; size?: number; declareLength?: boolean };

/** A DM with files shared, as Slack's `file_share` message event carries them; resolves with its channel. */
async function shareInDm(files: Shared[], text = ""): Promise<string> {
  const channel = `D${++nextTs}`;
  const shared = files.map((file) => {
    const stored = slack.addFile(file.bytes, file);
    return {
      id: stored.id,
      name: file.name,
      mimetype: file.mimetype,
      size: file.size ?? file.bytes.length,
      url_private: stored.url_private,
      url_private_download: stored.url_private_download,
    };
  });
  const event = {
    type: "message",
    subtype: "file_share",
    user: "U0PERSON001",
    ts: `${++nextTs}.000100`,
    text,
    files: shared,
    channel,
    channel_type: "im",
  };
  const envelope = {
    team_id: "T0MEDIA0001",
    api_app_id: "A0MEDIAAPP1",
    event,
    type: "event_callback",
    event_id: `EvMedia${++nextEvent}`,
    event_time: Math.floor(Date.now() / 1000),
    authorizations: [{ user_id: BOT_USER, is_bot: true }],
  };
  expect((await slack.deliver(events, envelope, { signingSecret: SIGNING_SECRET })).status).toBe(200);
  return channel;
}

/**
 * Expects the bot's messages in `channel` to read `expected` once it has gone quiet. An answer's first text shows
 * at once and its last edit may land a second later (Slack takes a call a second per channel), so the texts are
 * awaited first, for up to 15 s; then nothing more may come for 400 ms.
 */
async function expectReplies(channel: string, expected: string[]): Promise<void> {
  const texts = () => slack.messagesIn(channel).map((message) => message.text);
  const same = () => JSON.stringify(texts()) === JSON.stringify(expected);
  await until(() => (same() ? true : undefined), 15_000).catch(() => undefined);
  await until(() => (performance.now() - (slack.calls.at(-1)?.at ?? 0) > 400 ? true : undefined), 15_000);
  expect(texts()).toEqual(expected);
}

describe("Slack media end to end (Events API emulator → bridge → scripted chatbot API)", () => {
  it("asks the images of one message together, with its text", async () => {
    const images = [mediaFixture("photo.webp"), png(5, 5)];
    const before = chatbot.asks.length;
    const channel = await shareInDm(
      [
        { name: "front.webp", mimetype: "image/webp", bytes: images[0] as Buffer },
        { name: "back.png", mimetype: "image/png", bytes: images[1] as Buffer },
      ],
      "is this one for rent?",
    );
    await expectReplies(channel, [`${WELCOME}\n\nImage with 2 file(s): is this one for rent?`]);
    const [ask] = chatbot.asks.slice(before);
    expect(ask?.fileIds.map((id) => chatbot.upload(id).bytes)).toEqual(images);
  });

  it("asks a shared video on its own and the still pictures together, refusing an animated GIF", async () => {
    const unsupported = loadConfig({}, { envFile: undefined }).bridge.media.unsupportedText;
    const [mp4, jpeg, still] = [mediaFixture("tiny.mp4"), mediaFixture("photo.jpg"), gif(1)];
    const before = chatbot.asks.length;
    const channel = await shareInDm(
      [
        { name: "tour.mp4", mimetype: "video/mp4", bytes: mp4 },
        { name: "kitchen.jpg", mimetype: "image/jpeg", bytes: jpeg },
        { name: "dancing.gif", mimetype: "image/gif", bytes: gif(5) },
        { name: "plan.gif", mimetype: "image/gif", bytes: still },
      ],
      "how much?",
    );
    // The greeting opens the first answer.
    await expectReplies(channel, [
      unsupported,
      `${WELCOME}\n\nVideo with 1 file(s): how much?`,
      "Image with 2 file(s)",
    ]);
    const asks = chatbot.asks.slice(before);
    expect(asks.map((ask) => [ask.chatAskType, ask.fileIds.map((id) => chatbot.upload(id).bytes)])).toEqual([
      ["Video", [mp4]],
      ["Image", [jpeg, Buffer.from(still)]],
    ]);
  });

  it("converts an iPhone's HEIC photo to JPEG and asks an Image question", async () => {
    const before = chatbot.asks.length;
    const channel = await shareInDm(
      [{ name: "IMG_0042.HEIC", mimetype: "image/heic", bytes: mediaFixture("photo.heic") }],
      "this one",
    );
    await expectReplies(channel, [`${WELCOME}\n\nImage with 1 file(s): this one`]);
    const upload = chatbot.upload(chatbot.asks[before]?.fileIds[0] as number);
    expect(upload).toMatchObject({ fileName: "photo.jpg", contentType: "image/jpeg" });
    expect([...(upload.bytes as Buffer).subarray(0, 3)]).toEqual([0xff, 0xd8, 0xff]);
  });

  it("converts a shared audio file to WAV and asks an Audio question", async () => {
    const before = chatbot.asks.length;
    const channel = await shareInDm([{ name: "note.ogg", mimetype: "audio/ogg", bytes: mediaFixture("voice.ogg") }]);
    await expectReplies(channel, [`${WELCOME}\n\nAudio with 1 file(s)`]);
    const [ask] = chatbot.asks.slice(before);
    const wave = parseWav(chatbot.upload(ask?.fileIds[0] as number).bytes as Buffer);
    expect(wave).toMatchObject({ channels: 1, sampleRate: 16_000, bitsPerSample: 16 });
    expect(Math.abs(wave.seconds - SPEECH_SECONDS) / SPEECH_SECONDS).toBeLessThan(0.02);
    expect(rms(wave.samples)).toBeGreaterThan(0.01);
  });

  it("forwards the pictures it can read and says what it cannot, asking the rest once", async () => {
    const unsupported = loadConfig({}, { envFile: undefined }).bridge.media.unsupportedText;
    const before = chatbot.asks.length;
    const downloads = slack.downloads.length;
    const channel = await shareInDm(
      [
        { name: "plan.pdf", mimetype: "application/pdf", bytes: Buffer.from("%PDF-1.7\n") },
        { name: "house.png", mimetype: "image/png", bytes: png() },
      ],
      "thoughts?",
    );
    await expectReplies(channel, [unsupported, `${WELCOME}\n\nImage with 1 file(s): thoughts?`]);
    expect(chatbot.asks.slice(before)).toHaveLength(1);
    // Only the picture was fetched: the PDF was refused from its declared type.
    expect(slack.downloads.length - downloads).toBe(1);
  });

  it("cuts a file that claims to be small but is not, at the cap, and says it is too large", async () => {
    const big = new Uint8Array(40 * MB);
    big.set(png());
    const before = chatbot.asks.length;
    const channel = await shareInDm([
      { name: "huge.png", mimetype: "image/png", bytes: big, size: 2048, declareLength: false },
    ]);
    // Nothing was asked: the greeting comes on its own, after the refusal.
    await expectReplies(channel, ["Sorry, that file is too large for me: I can take files of up to 20 MB.", WELCOME]);
    const served = slack.downloads.at(-1);
    expect(served?.complete).toBe(false);
    expect(served?.sent).toBeLessThan(30 * MB);
    expect(chatbot.asks.length).toBe(before);
  });
});
