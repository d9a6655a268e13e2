/**
 * Listing cards in the widget, in a real browser (Debian's Chromium through playwright-core), on a page of another
 * origin: the demo chatbot's answer names listings by their addresses, and cards show under it with photo, price,
 * beds and baths, address and a Details link to the listing. The demo's photos (homes.example.com) cannot load on a
 * closed network, which shows the fallback: the broken photo hidden, the text kept. A listing created with a photo
 * served from a local server shows a loaded photo. Screenshots go to reports/screenshots/widget-cards*.png.
 */

import { mkdirSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningBridge } from "../../../src/app/bridge-app.js";
import type { ChatbotClient } from "../../../src/client/index.js";
import { chromiumForTests, launchChromium } from "../../support/chromium.js";
import { type AgencySite, SCREENSHOTS, serveAgencySite, startDemoBridge } from "../../support/widget-harness.js";

const require = createRequire(import.meta.url);
const browserSupport = chromiumForTests();
/** A photo of a house, as an image server would send one. */
const PHOTO = `<svg xmlns="http://www.w3.org/2000/svg" width="400" height="300"><rect width="400" height="300" fill="#7dd3fc"/><rect y="200" width="400" height="100" fill="#4ade80"/><path d="M120 200V130l80-60 80 60v70z" fill="#f8fafc"/><path d="M105 140l95-75 95 75" stroke="#b91c1c" stroke-width="14" fill="none"/><rect x="185" y="150" width="30" height="50" fill="#92400e"/></svg>`;

let running: RunningBridge;
let site: AgencySite;
let photos: Server;
let siteUrl: string;
let browser: Browser;
let serial: string;
let client: ChatbotClient;

/** Serves `body` on 127.0.0.1:<free port>; its base URL. */
async function serve(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  if (!browserSupport.available) return;
  ({ running, serial, client } = await startDemoBridge());
  site = await serveAgencySite(running.url, serial);
  siteUrl = site.url;
  photos = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "image/svg+xml" });
    res.end(PHOTO);
  });
  const photoBase = await serve(photos);
  await client.createListing({
    SerialNumber: serial,
    SaleType: "for_sale",
    Status: "PreOnMarket",
    CurrencySymbol: "$",
    PropertyType: "House",
    Bedrooms: 4,
    Bathrooms: 2.5,
    Url: "https://homes.example.com/homes/lakeview-cottage",
    MLSNumber: "CARD-77",
    YearBuilt: 2004,
    DaysOnMarket: 3,
    LotArea: 6000,
    BuildingArea: 2240,
    AreaUnit: "Square Feet",
    ParkingSpots: 2,
    Images: [`${photoBase}/lakeview-cottage.svg`],
    Address: "77 Lakeview Dr",
    // Not in Austin, so that the search there does not find it.
    City: "Round Rock",
    State: "TX",
    ZIP: "78664",
    SalePrice: 689_000,
  });
  browser = await launchChromium();
  mkdirSync(SCREENSHOTS, { recursive: true });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  site?.close();
  photos?.closeAllConnections();
  photos?.close();
  await client?.close();
  await running?.close(1000);
});

/** Asks `question` in the open widget; the bubble its answer shows in. */
async function ask(page: Page, question: string) {
  const bot = page.locator("#chatbridge-widget .bubble.bot");
  const before = await bot.count();
  const input = page.locator("#chatbridge-input");
  await input.fill(question);
  await input.press("Enter");
  await expect.poll(() => bot.count(), { timeout: 15_000 }).toBe(before + 1);
  return bot.nth(before);
}

/** What axe-core finds wrong with the cards (contrast, names, roles…), as "rule: element" lines. */
async function cardViolations(page: Page): Promise<string[]> {
  await page.addScriptTag({ path: require.resolve("axe-core/axe.min.js") });
  return page.evaluate(async () => {
    type Axe = { run(context: unknown): Promise<{ violations: { id: string; nodes: { target: unknown[] }[] }[] }> };
    const { axe } = globalThis as unknown as { axe: Axe };
    const { violations } = await axe.run({ include: [{ fromShadowDom: ["#chatbridge-widget", "ul.cards"] }] });
    return violations.flatMap((violation) =>
      violation.nodes.map((node) => `${violation.id}: ${JSON.stringify(node.target)}`),
    );
  });
}

