/**
 * A reload in the middle of a streamed answer, in Chromium: the page comes back with the whole conversation — the
 * visitor's question too — and the answer goes on growing in the same bubble, not twice.
 */

import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningBridge } from "../../../src/bridge-app.js";
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
  chatbot.answer = () => ({ fragments: PARTS, pauseMs: 200 });
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
    await context.close();
  }, 40_000);
});
