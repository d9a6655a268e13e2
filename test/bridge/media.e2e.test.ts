import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type Channel, ChannelError, type DownloadOptions } from "../../src/bridge/channel.js";
import type { InboundMessage, MediaRef } from "../../src/bridge/inbound.js";
import { MediaPipeline } from "../../src/bridge/media/media-pipeline.js";
import { createBridgeMetrics } from "../../src/bridge/metrics.js";
import { ChatbotClient } from "../../src/client/index.js";
import { createLogger } from "../../src/common/log.js";
import { loadConfig } from "../../src/config/config.js";
import { gif, mediaFixture, png } from "../support/media-fixtures.js";
import { ScriptedChatbot } from "../upstream/scripted-chatbot.js";

let chatbot: ScriptedChatbot;
let client: ChatbotClient;
const media = loadConfig({}, { envFile: undefined }).bridge.media;

beforeAll(async () => {
  chatbot = await ScriptedChatbot.start();
  client = new ChatbotClient({ baseUrl: chatbot.url, apiKey: "sk", timeoutMs: 5000 });
});

afterAll(async () => {
  await client.close();
  await chatbot.close();
});

beforeEach(() => chatbot.reset());

/** A channel whose files are bytes in a map (or an error to throw), recording what was fetched with which cap. */
function channelWith(files: Record<string, Uint8Array | Error>) {
  const fetched: { id: string; maxBytes: number }[] = [];
  const channel = {
    name: "fake",
    async download(ref: MediaRef, options: DownloadOptions) {
      fetched.push({ id: ref.platformId, maxBytes: options.maxBytes });
      const file = files[ref.platformId];
      if (file instanceof Error) throw file;
      if (!file) throw new ChannelError("rejected", "no such file");
      return file;
    },
  } as unknown as Channel;
  return { channel, fetched };
}

let nextEvent = 0;
function message(text: string, refs: MediaRef[]): InboundMessage {
  return {
    channel: "fake",
    botId: "bot",
    eventId: String(++nextEvent),
    target: { chatId: "1", isGroup: false },
    user: { id: "1" },
    text,
    media: refs,
    receivedAt: new Date(),
  };
}

const image = (platformId: string): MediaRef => ({ kind: "image", platformId });

function pipeline() {
  const metrics = createBridgeMetrics();
  return { pipeline: new MediaPipeline(media, metrics, createLogger("silent")), metrics };
}

const signal = () => AbortSignal.timeout(10_000);

describe("MediaPipeline", () => {
  it("splits twelve photos into Image questions of at most ten files, the caption on the first", async () => {
    const files = Object.fromEntries(Array.from({ length: 12 }, (_, n) => [`p${n}`, png(n + 1, 1)]));
    const { channel } = channelWith(files);
    const refs = Object.keys(files).map(image);
    const plan = await pipeline().pipeline.prepare(channel, client, [message("which?", refs)], signal());
    expect(plan.refusals).toEqual([]);
    expect(plan.questions.map((question) => [question.askType, question.content, question.fileIds.length])).toEqual([
      ["Image", "which?", 10],
      ["Image", "", 2],
    ]);
    // Uploaded in the order they came.
    const uploaded = plan.questions.flatMap((question) => question.fileIds.map((id) => chatbot.upload(id).bytes));
    expect(uploaded).toEqual(Object.values(files));
  });

  it("asks a recording and a video each on its own, in the order the files came, the texts with the first", async () => {
    const { channel } = channelWith({ v: mediaFixture("voice.ogg"), m: mediaFixture("tiny.mp4"), p: png() });
    const messages = [
      message("first", [{ kind: "voice", platformId: "v" }]),
      message("", [{ kind: "video", platformId: "m" }]),
      message("third", [image("p")]),
    ];
    const plan = await pipeline().pipeline.prepare(channel, client, messages, signal());
    expect(plan.questions.map((question) => [question.askType, question.content])).toEqual([
      ["Audio", "first\nthird"],
      ["Video", ""],
      ["Image", ""],
    ]);
  });

  it("drops the caption of a message whose files were all refused, and names each reason once", async () => {
    const { channel, fetched } = channelWith({ g: gif(4), h: gif(2) });
    const messages = [
      message("look at this", [image("g"), image("h")]),
      message("", [{ kind: "document", platformId: "pdf", mimeType: "application/pdf" }]),
      message("", [{ kind: "unsupported", platformId: "s", label: "sticker" }]),
    ];
    const { pipeline: subject, metrics } = pipeline();
    const plan = await subject.prepare(channel, client, messages, signal());
    expect(plan).toEqual({ questions: [], refusals: [{ reason: "unsupported" }] });
    // The PDF and the sticker were refused without a download.
    expect(fetched.map((file) => file.id)).toEqual(["g", "h"]);
    const counted = (await metrics.registry.getSingleMetric("chatbridge_media_items_total")?.get())?.values ?? [];
    expect(counted.map((value) => [value.labels.kind, value.labels.outcome, value.value])).toEqual(
      expect.arrayContaining([
        ["image", "unsupported", 2],
        ["document", "unsupported", 1],
        ["sticker", "unsupported", 1],
      ]),
    );
  });

  it("still asks a text that came with nothing but refused files in another message", async () => {
    const { channel } = channelWith({});
    const plan = await pipeline().pipeline.prepare(
      channel,
      client,
      [message("hello", []), message("", [{ kind: "unsupported", platformId: "s" }])],
      signal(),
    );
    expect(plan.questions).toEqual([{ askType: "Text", content: "hello", fileIds: [] }]);
  });

  it("reports a file that failed on the way and forwards the others", async () => {
    const { channel } = channelWith({ ok: png(), broken: new ChannelError("transient", "Telegram is down") });
    const plan = await pipeline().pipeline.prepare(
      channel,
      client,
      [message("x", [image("broken"), image("ok")])],
      signal(),
    );
    expect(plan.refusals).toEqual([{ reason: "failed" }]);
    expect(plan.questions.map((question) => question.fileIds.length)).toEqual([1]);
  });

  it("downloads with the cap of what the file is said to be, and checks the real type's limit after", async () => {
    const { channel, fetched } = channelWith({ i: png(), a: mediaFixture("speech.mp3"), u: png() });
    await pipeline().pipeline.prepare(
      channel,
      client,
      [
        message("", [image("i")]),
        message("", [{ kind: "audio", platformId: "a" }]),
        message("", [{ kind: "document", platformId: "u", mimeType: "application/octet-stream" }]),
      ],
      signal(),
    );
    const MB = 1024 * 1024;
    expect(fetched).toEqual([
      { id: "i", maxBytes: 20 * MB },
      { id: "a", maxBytes: 40 * MB },
      { id: "u", maxBytes: 100 * MB },
    ]);
  });

  it("refuses from the declared size and duration without downloading", async () => {
    const { channel, fetched } = channelWith({});
    const plan = await pipeline().pipeline.prepare(
      channel,
      client,
      [
        message("", [{ kind: "video", platformId: "v", sizeBytes: 101 * 1024 * 1024 }]),
        message("", [{ kind: "voice", platformId: "a", durationSeconds: media.maxAudioSeconds + 1 }]),
      ],
      signal(),
    );
    expect(plan.refusals).toEqual([
      { reason: "too_large", limitBytes: 100 * 1024 * 1024 },
      { reason: "too_long", limitSeconds: media.maxAudioSeconds },
    ]);
    expect(fetched).toEqual([]);
  });
});