describe.skipIf(!browserSupport.available)("listing cards in the widget, in Chromium", () => {
  it("shows cards under an answer naming listings: photo or its fallback, price, beds and baths, a Details link", async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await page.goto(siteUrl);
    await page.locator("#chatbridge-widget .launcher").click();
    await page.locator("#chatbridge-widget .panel").waitFor();
    // The greeting first, so that the next bubble of the chatbot is the answer.
    await expect.poll(() => page.locator("#chatbridge-widget .bubble.bot").count(), { timeout: 10_000 }).toBe(1);

    const answer = await ask(page, "3 bedroom homes for sale in Austin");
    await expect.poll(() => answer.textContent(), { timeout: 15_000 }).toMatch(/I found \d+ matches? for .*Austin/);
    const named = await answer.locator("a").evaluateAll((links) => links.map((link) => link.getAttribute("href")));
    const cards = page.locator("#chatbridge-widget ul.cards").last().locator("li.card");
    await expect.poll(() => cards.count(), { timeout: 10_000 }).toBe(Math.min(3, named.length));
    for (const [index, card] of (await cards.all()).entries()) {
      expect(await card.locator(".price").textContent()).toMatch(/^\$\d{1,3}(,\d{3})+/);
      expect(await card.locator(".facts").textContent()).toMatch(/^\d+ bd · \d+(\.5)? ba · [\d,]+ sq ft$/);
      expect(await card.locator(".address").textContent()).toMatch(/Austin, TX \d{5}$/);
      const details = card.locator("a.details");
      expect(await details.getAttribute("href")).toBe(named[index]);
      expect(await details.getAttribute("target")).toBe("_blank");
      expect(await details.getAttribute("rel")).toBe("noopener noreferrer");
      // A link: reached with Tab and followed with Enter.
      expect(await details.evaluate((link) => (link as unknown as { tabIndex: number }).tabIndex)).toBe(0);
      // The demo's photos cannot be fetched here: the photo is there, then hidden, and the card keeps its text.
      const photo = card.locator("img.photo");
      expect(await photo.getAttribute("src")).toMatch(/^https:\/\/homes\.example\.com\/images\//);
      expect(await photo.getAttribute("alt")).toMatch(/ at .+Austin/);
      await expect.poll(() => photo.isHidden(), { timeout: 15_000 }).toBe(true);
      expect(await card.locator(".price").isVisible()).toBe(true);
    }
    await cards.first().scrollIntoViewIfNeeded();
    await page
      .locator("#chatbridge-widget .panel")
      .screenshot({ path: path.join(SCREENSHOTS, "widget-cards-fallback.png") });

    // A listing named by its MLS number, whose photo loads: shown with its photo and the "Coming soon" badge.
    const single = await ask(page, "Tell me about MLS# CARD-77");
    await expect.poll(() => single.textContent(), { timeout: 15_000 }).toContain("lakeview-cottage");
    const card = page.locator("#chatbridge-widget ul.cards").last().locator("li.card");
    await expect.poll(() => card.count(), { timeout: 10_000 }).toBe(1);
    expect(await card.locator(".price").textContent()).toBe("$689,000 Coming soon");
    expect(await card.locator(".facts").textContent()).toBe("4 bd · 2.5 ba · 2,240 sq ft");
    expect(await card.locator(".address").textContent()).toBe("77 Lakeview Dr, Round Rock, TX 78664");
    expect(await card.locator("a.details").getAttribute("href")).toBe(
      "https://homes.example.com/homes/lakeview-cottage",
    );
    const photo = card.locator("img.photo");
    await expect
      .poll(() => photo.evaluate((image) => (image as unknown as { naturalWidth: number }).naturalWidth), {
        timeout: 10_000,
      })
      .toBe(400);
    expect(await photo.isVisible()).toBe(true);
    await page.locator("#chatbridge-widget .panel").screenshot({ path: path.join(SCREENSHOTS, "widget-cards.png") });
    // Contrast, names and roles of the cards, in light and dark mode, as axe-core checks them.
    expect(await cardViolations(page)).toEqual([]);
    await page.emulateMedia({ colorScheme: "dark" });
    await page
      .locator("#chatbridge-widget .panel")
      .screenshot({ path: path.join(SCREENSHOTS, "widget-cards-dark.png") });
    expect(await cardViolations(page)).toEqual([]);
    await page.emulateMedia({ colorScheme: "light" });

    // A reload replays the cards with the conversation.
    await page.reload();
    await page.locator("#chatbridge-widget .launcher").click();
    await expect
      .poll(() => page.locator("#chatbridge-widget li.card").count(), { timeout: 10_000 })
      .toBe(Math.min(3, named.length) + 1);
    await context.close();
  }, 90_000);
});
