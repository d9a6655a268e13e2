import { Writable } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { SlackChannel } from "../../../adapters/slack/outbound.js";
import type { ReplyTarget } from "../../../src/bridge/inbound.js";
import { createLogger } from "../../../src/common/log.js";
import { SlackEmulator, type SlackLimits } from "../../emulators/slack.js";
import { channelFailure } from "../../support/channel-failure.js";
import { until } from "../../support/waiting.js";

const started: SlackEmulator[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((emulator) => emulator.close()));
});

async function start(limits?: Partial<SlackLimits>, log = createLogger("silent")) {
  const emulator = await SlackEmulator.start(limits ? { limits } : {});
  started.push(emulator);
  return { emulator, channel: new SlackChannel({ token: emulator.token, apiUrl: emulator.url, log }) };
}

const thread: ReplyTarget = { chatId: "C0HOMES", isGroup: true, threadId: "1767380000.000100" };
const dm: ReplyTarget = { chatId: "D0ANA", isGroup: false };
const assistantThread: ReplyTarget = { chatId: "D0ANA", isGroup: false, threadId: "1767380000.000200" };

function options(maxBytes: number) {
  return { signal: AbortSignal.timeout(5000), maxBytes };
}

describe("SlackChannel against the emulator", () => {
  it("posts markdown as mrkdwn in the thread and edits it in place", async () => {
    const { emulator, channel } = await start();
    const sent = await channel.send(thread, {
      text: "**3 rooms** in [Austin](https://homes.example/a)",
      format: "markdown",
    });
    await channel.edit(thread, sent, { text: "**3 rooms** in Austin, *sunny*", format: "markdown" });
    const [message] = emulator.messagesIn("C0HOMES", thread.threadId);
    expect(message).toMatchObject({
      text: "*3 rooms* in Austin, _sunny_",
      format: "mrkdwn",
      edits: 1,
      threadTs: thread.threadId,
    });
    expect(emulator.callsTo("chat.postMessage")[0]?.params.text).toBe("*3 rooms* in <https://homes.example/a|Austin>");
  });

  it("escapes plain text, so nothing in it is markup or a mention", async () => {
    const { emulator, channel } = await start();
    await channel.send(dm, { text: "<!channel> 1 < 2 & *x*", format: "plain" });
    expect(emulator.messagesIn("D0ANA")[0]?.text).toBe("&lt;!channel&gt; 1 &lt; 2 &amp; *x*");
  });

  it("shows the thinking status only in assistant threads", async () => {
    const { emulator, channel } = await start();
    await channel.typing(dm);
    await channel.typing(thread);
    await channel.typing(assistantThread);
    expect(emulator.statuses("D0ANA", assistantThread.threadId).map((s) => s.status)).toEqual(["is thinking…"]);
    expect(emulator.callsTo("assistant.threads.setStatus")).toHaveLength(1);
  });

  it("maps 429 to rate_limited for the whole bot, with Slack's Retry-After", async () => {
    const { channel } = await start({ methods: { "chat.update": { max: 1, windowMs: 5_000 } } });
    const sent = await channel.send(thread, { text: "a", format: "plain" });
    await channel.edit(thread, sent, { text: "b", format: "plain" });
    const limited = await channelFailure(channel.edit(thread, sent, { text: "c", format: "plain" }));
    expect(limited).toMatchObject({ kind: "rate_limited", scope: "bot" });
    expect(limited.retryAfterMs).toBeGreaterThanOrEqual(1000);
  });

  it("maps ok:false answers to rejections and tells the operator once what to do", async () => {
    const lines: string[] = [];
    const destination = new Writable({
      write(chunk, _encoding, done) {
        lines.push(...String(chunk).split("\n").filter(Boolean));
        done();
      },
    });
    const log = createLogger("error", { destination, pretty: false });
    const { emulator, channel } = await start(undefined, log);
    emulator.notInChannel("C0PRIVATE");
    const target: ReplyTarget = { chatId: "C0PRIVATE", isGroup: true, threadId: "1.2" };
    for (let i = 0; i < 2; i++) {
      const refused = await channelFailure(channel.send(target, { text: "hi", format: "plain" }));
      expect(refused).toMatchObject({ kind: "rejected", message: "Slack chat.postMessage: not_in_channel" });
    }
    const missing = await channelFailure(channel.edit(thread, { id: "999.999" }, { text: "x", format: "plain" }));
    expect(missing.kind).toBe("rejected");
    const problems = lines
      .map((line) => JSON.parse(line).msg as string)
      .filter((msg) => msg.includes("not_in_channel"));
    expect(problems).toEqual([
      "Slack answered not_in_channel for C0PRIVATE: invite the bot to the channel (/invite @the-bot).",
    ]);
    const wrongToken = new SlackChannel({ token: "xoxb-wrong", apiUrl: emulator.url, log });
    expect((await channelFailure(wrongToken.send(dm, { text: "x", format: "plain" }))).kind).toBe("rejected");
    expect(lines.some((line) => line.includes("invalid_auth: the bot token is wrong"))).toBe(true);
    expect(lines.join("\n")).not.toContain("xoxb-wrong");
  });

  it("downloads a shared file with the bot token, and refuses a login page or a foreign host", async () => {
    const { emulator, channel } = await start();
    const bytes = new Uint8Array([0xff, 0xd8, 0xff, 1, 2, 3]);
    const file = emulator.addFile(bytes, { name: "house.jpg", mimetype: "image/jpeg" });
    const got = await channel.download({ kind: "image", platformId: file.url_private_download }, options(1024));
    expect([...got]).toEqual([...bytes]);
    const unauthorised = new SlackChannel({ token: "xoxb-not-this-workspace", apiUrl: emulator.url });
    const login = await channelFailure(
      unauthorised.download({ kind: "image", platformId: file.url_private_download }, options(1024)),
    );
    expect(login.message).toContain("login page");
    const foreign = await channelFailure(
      channel.download({ kind: "image", platformId: "https://evil.example/steal" }, options(1024)),
    );
    expect(foreign.message).toContain("not on Slack");
  });

  it("stops a download at the cap, also when the file's length is not declared", async () => {
    const { emulator, channel } = await start();
    const big = new Uint8Array(8 * 1024 * 1024);
    const declared = emulator.addFile(big, { name: "a.mp4", mimetype: "video/mp4" });
    const undeclared = emulator.addFile(big, { name: "b.mp4", mimetype: "video/mp4", declareLength: false });
    const cap = 1024 * 1024;
    for (const file of [declared, undeclared]) {
      await expect(
        channel.download({ kind: "video", platformId: file.url_private_download }, options(cap)),
      ).rejects.toMatchObject({ name: "MediaTooLargeError", limitBytes: cap });
    }
    await until(() => emulator.downloads.length === 2 && emulator.downloads.every((download) => !download.complete));
    // The transfer stopped long before the 8 MiB end: what left is the cap plus what the sockets had buffered.
    for (const download of emulator.downloads) expect(download.sent).toBeLessThan(big.length / 2);
  });
});
