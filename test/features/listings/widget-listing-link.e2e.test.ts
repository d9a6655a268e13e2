/**
 * The widget opened from a listing's link (`?listing=<code>` on the page's address), in a real browser (Debian's
 * Chromium through playwright-core), on a page of another origin embedding the widget: the panel opens by itself and
 * the greeting, the listing's card and "Would you like to book a viewing?" show, and no bubble of the visitor with
 * the code; a reload shows them again from the history without a second visit. Screenshot: reports/screenshots/widget-listing-link.png.
 */

import { mkdirSync } from "node:fs";
import path from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningBridge } from "../../../src/app/bridge-app.js";
import type { ChatbotClient } from "../../../src/client/index.js";
import { listingCode } from "../../../src/features/listings/listing-links.js";
import { chromiumForTests, launchChromium } from "../../support/chromium.js";
import { type AgencySite, SCREENSHOTS, serveAgencySite, startDemoBridge } from "../../support/widget-harness.js";

const browserSupport = chromiumForTests();

let running: RunningBridge;
let site: AgencySite;
let browser: Browser;
let serial: string;
let client: ChatbotClient;

beforeAll(async () => {
  if (!browserSupport.available) return;
  ({ running, serial, client } = await startDemoBridge());
  site = await serveAgencySite(running.url, serial);
  browser = await launchChromium();
  mkdirSync(SCREENSHOTS, { recursive: true });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  site?.close();
  await client?.close();
  await running?.close(1000);
});

describe.skipIf(!browserSupport.available)("the widget opened from a listing's link, in Chromium", () => {
  it("opens the panel with the listing's card and the viewing question, once per visitor", async () => {
    const { List } = await client.listListings({ SerialNumber: serial, PageNumber: 1, PageSize: 1 });
    const mls = String(List[0]?.MLSNumber);
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await page.goto(`${site.url}?listing=${listingCode(mls)}`);

    await page.locator("#chatbridge-widget .panel").waitFor({ timeout: 15_000 });
    const question = page.locator("#chatbridge-widget .bubble.bot", { hasText: "Would you like to book a viewing?" });
    await expect.poll(() => question.count(), { timeout: 15_000 }).toBe(1);
    const card = page.locator("#chatbridge-widget ul.cards li.card");
    await expect.poll(() => card.count(), { timeout: 15_000 }).toBe(1);
    expect(await card.locator("a.details").getAttribute("href")).toBe(String(List[0]?.Url));
    // The greeting first (once), then the card and the question; the code shows in no bubble of the visitor.
    const welcome = String((await client.getChatbot(serial)).WelcomeMessage);
    const bot = page.locator("#chatbridge-widget .bubble.bot .body");
    await expect.poll(() => bot.count(), { timeout: 15_000 }).toBe(2);
    expect((await bot.allTextContents())[1]).toBe("Would you like to book a viewing?");
    expect(await bot.first().textContent()).toBe(welcome);
    const visitorBubbles = page.locator("#chatbridge-widget .bubble.user");
    expect(await visitorBubbles.count()).toBe(0);

    await page.screenshot({ path: path.join(SCREENSHOTS, "widget-listing-link.png") });
    await page.reload();
    await page.locator("#chatbridge-widget .panel").waitFor({ timeout: 15_000 });
    await expect.poll(() => question.count(), { timeout: 15_000 }).toBe(1);
    await expect.poll(() => card.count(), { timeout: 15_000 }).toBe(1);
    // Also after the reload, replayed from the history: no bubble of the visitor.
    expect(await visitorBubbles.count()).toBe(0);
    expect(await question.count()).toBe(1);
    const visits = (await client.listLeads({ serialNumber: serial })).filter((lead) => lead.Type === "ListingVisit");
    expect(visits.map((lead) => lead.Content)).toEqual([`MLS ${mls} via web`]);
    await context.close();
  }, 60_000);
});
