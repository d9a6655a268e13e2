import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { RunningBridge } from "../../../src/app/bridge-app.js";
import { loadConfig } from "../../../src/config/config.js";
import { shownText, WhatsAppEmulator } from "../../emulators/whatsapp.js";
import { startBridgeUnderTest } from "../../support/bridge-under-test.js";
import { mediaFixture, png, SPEECH_SECONDS } from "../../support/media-fixtures.js";
import { until } from "../../support/waiting.js";
import { parseWav, rms } from "../../support/wav-header.js";
import { describingTheAsk, ScriptedChatbot } from "../../upstream/scripted-chatbot.js";

const MB = 1024 * 1024;
/** The scripted chatbot's WelcomeMessage on WhatsApp: at first contact it opens the first answer. */
const WELCOME = "Welcome to *Homes*!";

let whatsapp: WhatsAppEmulator;
let chatbot: ScriptedChatbot;
let running: RunningBridge;
let webhook: string;

beforeAll(async () => {
  [whatsapp, chatbot] = await Promise.all([WhatsAppEmulator.start(), ScriptedChatbot.start()]);
  running = await startBridgeUnderTest(chatbot, {
    WHATSAPP_ACCESS_TOKEN: whatsapp.accessToken,
    WHATSAPP_PHONE_NUMBER_ID: whatsapp.phoneNumberId,
    WHATSAPP_APP_SECRET: whatsapp.appSecret,
    WHATSAPP_VERIFY_TOKEN: "verify",
    WHATSAPP_API_URL: whatsapp.url,
    WHATSAPP_API_VERSION: whatsapp.version,
    MEDIA_GROUP_WINDOW_MS: "400",
  });
  webhook = `${running.url}/webhooks/whatsapp`;
});

afterAll(async () => {
  await running?.close(1000);
  await Promise.all([whatsapp?.close(), chatbot?.close()]);
});

beforeEach(() => {
  chatbot.answer = describingTheAsk;
});

afterEach(() => {
  expect(whatsapp.rateLimited()).toEqual([]);
});

let nextUser = 15550009000;

/**
 * Delivers `messages` from a new user; resolves with the texts the user was sent once `count` have come. At first
 * contact the greeting opens the first answer, or comes alone after what was not a question.
 */
async function conversation(messages: object[], count = 1): Promise<string[]> {
  const user = String(++nextUser);
  expect((await whatsapp.deliver(webhook, whatsapp.delivery(messages, { from: user }))).status).toBe(200);
  await until(() => (whatsapp.sentTo(user).length >= count ? true : undefined), 20_000);
  await new Promise((resolve) => setTimeout(resolve, 300));
  return whatsapp.sentTo(user).map(shownText);
}

describe("WhatsApp media end to end (Cloud API emulator → bridge → scripted chatbot API)", () => {
  it("converts a voice note to WAV, uploads it and asks an Audio question", async () => {
    const id = whatsapp.addMedia(mediaFixture("voice.ogg"), "audio/ogg; codecs=opus");
    const before = chatbot.asks.length;
    expect(
      await conversation([{ type: "audio", audio: { id, mime_type: "audio/ogg; codecs=opus", voice: true } }]),
    ).toEqual([`${WELCOME}\n\nAudio with 1 file(s)`]);
    const [ask] = chatbot.asks.slice(before);
    const wave = parseWav(chatbot.upload(ask?.fileIds[0] as number).bytes as Buffer);
    expect(wave).toMatchObject({ format: 1, channels: 1, sampleRate: 16_000, bitsPerSample: 16 });
    expect(Math.abs(wave.seconds - SPEECH_SECONDS) / SPEECH_SECONDS).toBeLessThan(0.02);
    expect(rms(wave.samples)).toBeGreaterThan(0.01);
  });

  it("asks pictures sent together (one message each) as one Image question with the caption", async () => {
    const images = [mediaFixture("photo.jpg"), png(4, 4)];
    const ids = images.map((bytes) => whatsapp.addMedia(bytes, "image/jpeg"));
    const before = chatbot.asks.length;
    const replies = await conversation([
      { type: "image", image: { id: ids[0], mime_type: "image/jpeg", caption: "garden?" } },
      { type: "image", image: { id: ids[1], mime_type: "image/jpeg" } },
    ]);
    expect(replies).toEqual([`${WELCOME}\n\nImage with 2 file(s): garden?`]);
    const asks = chatbot.asks.slice(before);
    expect(asks).toHaveLength(1);
    expect(asks[0]?.fileIds.map((fileId) => chatbot.upload(fileId).bytes)).toEqual(images);
  });

  it("forwards a video with its caption", async () => {
    const mp4 = mediaFixture("tiny.mp4");
    const id = whatsapp.addMedia(mp4, "video/mp4");
    const before = chatbot.asks.length;
    expect(await conversation([{ type: "video", video: { id, mime_type: "video/mp4", caption: "the view" } }])).toEqual(
      [`${WELCOME}\n\nVideo with 1 file(s): the view`],
    );
    expect(chatbot.upload(chatbot.asks[before]?.fileIds[0] as number).bytes).toEqual(mp4);
  });

  it("answers a sticker, a bare map pin and a PDF with what it can read", async () => {
    const unsupported = loadConfig({}, { envFile: undefined }).bridge.media.unsupportedText;
    const pdf = whatsapp.addMedia(Buffer.from("%PDF-1.7\n"), "application/pdf");
    const before = chatbot.asks.length;
    const downloads = whatsapp.downloads.length;
    const messages = [
      { type: "sticker", sticker: { id: "sticker-1", mime_type: "image/webp" } },
      { type: "location", location: { latitude: 30.27, longitude: -97.74 } },
      { type: "document", document: { id: pdf, mime_type: "application/pdf", filename: "offer.pdf" } },
    ];
    // Three users at once: each one's greeting waits for the pair limit after the refusal.
    const replies = await Promise.all(messages.map((message) => conversation([message], 2)));
    // Nothing was asked: the greeting comes on its own, after the refusal.
    for (const texts of replies) expect(texts).toEqual([unsupported, WELCOME]);
    expect(chatbot.asks.length).toBe(before);
    expect(whatsapp.downloads.length).toBe(downloads);
  });

  // One user after the other, each one's greeting waiting for the pair limit after the refusal (about 8 s).
  it("refuses media over the cap from its metadata, and cuts a download whose size was not given", async () => {
    const tooLarge = "Sorry, that file is too large for me: I can take files of up to 20 MB.";
    const big = new Uint8Array(40 * MB);
    big.set(png());
    const declared = whatsapp.addMedia(big, "image/png");
    const hidden = whatsapp.addMedia(big, "image/png", { hideSize: true, declareLength: false });
    const before = chatbot.asks.length;
    const downloads = whatsapp.downloads.length;
    expect(await conversation([{ type: "image", image: { id: declared, mime_type: "image/png" } }], 2)).toEqual([
      tooLarge,
      WELCOME,
    ]);
    expect(whatsapp.downloads.length).toBe(downloads);
    expect(await conversation([{ type: "image", image: { id: hidden, mime_type: "image/png" } }], 2)).toEqual([
      tooLarge,
      WELCOME,
    ]);
    const served = whatsapp.downloads.at(-1);
    expect(served).toMatchObject({ file: hidden, complete: false });
    // The 20 MB cap plus what the sockets had buffered; never the 40 MB file.
    expect(served?.sent).toBeLessThan(30 * MB);
    expect(chatbot.asks.length).toBe(before);
  }, 30_000);
});
