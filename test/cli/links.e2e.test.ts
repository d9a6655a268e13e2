import { mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TelegramEmulator } from "../emulators/telegram.js";
import { WhatsAppEmulator } from "../emulators/whatsapp.js";
import { spawnCli } from "../support/cli-process.js";
import { decodeQrPng, decodeQrSvg } from "../support/qr-decode.js";
import { listingItem, ScriptedChatbot } from "../upstream/scripted-chatbot.js";

const TOKEN = "123456789:AAtest-token-of-the-links-bot_01";

const OTHER_TOKEN = "987654321:AAother-token-of-the-rentals-bot";

let telegram: TelegramEmulator;
let rentalsTelegram: TelegramEmulator;
let whatsapp: WhatsAppEmulator;
let chatbot: ScriptedChatbot;

beforeAll(async () => {
  [telegram, rentalsTelegram, whatsapp, chatbot] = await Promise.all([
    TelegramEmulator.start({ token: TOKEN, bot: { id: 4243, username: "homes_links_bot" } }),
    TelegramEmulator.start({ token: OTHER_TOKEN, bot: { id: 4244, username: "rentals_links_bot" } }),
    WhatsAppEmulator.start(),
    ScriptedChatbot.start(),
  ]);
  chatbot.listings = [listingItem("TX-1001"), listingItem("MLS 77.5", { Url: "https://homes.test/listing/mls-77-5" })];
});
afterAll(async () => {
  await Promise.all([telegram.close(), rentalsTelegram.close(), whatsapp.close(), chatbot.close()]);
});

/** The environment of a deployment with Telegram, WhatsApp and the web chat. */
function env(): Record<string, string> {
  return {
    DATA_DIR: mkdtempSync(path.join(tmpdir(), "chatbridge-links-data-")),
    PUBLIC_URL: "https://homes.example.com",
    CHATBOT_API_URL: chatbot.url,
    CHATBOT_API_KEY: "sk-test",
    CHATBOT_SESSION_KEY: "session-key-test",
    CHATBOT_SERIAL_NUMBER: "homes-chatbot",
    TELEGRAM_BOT_TOKEN: TOKEN,
    TELEGRAM_API_ROOT: telegram.url,
    WHATSAPP_ACCESS_TOKEN: "EAAG-test-token",
    WHATSAPP_PHONE_NUMBER_ID: whatsapp.phoneNumberId,
    WHATSAPP_API_URL: whatsapp.url,
  };
}

async function links(args: string[], variables = env()) {
  const run = spawnCli(["links", ...args], variables);
  const { code } = await run.exited;
  return { code, stdout: run.stdout(), stderr: run.stderr() };
}

// Each case runs the command as a process (tsx compiling it first): seconds each on a busy machine.
describe("chatbridge links", { timeout: 60_000 }, () => {
  it("prints a link per enabled channel and writes QR codes (PNG and SVG) that decode back to it", async () => {
    const out = mkdtempSync(path.join(tmpdir(), "chatbridge-links-out-"));
    const { code, stdout, stderr } = await links(["TX-1001", "--out", out]);

    expect(stderr).not.toContain("chatbridge:");
    expect(code).toBe(0);
    const printed = new Map(
      stdout
        .trim()
        .split("\n")
        .map((line) => line.split(" ", 2) as [string, string]),
    );
    expect(Object.fromEntries(printed)).toEqual({
      telegram: "https://t.me/homes_links_bot?start=l-TX-1001",
      whatsapp: `https://wa.me/15550001111?text=${encodeURIComponent("Hi! I'm interested in listing l-TX-1001")}`,
      web: "https://homes.example.com/?listing=l-TX-1001",
    });
    expect(readdirSync(out).sort()).toEqual(
      ["telegram", "web", "whatsapp"].flatMap((channel) => [`TX-1001-${channel}.png`, `TX-1001-${channel}.svg`]),
    );
    for (const [channel, link] of printed) {
      expect(decodeQrPng(path.join(out, `TX-1001-${channel}.png`))).toBe(link);
      expect(decodeQrSvg(path.join(out, `TX-1001-${channel}.svg`))).toBe(link);
    }
  });

  it("finds the listing by its page's address, and encodes an MLS number a link cannot carry as it is", async () => {
    const out = mkdtempSync(path.join(tmpdir(), "chatbridge-links-out-"));
    const variables = { ...env(), TELEGRAM_BOT_TOKEN: "", WHATSAPP_ACCESS_TOKEN: "" };
    const { code, stdout } = await links(["https://homes.test/listing/mls-77-5", "--out", out], variables);

    expect(code).toBe(0);
    const encoded = Buffer.from("MLS 77.5").toString("base64url");
    expect(stdout).toBe(`web https://homes.example.com/?listing=lx-${encoded}\n`);
    expect(readdirSync(out).sort()).toEqual(["MLS_77_5-web.png", "MLS_77_5-web.svg"]);
  });

  it("fails with what is wrong: an unknown listing, a channel whose link cannot be made, bad usage", async () => {
    const unknown = await links(["TX-404", "--out", mkdtempSync(path.join(tmpdir(), "chatbridge-links-out-"))]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('chatbridge: no listing of the chatbot answers to "TX-404"');

    const out = mkdtempSync(path.join(tmpdir(), "chatbridge-links-out-"));
    const wrongToken = await links(["TX-1001", "--out", out], { ...env(), WHATSAPP_ACCESS_TOKEN: "EAAG-wrong" });
    expect(wrongToken.code).toBe(1);
    expect(wrongToken.stderr).toMatch(/chatbridge: no whatsapp link: the Graph API did not give the number of/);
    // The other channels' links are still made.
    expect(wrongToken.stdout).toContain("telegram https://t.me/homes_links_bot?start=l-TX-1001");

    const missing = await links([]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('missing MLS number or listing URL for "chatbridge links"');
  });

  it("--bot makes the links of a bot of BRIDGE_CONFIG, and names the bots there are for an unknown one", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "chatbridge-links-bots-"));
    const file = path.join(dir, "bots.json");
    const rentals = { id: "rentals", telegram: { botToken: OTHER_TOKEN, apiRoot: rentalsTelegram.url } };
    writeFileSync(file, JSON.stringify({ bots: [rentals] }));
    const variables = { ...env(), BRIDGE_CONFIG: file };
    const out = mkdtempSync(path.join(tmpdir(), "chatbridge-links-out-"));

    const own = await links(["TX-1001", "--bot", "rentals", "--out", out], variables);
    expect(own.stderr).not.toContain("chatbridge:");
    expect(own.code).toBe(0);
    // Only its own channel: the web chat and WhatsApp belong to the bot default here.
    expect(own.stdout).toBe("telegram https://t.me/rentals_links_bot?start=l-TX-1001\n");
    expect(readdirSync(out).sort()).toEqual(["TX-1001-telegram.png", "TX-1001-telegram.svg"]);

    const unknown = await links(["TX-1001", "--bot", "sales"], variables);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown bot "sales" for "chatbridge links --bot": the bots are default, rentals');
  });
});
