/**
 * Photos and push-to-talk from the widget, in Chromium, on a page of another origin: attached photos (picker, drop,
 * paste) reach the chatbot API as one Image question with the very bytes the visitor chose; a recording held on the
 * push-to-talk button — Chromium's fake microphone playing a 440 Hz tone — reaches it as an Audio question with a
 * valid 16 kHz mono WAV of about the time held. Both go through the bridge's media pipeline like any channel's.
 */

import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningBridge } from "../../../src/app/bridge-app.js";
import { startBridgeUnderTest } from "../../support/bridge-under-test.js";
import { chromiumForTests, launchChromium } from "../../support/chromium.js";
import { mediaFixture, png, wav } from "../../support/media-fixtures.js";
import { parseWav } from "../../support/wav-header.js";
import { type AgencySite, SCREENSHOTS, serveAgencySite } from "../../support/widget-harness.js";
import { describingTheAsk, ScriptedChatbot } from "../../upstream/scripted-chatbot.js";

const browserSupport = chromiumForTests();

let chatbot: ScriptedChatbot;
let running: RunningBridge;
let browser: Browser;
let site: AgencySite;
let siteUrl: string;

beforeAll(async () => {
  if (!browserSupport.available) return;
  chatbot = await ScriptedChatbot.start();
  chatbot.welcome = { ...chatbot.welcome, EnableUploadImage: true, EnablePushToTalk: true };
  chatbot.answer = describingTheAsk;
  running = await startBridgeUnderTest(chatbot, { MEDIA_MAX_AUDIO_SECONDS: "30" });
  site = await serveAgencySite(running.url, "homes-chatbot");
  siteUrl = site.url;
  // The fake microphone plays this tone, over and over, to whatever asks for the microphone.
  const tone = path.join(mkdtempSync(path.join(tmpdir(), "chatbridge-mic-")), "tone.wav");
  writeFileSync(tone, wav(48_000 * 4, 48_000));
  browser = await launchChromium([
    "--use-fake-device-for-media-stream",
    "--use-fake-ui-for-media-stream",
    `--use-file-for-fake-audio-capture=${tone}`,
  ]);
  mkdirSync(SCREENSHOTS, { recursive: true });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  site?.close();
  await running?.close(1000);
  await chatbot?.close();
});

/** A new visitor on the agency's page with the panel open and the greeting shown. */
async function openWidget(): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  await page.goto(siteUrl);
  await page.locator("#chatbridge-widget .launcher").click();
  await expect
    .poll(() => page.locator("#chatbridge-widget .bubble.bot").first().textContent(), { timeout: 10_000 })
    .toContain("Welcome to Homes!");
  return page;
}

const lastAnswer = (page: Page) => page.locator("#chatbridge-widget .bubble.bot").last();

