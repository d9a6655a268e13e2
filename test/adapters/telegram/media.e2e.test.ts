import type { Message, Update } from "grammy/types";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { RunningBridge } from "../../../src/app/bridge-app.js";
import { loadConfig } from "../../../src/config/config.js";
import { TelegramEmulator } from "../../emulators/telegram.js";
import { startBridgeUnderTest } from "../../support/bridge-under-test.js";
import { gif, mediaFixture, png, SPEECH_SECONDS, wav } from "../../support/media-fixtures.js";
import { parseWav, rms } from "../../support/wav-header.js";
import { describingTheAsk, ScriptedChatbot } from "../../upstream/scripted-chatbot.js";
import { privateUpdateIn } from "./telegram-fixtures.js";
import { textsIn as textsInChat } from "./telegram-replies.js";

const TOKEN = "123456789:AAtest-token-of-the-media-bot_01";
const SECRET = "media-secret_7";
const MB = 1024 * 1024;
/** The scripted chatbot's WelcomeMessage as Telegram shows it: at first contact it opens the first answer. */
const WELCOME = "Welcome to Homes!";

let telegram: TelegramEmulator;
let chatbot: ScriptedChatbot;
let running: RunningBridge;

beforeAll(async () => {
  [telegram, chatbot] = await Promise.all([
    TelegramEmulator.start({ token: TOKEN, bot: { id: 4242, username: "homes_media_bot" } }),
    ScriptedChatbot.start(),
  ]);
  running = await startBridgeUnderTest(chatbot, {
    TELEGRAM_BOT_TOKEN: TOKEN,
    TELEGRAM_WEBHOOK_SECRET: SECRET,
    TELEGRAM_API_ROOT: telegram.url,
    MEDIA_MAX_AUDIO_SECONDS: "60",
    MEDIA_GROUP_WINDOW_MS: "300",
  });
});

afterAll(async () => {
  await running?.close(1000);
  await Promise.all([telegram?.close(), chatbot?.close()]);
});

beforeEach(() => {
  chatbot.answer = describingTheAsk;
});

afterEach(() => {
  expect(telegram.rateLimited()).toEqual([]);
});

let nextChat = 90_000;

/** A private message from a new user (or in `chatId`) with the given content (a photo, a voice note, a caption…). */
const message = (content: Partial<Message>, chatId = ++nextChat): Update => privateUpdateIn(chatId, content);

const textsIn = (chatId: number, count: number) => textsInChat(telegram, chatId, count);

const asksFrom = (before: number) => chatbot.asks.slice(before);
const getFileCalls = () => telegram.callsTo("getFile").length;

