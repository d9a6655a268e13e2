import type { Update } from "grammy/types";
import { afterEach, describe, expect, it } from "vitest";
import type { DeliveryOutcome } from "../../../adapters/telegram/delivery.js";
import { TelegramChannel } from "../../../adapters/telegram/outbound.js";
import { TelegramPoller } from "../../../adapters/telegram/polling.js";
import { MediaTooLargeError } from "../../../src/bridge/channel.js";
import type { ReplyTarget } from "../../../src/bridge/inbound.js";
import { type EmulatorLimits, TelegramEmulator } from "../../emulators/telegram.js";
import { channelFailure } from "../../support/channel-failure.js";
import { until } from "../../support/waiting.js";

const started: TelegramEmulator[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((emulator) => emulator.close()));
});

async function start(limits?: Partial<EmulatorLimits>) {
  const emulator = await TelegramEmulator.start(limits ? { limits } : {});
  started.push(emulator);
  return { emulator, channel: new TelegramChannel({ token: emulator.token, apiRoot: emulator.url }) };
}

const direct: ReplyTarget = { chatId: "4242", isGroup: false };
const group: ReplyTarget = { chatId: "-1009", isGroup: true, threadId: "3", replyToMessageId: "77" };

describe("TelegramChannel against the emulator", () => {
  it("sends markdown as Telegram HTML, edits it, and counts an identical edit as not modified", async () => {
    const { emulator, channel } = await start();
    const sent = await channel.send(direct, { text: "**Homes** in _Austin_ <3", format: "markdown" });
    const [message] = emulator.messagesIn(4242);
    expect(message).toMatchObject({ text: "Homes in Austin <3", parseMode: "HTML" });
    expect(message?.rawText).toBe("<b>Homes</b> in <i>Austin</i> &lt;3");
    await channel.edit(direct, sent, { text: "**Homes** in Denver", format: "markdown" });
    expect(emulator.messagesIn(4242)[0]).toMatchObject({ text: "Homes in Denver", edits: 1 });
    const same = await channelFailure(channel.edit(direct, sent, { text: "**Homes** in Denver", format: "markdown" }));
    expect(same.kind).toBe("not_modified");
  });

  it("offers suggested questions as a reply keyboard in private chats only", async () => {
    const { emulator, channel } = await start();
    await channel.send(direct, { text: "Hi", format: "plain", quickReplies: ["Buy", "Rent"] });
    await channel.send(group, { text: "Hi", format: "plain", quickReplies: ["Buy", "Rent"] });
    expect(emulator.messagesIn(4242)[0]?.replyMarkup).toEqual({
      keyboard: [[{ text: "Buy" }], [{ text: "Rent" }]],
      one_time_keyboard: true,
      resize_keyboard: true,
    });
    expect(emulator.messagesIn(-1009)[0]).toMatchObject({ replyMarkup: undefined, threadId: 3 });
  });

  it("maps Telegram's refusals to the bridge's error kinds", async () => {
    const { emulator, channel } = await start({ privateChat: { perSecond: 0.5, burst: 1 } });
    await channel.send(direct, { text: "one", format: "plain" });
    const limited = await channelFailure(channel.send(direct, { text: "two", format: "plain" }));
    expect(limited.kind).toBe("rate_limited");
    expect(limited.retryAfterMs).toBeGreaterThanOrEqual(1000);
    expect(limited.scope).toBe("bot"); // Telegram does not say which limit: the whole bot pauses
    expect(emulator.messagesIn(4242).map((m) => m.text)).toEqual(["one"]);
    const draftInGroup = await channelFailure(channel.draft(group, 1, { text: "x", format: "plain" }));
    expect(draftInGroup.kind).toBe("rejected");
    const missing = await channelFailure(channel.edit(group, { id: "999" }, { text: "x", format: "plain" }));
    expect(missing.kind).toBe("rejected");
    expect(missing.message).toContain("message to edit not found");
  });

  it("streams drafts in private chats with the stop button", async () => {
    const { emulator, channel } = await start();
    await channel.draft(direct, 7, { text: "Looking for **homes**", format: "markdown" });
    expect(emulator.draftsIn(4242)).toMatchObject([{ draftId: 7, text: "Looking for homes" }]);
    expect(emulator.callsTo("sendMessageDraft")[0]?.params).toMatchObject({ can_stop: true, keep_on_stop: true });
  });

  it("downloads a file the user sent through getFile and the file route", async () => {
    const { emulator, channel } = await start();
    const bytes = new Uint8Array([0x4f, 0x67, 0x67, 0x53, 1, 2, 3]);
    const fileId = emulator.addFile(bytes, { fileName: "voice.ogg" });
    const got = await channel.download({ kind: "voice", platformId: fileId }, options(1024));
    expect([...got]).toEqual([...bytes]);
    const unknown = await channelFailure(channel.download({ kind: "voice", platformId: "nope" }, options(1024)));
    expect(unknown.kind).toBe("rejected");
  });

  it("refuses a file over the cap from getFile's size, without downloading it", async () => {
    const { emulator, channel } = await start();
    const fileId = emulator.addFile(new Uint8Array(5000), { fileName: "video.mp4" });
    const refused = channel.download({ kind: "video", platformId: fileId }, options(4096));
    await expect(refused).rejects.toBeInstanceOf(MediaTooLargeError);
    await expect(refused).rejects.toMatchObject({ limitBytes: 4096 });
    expect(emulator.callsTo("getFile")).toHaveLength(1);
    expect(emulator.downloads).toEqual([]);
  });

  it("refuses files over 20 MB on the cloud Bot API before any call, whatever cap the bridge asks for", async () => {
    const channel = new TelegramChannel({ token: "1:x" });
    const refused = channel.download(
      { kind: "video", platformId: "f", sizeBytes: 21 * 1024 * 1024 },
      options(100 * 1024 * 1024),
    );
    await expect(refused).rejects.toMatchObject({ name: "MediaTooLargeError", limitBytes: 20 * 1024 * 1024 });
  });
});

function options(maxBytes: number) {
  return { signal: AbortSignal.timeout(5000), maxBytes };
}

describe("TelegramPoller against the emulator", () => {
  const update = (id: number, text: string) =>
    ({
      update_id: id,
      message: { message_id: id, date: 1, chat: { id: 5, type: "private" }, from: { id: 5, is_bot: false }, text },
    }) as unknown as Update;

  it("removes the webhook, hands updates over in order, and reads again what the bridge could not take", async () => {
    const { emulator, channel } = await start();
    emulator.enqueue(update(10, "first"));
    emulator.enqueue(update(11, "second"));
    const seen: string[] = [];
    let failOnce = true;
    const poller = new TelegramPoller({
      api: channel.api,
      timeoutSeconds: 1,
      backoffMs: 20,
      deliver: async (received): Promise<DeliveryOutcome> => {
        const text = (received as Update).message?.text ?? "";
        if (text === "second" && failOnce) {
          failOnce = false;
          throw new Error("store down");
        }
        seen.push(text);
        return "accepted";
      },
    });
    poller.start();
    await until(() => (seen.length >= 2 ? true : undefined));
    emulator.enqueue(update(12, "third"));
    await until(() => (seen.length >= 3 ? true : undefined));
    await poller.stop();
    expect(seen).toEqual(["first", "second", "third"]);
    expect(emulator.callsTo("deleteWebhook")).toHaveLength(1);
    // Stopping confirmed everything handed over: the next reader starts after update 12.
    const last = emulator.callsTo("getUpdates").at(-1);
    expect(Number(last?.params.offset)).toBe(13);
  });
});
