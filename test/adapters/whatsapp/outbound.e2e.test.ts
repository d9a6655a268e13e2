import { Writable } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { WhatsAppChannel } from "../../../adapters/whatsapp/outbound.js";
import { createLogger } from "../../../src/common/log.js";
import { WhatsAppEmulator } from "../../emulators/whatsapp.js";
import { channelFailure } from "../../support/channel-failure.js";
import { until } from "../../support/waiting.js";

const started: WhatsAppEmulator[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((emulator) => emulator.close()));
});

async function start() {
  const emulator = await WhatsAppEmulator.start();
  started.push(emulator);
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      lines.push(...String(chunk).split("\n").filter(Boolean));
      done();
    },
  });
  const codes: number[] = [];
  const log = createLogger("error", { destination, pretty: false });
  const channel = new WhatsAppChannel({
    accessToken: emulator.accessToken,
    phoneNumberId: emulator.phoneNumberId,
    apiUrl: emulator.url,
    apiVersion: emulator.version,
    log,
    onGraphError: (code) => codes.push(code),
  });
  return { emulator, channel, lines, codes, log };
}

const user = (waId: string) => ({ chatId: waId, isGroup: false, replyToMessageId: "wamid.in" });

function options(maxBytes: number) {
  return { signal: AbortSignal.timeout(5000), maxBytes };
}

describe("WhatsAppChannel against the emulator", () => {
  it("sends markdown as WhatsApp formatting, and more than three questions as a list", async () => {
    const { emulator, channel } = await start();
    emulator.openWindow("155501");
    await channel.send(user("155501"), { text: "**3 rooms** in _Austin_", format: "markdown" });
    await channel.send(user("155501"), {
      text: "Ask me:",
      format: "plain",
      quickReplies: ["Homes for sale", "Rentals", "Condos", "Lofts with a roof terrace in Austin"],
    });
    const [text, list] = emulator.sentTo("155501");
    expect(text).toMatchObject({ type: "text", text: "*3 rooms* in _Austin_" });
    expect(list?.interactive).toMatchObject({
      type: "list",
      action: {
        sections: [{ rows: [{ id: "ask:Homes for sale" }, {}, {}, { id: "ask:Lofts with a roof terrace in Austin" }] }],
      },
    });
  });

  it("marks the user's message read with the typing indicator", async () => {
    const { emulator, channel } = await start();
    await channel.typing(user("155502"));
    expect(emulator.readReceipts()).toMatchObject([{ messageId: "wamid.in", typing: true }]);
  });

  it("refuses outside the 24-hour window, tells the operator once, and counts it", async () => {
    const { channel, lines, codes } = await start();
    for (let i = 0; i < 2; i++) {
      const refused = await channelFailure(channel.send(user("155503"), { text: "hello?", format: "plain" }));
      expect(refused.kind).toBe("rejected");
      // Told apart from other refusals: an alert then goes as the template instead.
      expect(refused.outsideWindow).toBe(true);
    }
    expect(codes).toEqual([131047, 131047]);
    expect(lines.filter((line) => line.includes("24-hour customer-service window"))).toHaveLength(1);
    // So the bridge knows how long after the user's last message a free-form alert may go.
    expect(channel.capabilities(user("155503")).freeFormWindowMs).toBe(24 * 60 * 60 * 1000);
    expect(channel.alertTemplate).toBeUndefined();
  });

  it("sends the configured alert template outside the window, its variables made fit for Meta", async () => {
    const { emulator } = await start();
    emulator.addTemplate({ name: "home_alert", language: "pt_BR", bodyParameters: 3 });
    const channel = new WhatsAppChannel({
      accessToken: emulator.accessToken,
      phoneNumberId: emulator.phoneNumberId,
      apiUrl: emulator.url,
      apiVersion: emulator.version,
      alertTemplate: { name: "home_alert", language: "pt_BR" },
    });
    const sent = await channel.alertTemplate?.send(user("155507"), [
      "A new home\nmatches your alert",
      "$450,000 ·\t3 beds ·      12 Oak St",
      "",
    ]);
    expect(sent?.id).toMatch(/^wamid\./);
    expect(emulator.sentTo("155507")).toMatchObject([
      {
        type: "template",
        template: {
          name: "home_alert",
          language: "pt_BR",
          parameters: ["A new home matches your alert", "$450,000 · 3 beds · 12 Oak St", "-"],
        },
      },
    ]);
  });

  it("maps a bad token to a rejection with the fix, never the token", async () => {
    const { emulator, lines, log } = await start();
    const wrong = new WhatsAppChannel({
      accessToken: "EAAG-wrong-token",
      phoneNumberId: emulator.phoneNumberId,
      apiUrl: emulator.url,
      apiVersion: emulator.version,
      log,
    });
    const refused = await channelFailure(wrong.send(user("155504"), { text: "x", format: "plain" }));
    expect(refused.kind).toBe("rejected");
    expect(refused.message).not.toContain("EAAG-wrong-token");
    expect(lines.some((line) => line.includes("set WHATSAPP_ACCESS_TOKEN"))).toBe(true);
    expect(lines.join("\n")).not.toContain("EAAG-wrong-token");
  });

  it("downloads media in two steps with the token", async () => {
    const { emulator, channel } = await start();
    const bytes = new Uint8Array([1, 2, 3, 4]);
    const id = emulator.addMedia(bytes, "audio/ogg");
    expect([...(await channel.download({ kind: "voice", platformId: id }, options(1024)))]).toEqual([...bytes]);
  });

  it("refuses media over the cap from its metadata without fetching the bytes, and cuts an undeclared one", async () => {
    const { emulator, channel } = await start();
    const big = new Uint8Array(8 * 1024 * 1024);
    const cap = 1024 * 1024;
    const declared = emulator.addMedia(big, "video/mp4");
    await expect(channel.download({ kind: "video", platformId: declared }, options(cap))).rejects.toMatchObject({
      name: "MediaTooLargeError",
      limitBytes: cap,
    });
    expect(emulator.downloads).toEqual([]);
    const hidden = emulator.addMedia(big, "video/mp4", { hideSize: true, declareLength: false });
    await expect(channel.download({ kind: "video", platformId: hidden }, options(cap))).rejects.toMatchObject({
      name: "MediaTooLargeError",
    });
    await until(() => emulator.downloads.length === 1 && !emulator.downloads[0]?.complete);
    expect(emulator.downloads[0]?.sent).toBeLessThan(big.length / 2);
  });

  it("sends the token only to the Graph host and Meta's media host", async () => {
    const { channel } = await start();
    const foreign = await channelFailure(
      channel.download({ kind: "image", platformId: "https://evil.example/steal" }, options(1024)),
    );
    expect(foreign.kind).toBe("rejected");
  });
});