describe("Telegram media end to end (emulator → bridge → scripted chatbot API)", () => {
  it("converts a voice note to a 16 kHz mono WAV, uploads it and asks an Audio question", async () => {
    const ogg = mediaFixture("voice.ogg");
    const fileId = telegram.addFile(ogg, { fileName: "voice.oga" });
    const update = message({
      voice: { file_id: fileId, file_unique_id: "v1", duration: 5, mime_type: "audio/ogg", file_size: ogg.length },
    });
    const chatId = update.message?.chat.id as number;
    const before = chatbot.asks.length;
    expect((await telegram.deliver(update, { secret: SECRET })).status).toBe(200);
    expect(await textsIn(chatId, 1)).toEqual([`${WELCOME}\n\nAudio with 1 file(s)`]);
    const [ask] = asksFrom(before);
    expect(ask).toMatchObject({ chatAskType: "Audio", content: "" });
    expect(ask?.fileIds).toHaveLength(1);
    const upload = chatbot.upload(ask?.fileIds[0] as number);
    expect(upload).toMatchObject({ fileName: "voice-message.wav", contentType: "audio/wav", confirmed: true });
    const wave = parseWav(upload.bytes as Buffer);
    expect(wave).toMatchObject({ format: 1, channels: 1, sampleRate: 16_000, bitsPerSample: 16 });
    expect(Math.abs(wave.seconds - SPEECH_SECONDS) / SPEECH_SECONDS).toBeLessThan(0.02);
    expect(rms(wave.samples)).toBeGreaterThan(0.01);
    expect(telegram.downloads.at(-1)).toMatchObject({ file: fileId, complete: true });
  });

  it("asks the photos of an album once, with every file and the caption", async () => {
    const chatId = ++nextChat;
    const images = [mediaFixture("photo.jpg"), png(3, 2), mediaFixture("photo.webp")];
    const updates = images.map((bytes, n) => {
      const fileId = telegram.addFile(bytes);
      return message(
        {
          media_group_id: "album-1",
          photo: [{ file_id: fileId, file_unique_id: `p${n}`, width: 64, height: 48, file_size: bytes.length }],
          ...(n === 0 && { caption: "Which of these has a garden?" }),
        },
        chatId,
      );
    });
    const before = chatbot.asks.length;
    for (const update of updates) expect((await telegram.deliver(update, { secret: SECRET })).status).toBe(200);
    expect(await textsIn(chatId, 1)).toEqual([`${WELCOME}\n\nImage with 3 file(s): Which of these has a garden?`]);
    const asks = asksFrom(before);
    expect(asks).toHaveLength(1);
    expect(asks[0]?.chatAskType).toBe("Image");
    const uploads = asks[0]?.fileIds.map((id) => chatbot.upload(id)) ?? [];
    expect(uploads.map((upload) => upload.bytes)).toEqual(images);
    expect(uploads.map((upload) => upload.fileName)).toEqual(["photo.jpg", "photo.png", "photo.webp"]);
  });

  it("forwards a video and a still GIF as they are, identified from their bytes", async () => {
    const mp4 = mediaFixture("tiny.mp4");
    const still = gif(1);
    const video = message({
      video: {
        file_id: telegram.addFile(mp4),
        file_unique_id: "m1",
        width: 64,
        height: 48,
        duration: 1,
        file_size: mp4.length,
      },
      caption: "the street",
    });
    // Declared as a generic binary: only the bytes tell it is a GIF.
    const document = message({
      document: { file_id: telegram.addFile(still), file_unique_id: "g1", mime_type: "application/octet-stream" },
    });
    const before = chatbot.asks.length;
    await telegram.deliver(video, { secret: SECRET });
    await telegram.deliver(document, { secret: SECRET });
    expect(await textsIn(video.message?.chat.id as number, 1)).toEqual([
      `${WELCOME}\n\nVideo with 1 file(s): the street`,
    ]);
    expect(await textsIn(document.message?.chat.id as number, 1)).toEqual([`${WELCOME}\n\nImage with 1 file(s)`]);
    const asks = asksFrom(before);
    const byType = Object.fromEntries(asks.map((ask) => [ask.chatAskType, chatbot.upload(ask.fileIds[0] as number)]));
    expect(byType.Video?.bytes).toEqual(mp4);
    expect(byType.Video?.fileName).toBe("video.mp4");
    expect(byType.Image?.bytes).toEqual(Buffer.from(still));
  });

  it("answers stickers, PDFs, animated GIFs and M4A audio with what it can read, asking nothing", async () => {
    const unsupported = loadConfig({}, { envFile: undefined }).bridge.media.unsupportedText;
    const m4a = mediaFixture("speech.m4a");
    const updates = [
      message({
        sticker: {
          file_id: "S1",
          file_unique_id: "s1",
          type: "regular",
          width: 1,
          height: 1,
          is_animated: false,
          is_video: false,
        },
      }),
      message({
        document: { file_id: "pdf-1", file_unique_id: "d1", mime_type: "application/pdf", file_name: "offer.pdf" },
        caption: "my offer",
      }),
      message({ document: { file_id: telegram.addFile(gif(3)), file_unique_id: "g3", mime_type: "image/gif" } }),
      message({
        audio: { file_id: telegram.addFile(m4a), file_unique_id: "a1", duration: 5, mime_type: "audio/mp4" },
      }),
    ];
    const before = chatbot.asks.length;
    const getFiles = getFileCalls();
    for (const update of updates) await telegram.deliver(update, { secret: SECRET });
    // Nothing was asked: the greeting comes on its own, after the refusal.
    for (const update of updates) {
      expect(await textsIn(update.message?.chat.id as number, 2)).toEqual([unsupported, WELCOME]);
    }
    expect(asksFrom(before)).toEqual([]);
    // The sticker and the PDF were refused from what Telegram said of them, without fetching anything.
    expect(getFileCalls() - getFiles).toBe(2);
  });

  it("refuses a file over Telegram's 20 MB and a recording over the limit before downloading them", async () => {
    // Telegram's getFile refuses it ("file is too big"); the bridge never gets to fetch a byte.
    const big = message({
      video: {
        file_id: telegram.addFile(new Uint8Array(30 * MB)),
        file_unique_id: "b1",
        width: 1,
        height: 1,
        duration: 5,
        file_size: 30 * MB,
      },
    });
    const long = message({
      voice: { file_id: "long-1", file_unique_id: "l1", duration: 3600, mime_type: "audio/ogg", file_size: 900_000 },
    });
    const before = chatbot.asks.length;
    const getFiles = getFileCalls();
    const downloads = telegram.downloads.length;
    await telegram.deliver(big, { secret: SECRET });
    await telegram.deliver(long, { secret: SECRET });
    expect(await textsIn(big.message?.chat.id as number, 2)).toEqual([
      "Sorry, that file is too large for me: I can take files of up to 20 MB.",
      WELCOME,
    ]);
    expect(await textsIn(long.message?.chat.id as number, 2)).toEqual([
      "Sorry, that recording is too long for me: I can listen to up to 1 minute.",
      WELCOME,
    ]);
    expect(asksFrom(before)).toEqual([]);
    // The long recording was refused from its declared duration without a call; the video by getFile's refusal.
    expect(getFileCalls() - getFiles).toBe(1);
    expect(telegram.downloads.length).toBe(downloads);
  });

  it("refuses a recording found too long only once decoded, when Telegram gave no duration", async () => {
    const tone = wav(61 * 8000); // 61 s of 8 kHz PCM
    const update = message({
      document: { file_id: telegram.addFile(tone), file_unique_id: "w1", mime_type: "audio/wav", file_name: "a.wav" },
    });
    const before = chatbot.asks.length;
    const uploads = chatbot.uploads.size;
    await telegram.deliver(update, { secret: SECRET });
    expect(await textsIn(update.message?.chat.id as number, 2)).toEqual([
      "Sorry, that recording is too long for me: I can listen to up to 1 minute.",
      WELCOME,
    ]);
    expect(asksFrom(before)).toEqual([]);
    expect(chatbot.uploads.size).toBe(uploads);
    expect(telegram.downloads.at(-1)).toMatchObject({ total: tone.length, complete: true });
  });

  it("keeps the order: a text sent right after an album is answered after it", async () => {
    const chatId = ++nextChat;
    const photos = [png(), png(2, 3)].map((bytes, n) =>
      message(
        {
          media_group_id: "album-2",
          photo: [{ file_id: telegram.addFile(bytes), file_unique_id: `q${n}`, width: 2, height: 2 }],
        },
        chatId,
      ),
    );
    const text = message({ text: "and the price?" }, chatId);
    for (const update of [...photos, text]) await telegram.deliver(update, { secret: SECRET });
    expect(await textsIn(chatId, 2)).toEqual([
      `${WELCOME}\n\nImage with 2 file(s)`,
      "Text with 0 file(s): and the price?",
    ]);
  });
});
