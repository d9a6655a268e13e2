/**
 * "Book a viewing" in the widget, in a real browser (Debian's Chromium through playwright-core), on a page of another
 * origin, against the bridge as `npm start` runs it: the card's button, the bridge's questions, the visitor's answers
 * typed in the widget, and the mail the agency gets. A screenshot goes to reports/screenshots/widget-viewing.png.
 */

import { mkdirSync } from "node:fs";
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningBridge } from "../../../src/app/bridge-app.js";
import type { ChatbotClient } from "../../../src/client/index.js";
import { VIEWING_TEXTS } from "../../../src/features/viewings/viewing-texts.js";
import { chromiumForTests, launchChromium } from "../../support/chromium.js";
import { SmtpSink } from "../../support/smtp-sink.js";
import { type AgencySite, SCREENSHOTS, serveAgencySite, startDemoBridge } from "../../support/widget-harness.js";

const browserSupport = chromiumForTests();

let running: RunningBridge;
let site: AgencySite;
let browser: Browser;
let serial: string;
let client: ChatbotClient;
let smtp: SmtpSink;

beforeAll(async () => {
  if (!browserSupport.available) return;
  smtp = await SmtpSink.start();
  ({ running, serial, client } = await startDemoBridge({
    SMTP_URL: smtp.url(),
    MAIL_FROM: "Homes bot <bot@homes.example>",
    HANDOFF_EMAIL: "agents@homes.example",
  }));
  await client.createListing({
    SerialNumber: serial,
    SaleType: "for_sale",
    Status: "Active",
    CurrencySymbol: "$",
    PropertyType: "House",
    Bedrooms: 3,
    Bathrooms: 2,
    Url: "https://homes.example.com/homes/birch-house",
    MLSNumber: "VIEW-2",
    YearBuilt: 2001,
    DaysOnMarket: 2,
    LotArea: 4000,
    BuildingArea: 1600,
    AreaUnit: "Square Feet",
    ParkingSpots: 1,
    Address: "9 Birch Ln",
    City: "Round Rock",
    State: "TX",
    ZIP: "78664",
    SalePrice: 420_000,
  });
  site = await serveAgencySite(running.url, serial);
  browser = await launchChromium();
  mkdirSync(SCREENSHOTS, { recursive: true });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  site?.close();
  await client?.close();
  await running?.close(1000);
  await smtp?.stop();
});

/** Types `text` in the widget and sends it; resolves with the text of the chatbot's next bubble. */
async function say(page: Page, text: string): Promise<string> {
  const bot = page.locator("#chatbridge-widget .bubble.bot");
  const before = await bot.count();
  const input = page.locator("#chatbridge-input");
  await input.fill(text);
  await input.press("Enter");
  await expect.poll(() => bot.count(), { timeout: 15_000 }).toBe(before + 1);
  return (await bot.nth(before).locator(".body").textContent()) ?? "";
}

describe.skipIf(!browserSupport.available)("Book a viewing in the widget, in Chromium", () => {
  it("asks for a time and a contact after the card's button, and mails the agency", async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await page.goto(site.url);
    await page.locator("#chatbridge-widget .launcher").click();
    await page.locator("#chatbridge-widget .panel").waitFor();
    await expect.poll(() => page.locator("#chatbridge-widget .bubble.bot").count(), { timeout: 10_000 }).toBe(1);

    await say(page, "Tell me about MLS# VIEW-2");
    const card = page.locator("#chatbridge-widget li.card").last();
    await card.waitFor({ timeout: 15_000 });
    // The same card step as every channel's: all three actions, in order.
    expect(await card.locator("a.details, button.details").allTextContents()).toEqual([
      "Details",
      "Similar homes",
      "Book a viewing",
    ]);
    const book = card.locator("button.viewing");
    expect(await book.getAttribute("aria-label")).toBe("Book a viewing: 9 Birch Ln, Round Rock, TX 78664");
    const bot = page.locator("#chatbridge-widget .bubble.bot");
    const before = await bot.count();
    await book.click();
    await expect.poll(() => bot.count(), { timeout: 15_000 }).toBe(before + 1);
    expect(await bot.nth(before).locator(".body").textContent()).toBe(
      VIEWING_TEXTS.askTime("9 Birch Ln, Round Rock, TX 78664"),
    );
    expect(await page.locator("#chatbridge-widget .bubble.user").last().textContent()).toContain(
      "Book a viewing of MLS VIEW-2",
    );

    expect(await say(page, "next week, any afternoon")).toBe(VIEWING_TEXTS.askContact);
    const mails = smtp.received.length;
    expect(await say(page, "ana@example.com")).toBe(VIEWING_TEXTS.sent('"next week, any afternoon"'));
    await page.locator("#chatbridge-widget .panel").screenshot({ path: path.join(SCREENSHOTS, "widget-viewing.png") });

    await expect.poll(() => smtp.received.length, { timeout: 10_000 }).toBe(mails + 1);
    const mail = smtp.received.at(-1);
    expect(mail?.subject).toMatch(/^Viewing request: 9 Birch Ln, Round Rock, TX 78664 — /);
    expect(mail?.text).toContain("Reach them: ana@example.com (mailto:ana@example.com)");
    expect(mail?.attachments).toEqual([]);
    await context.close();
  }, 90_000);

  it("asks the similar-homes question after the card's Similar homes button", async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await page.goto(site.url);
    await page.locator("#chatbridge-widget .launcher").click();
    await expect.poll(() => page.locator("#chatbridge-widget .bubble.bot").count(), { timeout: 10_000 }).toBe(1);
    await say(page, "Tell me about MLS# VIEW-2");
    const card = page.locator("#chatbridge-widget li.card").last();
    await card.waitFor({ timeout: 15_000 });
    const similar = card.locator("button.similar");
    expect(await similar.getAttribute("aria-label")).toBe("Similar homes: 9 Birch Ln, Round Rock, TX 78664");
    const bot = page.locator("#chatbridge-widget .bubble.bot");
    const before = await bot.count();
    await similar.click();
    await expect.poll(() => bot.count(), { timeout: 15_000 }).toBe(before + 1);
    expect(await page.locator("#chatbridge-widget .bubble.user").last().textContent()).toContain(
      "Show me homes similar to MLS VIEW-2",
    );
    // The chatbot was asked the similar-homes question built from the listing, not the button's words.
    const history = await client.chatHistory({ SerialNumber: serial });
    const asked = history.flatMap((session) => session.Messages.filter((message) => message.Type === "User"));
    expect(asked.map((message) => message.Content)).toContainEqual(
      expect.stringMatching(/^Show me homes similar to MLS VIEW-2: in Round Rock, for sale, about \$420,000 \(±20%/),
    );
    await context.close();
  }, 90_000);
});
