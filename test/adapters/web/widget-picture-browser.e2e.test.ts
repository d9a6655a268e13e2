/**
 * The chatbot's avatar and launcher picture set the documented way, as file ids from the upload, shown by the widget
 * on a page of another origin in a real browser (Debian's Chromium through playwright-core): the bridge serves them
 * from the embedded API's picture route. A picture that cannot be fetched gives way to the letter and the chat icon.
 */

import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WIDGET_SETTINGS_MAX_AGE_S } from "../../../adapters/web/routes.js";
import type { RunningBridge } from "../../../src/app/bridge-app.js";
import type { ChatbotClient, ChatbotSettings } from "../../../src/client/index.js";
import { chromiumForTests, launchChromium } from "../../support/chromium.js";
import { png, textFile } from "../../support/media-fixtures.js";
import { type AgencySite, serveAgencySite, startDemoBridge } from "../../support/widget-harness.js";

const browserSupport = chromiumForTests();

let running: RunningBridge;
let site: AgencySite;
let siteUrl: string;
let browser: Browser;
let serial: string;
let client: ChatbotClient;

beforeAll(async () => {
  if (!browserSupport.available) return;
  ({ running, serial, client } = await startDemoBridge());
  site = await serveAgencySite(running.url, serial);
  siteUrl = site.url;
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  site?.close();
  await client?.close();
  await running?.close(1000);
});

/** Edits the chatbot's settings, then waits until the widget's settings can no longer be the old ones. */
async function edit(settings: ChatbotSettings): Promise<void> {
  await client.editChatbot(serial, settings);
  await new Promise((resolve) => setTimeout(resolve, WIDGET_SETTINGS_MAX_AGE_S * 1000 + 300));
}

/** An image of the widget once loaded or failed: its address and its width as decoded (0: not shown). */
const image = (page: Page, selector: string) =>
  page.locator(`#chatbridge-widget ${selector}`).evaluate((element) => {
    const img = element as unknown as { src: string; naturalWidth: number; complete: boolean };
    return img.complete ? { src: img.src, naturalWidth: img.naturalWidth } : undefined;
  });

describe.skipIf(!browserSupport.available)("the widget's pictures from file ids, in Chromium", () => {
  it("shows the avatar and the launcher picture uploaded as a file, on a page of another origin", async () => {
    const id = await client.uploadFile({ fileName: "agency.png", bytes: png(40, 40, [200, 60, 30]) });
    await edit({ ChatProfilePicture: String(id), ChatIcon: String(id) });
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(siteUrl);
    await page.locator("#chatbridge-widget .launcher").waitFor();
    await expect
      .poll(() => image(page, "header img.avatar"), { timeout: 10_000 })
      .toEqual({
        src: `${running.url}/webchat/picture/profile?chatbot=${serial}&v=${id}`,
        naturalWidth: 40,
      });
    await expect.poll(() => image(page, ".launcher img"), { timeout: 10_000 }).toMatchObject({ naturalWidth: 40 });
    await context.close();
  }, 60_000);

  it("shows the letter avatar and the chat icon where the picture cannot be fetched", async () => {
    // A file id the server will not serve as a picture: the bytes are no image.
    const id = await client.uploadFile({ fileName: "notes.png", bytes: textFile() });
    await edit({ ChatProfilePicture: String(id), ChatIcon: String(id) });
    const context = await browser.newContext();
    const page = await context.newPage();
    const refused: string[] = [];
    // The bridge's 404 (JSON) reaches no <img>: Chromium blocks it (ORB), and the image fails either way.
    page.on("requestfailed", (request) => {
      if (request.url().includes("/webchat/picture/")) refused.push(request.url());
    });
    await page.goto(siteUrl);
    await page.locator("#chatbridge-widget .launcher").waitFor();
    const letter = page.locator("#chatbridge-widget header span.avatar");
    await letter.waitFor({ state: "attached", timeout: 10_000 });
    expect(await letter.textContent()).toBe("H");
    expect(await page.locator("#chatbridge-widget img").count()).toBe(0);
    await expect.poll(() => page.locator("#chatbridge-widget .launcher svg").count()).toBe(1);
    // Both were asked for, and neither could be shown.
    expect(refused.sort()).toEqual([
      `${running.url}/webchat/picture/icon?chatbot=${serial}&v=${id}`,
      `${running.url}/webchat/picture/profile?chatbot=${serial}&v=${id}`,
    ]);
    await context.close();
  }, 60_000);
});