describe.skipIf(!browserSupport.available)("photos and voice messages from the widget, in Chromium", () => {
  it("sends photos chosen with the picker, dropped and pasted as one Image question with their exact bytes", async () => {
    const page = await openWidget();
    const jpeg = mediaFixture("photo.jpg");
    const red = png(4, 4, [220, 38, 38]);
    const green = png(3, 3, [22, 163, 74]);
    await page.locator("#chatbridge-widget input.picker").setInputFiles([
      { name: "porch.jpg", mimeType: "image/jpeg", buffer: jpeg },
      { name: "red.png", mimeType: "image/png", buffer: red },
    ]);
    // Dropped on the panel, and pasted into the input, as the browser hands files to a page.
    for (const [type, file] of [
      ["drop", green],
      ["paste", red],
    ] as const) {
      await page.evaluate(
        ({ type, bytes }) => {
          const scope = globalThis as unknown as {
            document: { querySelector(s: string): { shadowRoot: { querySelector(s: string): EventTarget } } };
            DataTransfer: new () => { items: { add(file: unknown): void } };
            File: new (parts: unknown[], name: string, options: { type: string }) => unknown;
            DragEvent: new (type: string, init: object) => Event;
            ClipboardEvent: new (type: string, init: object) => Event;
          };
          const transfer = new scope.DataTransfer();
          transfer.items.add(new scope.File([new Uint8Array(bytes)], `${type}.png`, { type: "image/png" }));
          const root = scope.document.querySelector("#chatbridge-widget").shadowRoot;
          if (type === "drop") {
            root
              .querySelector(".panel")
              .dispatchEvent(new scope.DragEvent("drop", { dataTransfer: transfer, bubbles: true, cancelable: true }));
          } else {
            root
              .querySelector("#chatbridge-input")
              .dispatchEvent(
                new scope.ClipboardEvent("paste", { clipboardData: transfer, bubbles: true, cancelable: true }),
              );
          }
        },
        { type, bytes: [...file] },
      );
    }
    const previews = page.locator("#chatbridge-widget .attachments .preview");
    await expect.poll(() => previews.count()).toBe(4);
    // One removed before sending: the other three go, in order.
    await page.locator("#chatbridge-widget .preview .remove").nth(3).click();
    expect(await previews.count()).toBe(3);
    // Something that is not a photo is left out, with the reason.
    await page
      .locator("#chatbridge-widget input.picker")
      .setInputFiles([{ name: "notes.txt", mimeType: "text/plain", buffer: Buffer.from("hello") }]);
    expect(await page.locator("#chatbridge-widget .compose-status").textContent()).toBe("Only photos can be attached.");
    await page.locator("#chatbridge-input").fill("Is this porch in good shape?");
    await page.locator("#chatbridge-input").press("Enter");
    await expect.poll(() => page.locator("#chatbridge-widget .bubble.user .photos img").count()).toBe(3);
    await expect
      .poll(() => lastAnswer(page).textContent(), { timeout: 15_000 })
      .toContain("Image with 3 file(s): Is this porch in good shape?");
    const ask = chatbot.asks.find((recorded) => recorded.chatAskType === "Image");
    expect(ask?.content).toBe("Is this porch in good shape?");
    const uploaded = (ask?.fileIds ?? []).map((id) => chatbot.upload(id).bytes);
    expect(uploaded).toEqual([jpeg, red, green]);
    await page.screenshot({ path: path.join(SCREENSHOTS, "widget-photos.png") });
    await page.context().close();
  }, 60_000);

  it("records while the push-to-talk button is held and sends an Audio question with a valid WAV", async () => {
    const page = await openWidget();
    const talk = page.locator("#chatbridge-widget button.talk");
    const box = await talk.boundingBox();
    if (!box) throw new Error("no push-to-talk button");
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.down();
    await expect
      .poll(() => page.locator("#chatbridge-widget .compose-status").textContent(), { timeout: 5_000 })
      .toContain("Recording…");
    expect(await talk.getAttribute("aria-pressed")).toBe("true");
    const started = Date.now();
    await page.waitForTimeout(2_500);
    await page.mouse.up();
    const held = (Date.now() - started) / 1000;
    await expect.poll(() => lastAnswer(page).textContent(), { timeout: 15_000 }).toContain("Audio with 1 file(s)");
    expect(await page.locator("#chatbridge-widget .bubble.user audio").count()).toBe(1);
    const ask = chatbot.asks.find((recorded) => recorded.chatAskType === "Audio");
    const upload = chatbot.upload(ask?.fileIds[0] as number);
    expect(upload).toMatchObject({ fileName: "voice-message.wav", contentType: "audio/wav", confirmed: true });
    const recording = parseWav(upload.bytes as Buffer);
    expect(recording).toMatchObject({ format: 1, channels: 1, sampleRate: 16_000, bitsPerSample: 16 });
    // About the time held (the microphone takes a moment to start), and the tone, not silence.
    expect(recording.seconds).toBeGreaterThan(1.5);
    expect(recording.seconds).toBeLessThan(held + 0.5);
    const rms = Math.sqrt(recording.samples.reduce((sum, s) => sum + s * s, 0) / recording.samples.length);
    expect(rms).toBeGreaterThan(0.05);

    // From the keyboard: Space held on the button records too.
    await talk.focus();
    await page.keyboard.down(" ");
    await page.waitForTimeout(1_500);
    await page.keyboard.up(" ");
    await expect
      .poll(() => chatbot.asks.filter((recorded) => recorded.chatAskType === "Audio").length, { timeout: 15_000 })
      .toBe(2);
    await page.context().close();
  }, 60_000);
});
