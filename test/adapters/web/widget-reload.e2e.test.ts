/**
 * A reload in the middle of a streamed answer, in Chromium: the page comes back with the whole conversation — the
 * visitor's question too — and the answer goes on growing in the same bubble, not twice.
 */

import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningBridge } from "../../../src/app/bridge-app.js";
import { startBridgeUnderTest } from "../../support/bridge-under-test.js";
import { chromiumForTests, launchChromium } from "../../support/chromium.js";
import { ScriptedChatbot } from "../../upstream/scripted-chatbot.js";

const browserSupport = chromiumForTests();
const PARTS = Array.from({ length: 16 }, (_, k) => `part${k} `);

let chatbot: ScriptedChatbot;
let running: RunningBridge;
let browser: Browser;

beforeAll(async () => {
  if (!browserSupport.available) return;
  chatbot = await ScriptedChatbot.start();
  chatbot.answer = (question) =>
    question === "one more please"
      ? { fragments: [], failWith: 429, retryAfterSeconds: 600 }
      : { fragments: PARTS, pauseMs: 200 };
  chatbot.welcome = { ...chatbot.welcome, RateLimitMessage: "You have reached today's limit of questions." };
  running = await startBridgeUnderTest(chatbot, {});
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await running?.close(1000);
  await chatbot?.close();
});

describe.skipIf(!browserSupport.available)("the widget reloaded mid-answer, in Chromium", () => {
  it("shows the history, the visitor's question included, and the answer finishes in its one bubble", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${running.url}/`);
    const bot = page.locator("#chatbridge-widget .bubble.bot");
    await expect.poll(() => bot.first().textContent(), { timeout: 10_000 }).toContain("Welcome to Homes!");
    await page.locator("#chatbridge-input").fill("tell me about lofts");
    await page.locator("#chatbridge-input").press("Enter");
    await expect.poll(() => bot.last().textContent(), { timeout: 10_000 }).toContain("part2");
    expect(await bot.last().textContent()).not.toContain("part15");
    // Still growing: busy, so a screen reader waits for the whole answer.
    expect(await bot.last().getAttribute("aria-busy")).toBe("true");
    expect(await page.locator("#chatbridge-widget .log").getAttribute("aria-busy")).toBe("true");

    await page.reload();
    await expect
      .poll(() => page.locator("#chatbridge-widget .bubble.user").allTextContents(), { timeout: 10_000 })
      .toEqual([expect.stringContaining("tell me about lofts")]);
    await expect.poll(() => bot.last().textContent(), { timeout: 15_000 }).toContain("part15");
    const texts = await bot.allTextContents();
    expect(texts.filter((text) => text.includes("Welcome to Homes!"))).toHaveLength(1);
    expect(texts.filter((text) => text.includes("part0"))).toHaveLength(1);
    // The question was asked once: the reload asked nothing again.
    expect(chatbot.asks.filter((ask) => ask.content === "tell me about lofts")).toHaveLength(1);
    // Finished: no longer busy, and read out once by the live region.
    await expect.poll(() => bot.last().getAttribute("aria-busy")).toBe("false");
    expect(await page.locator("#chatbridge-widget .log").getAttribute("aria-busy")).toBe("false");
    await expect
      .poll(() => page.locator("#chatbridge-widget .announcer").textContent(), { timeout: 5_000 })
      .toContain("part15");
    await context.close();
  }, 40_000);

  it("says when the chatbot's limit lets the visitor write again, and holds the input until then", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${running.url}/`);
    const input = page.locator("#chatbridge-input");
    await expect
      .poll(() => page.locator("#chatbridge-widget .bubble.bot").first().textContent(), { timeout: 10_000 })
      .toContain("Welcome to Homes!");
    await input.fill("one more please");
    await input.press("Enter");
    await expect
      .poll(() => page.locator("#chatbridge-widget .bubble.bot").last().textContent(), { timeout: 10_000 })
      .toContain("You have reached today's limit of questions. You can write again in about 10 minutes.");
    await expect.poll(() => input.isDisabled()).toBe(true);
    expect(await input.getAttribute("placeholder")).toMatch(/^You can write again at \d{1,2}:\d{2}/);
    await context.close();
  }, 30_000);
});
