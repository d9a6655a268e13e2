/**
 * The widget in Chromium when the bridge refuses a message as one too many: the visitor reads why and when they can
 * write again, not that sending failed.
 */

import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningBridge } from "../../../src/app/bridge-app.js";
import { chromiumForTests, launchChromium } from "../../support/chromium.js";
import { startDemoBridge } from "../../support/widget-harness.js";

const browserSupport = chromiumForTests();

let running: RunningBridge;
let browser: Browser;

beforeAll(async () => {
  if (!browserSupport.available) return;
  // The greeting (/start) and one message a minute.
  ({ running } = await startDemoBridge({ WEB_CHAT_LIMITS: "messages=2/1m,60/1m" }));
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await running?.close(1000);
});

describe.skipIf(!browserSupport.available)("the widget over the visitor's message budget, in Chromium", () => {
  it("tells the visitor they are sending too quickly and when they can write again", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${running.url}/`);
    await page.locator("#chatbridge-widget .panel").waitFor();
    const consent = page.locator("#chatbridge-widget .consent");
    if (await consent.isVisible()) await consent.click();
    const input = page.locator("#chatbridge-input");
    const bot = page.locator("#chatbridge-widget .bubble.bot");
    await expect.poll(() => bot.count(), { timeout: 10_000 }).toBeGreaterThan(0);
    await input.fill("homes in Austin");
    await input.press("Enter");
    await expect.poll(() => page.locator("#chatbridge-widget .bubble.user").count()).toBe(1);
    await input.fill("and in Denver?");
    await input.press("Enter");
    await expect
      .poll(() => bot.last().locator(".body").textContent(), { timeout: 10_000 })
      .toMatch(/^You are sending messages too quickly\. You can write again in \d+ s\.$/);
    await context.close();
  }, 60_000);
});
