/**
 * The widget in a real browser (Debian's Chromium through playwright-core), embedded by one script tag in a page of
 * another origin whose own CSS is hostile: it follows the chatbot's settings, changes after an Edit without a
 * restart, opens once by itself when told to, keeps the conversation in session storage when told to, answers,
 * and draws nothing on a page its Domains do not admit. Screenshots go to reports/screenshots/ for people to look at.
 */

import { mkdirSync } from "node:fs";
import path from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WIDGET_SETTINGS_MAX_AGE_S } from "../../../adapters/web/routes.js";
import type { RunningBridge } from "../../../src/app/bridge-app.js";
import type { ChatbotClient, ChatbotSettings } from "../../../src/client/index.js";
import { chromiumForTests, launchChromium } from "../../support/chromium.js";
import { SmtpSink } from "../../support/smtp-sink.js";
import { type AgencySite, SCREENSHOTS, serveAgencySite, startDemoBridge } from "../../support/widget-harness.js";

const browserSupport = chromiumForTests();

let running: RunningBridge;
let site: AgencySite;
let siteUrl: string;
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
  // An agency's page on another origin, whose CSS would restyle anything it reaches.
  site = await serveAgencySite(running.url, serial, {
    head: "<style>* { font-size: 40px !important; color: red !important; background: pink !important; } button { display: none !important; }</style>",
  });
  siteUrl = site.url;
  browser = await launchChromium();
  mkdirSync(SCREENSHOTS, { recursive: true });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  site?.close();
  await running?.close(1000);
  await smtp?.stop();
});

/** Edits the chatbot's settings, then waits until the widget's settings can no longer be the old ones. */
async function edit(settings: ChatbotSettings): Promise<void> {
  await client.editChatbot(serial, settings);
  await new Promise((resolve) => setTimeout(resolve, WIDGET_SETTINGS_MAX_AGE_S * 1000 + 300));
}

/** A new visitor (an empty browser profile) on the agency's page. */
async function visit(viewport = { width: 1280, height: 800 }): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  await page.goto(siteUrl);
  return { context, page };
}

/** The page's window as these tests use it (the tests are compiled without the DOM's types). */
type PageWindow = {
  getComputedStyle(element: unknown): { getPropertyValue(name: string): string };
  sessionStorage: { getItem(key: string): string | null };
  localStorage: { getItem(key: string): string | null };
};

const style = (page: Page, selector: string, property: string) =>
  page
    .locator(selector)
    .first()
    .evaluate(
      (element, name) => (globalThis as unknown as PageWindow).getComputedStyle(element).getPropertyValue(name),
      property,
    );

describe.skipIf(!browserSupport.available)("the widget on another site's page, in Chromium", () => {
  it("is styled by the chatbot's settings, asks for consent, answers, and follows an Edit", async () => {
    await client.editChatbot(serial, {
      ChatBubbleColor: "rgb(15,118,110)",
      ChatBubbleAlign: 1,
      UserInputPlaceholder: "Ask about a home…",
      ChatbotPrivacyPolicyName: "Privacy notice",
      ChatbotPrivacyPolicyDescription: "We keep your messages for 30 days.",
      ChatbotPrivacyPolicyUrl: "https://agency.example/privacy",
      FacebookUrl: "https://facebook.com/harborpine",
    });
    const { context, page } = await visit();
    const launcher = page.locator("#chatbridge-widget .launcher");
    await launcher.waitFor();
    // Bottom left (ChatBubbleAlign 1), in the chatbot's colour, untouched by the page's CSS.
    const box = await launcher.boundingBox();
    expect(box?.x).toBeLessThan(100);
    expect(await style(page, "#chatbridge-widget .launcher", "background-color")).toBe("rgb(15, 118, 110)");
    expect(await launcher.getAttribute("aria-expanded")).toBe("false");
    await launcher.click();
    const panel = page.locator("#chatbridge-widget .panel");
    await panel.waitFor();
    expect(await style(page, "#chatbridge-widget header h2", "font-size")).toBe("16px");
    expect(await page.locator("#chatbridge-widget header h2").textContent()).toBe("Harbor & Pine Realty");
    expect(await page.locator("#chatbridge-widget a.social").getAttribute("href")).toBe(
      "https://facebook.com/harborpine",
    );
    const input = page.locator("#chatbridge-input");
    expect(await input.getAttribute("placeholder")).toBe("Ask about a home…");
    // The privacy notice comes first: nothing can be sent before it is accepted.
    expect(await page.locator("#chatbridge-widget .privacy").textContent()).toContain(
      "We keep your messages for 30 days.",
    );
    expect(await input.isDisabled()).toBe(true);
    await page.locator("#chatbridge-widget .consent").click();
    // Once the bridge recorded the consent.
    await expect.poll(() => input.isDisabled()).toBe(false);
    // The chatbot greets, offering its suggested messages as chips; a chip asks its question.
    const greeting = page.locator("#chatbridge-widget .bubble.bot").first();
    await expect.poll(() => greeting.textContent(), { timeout: 10_000 }).toContain("Harbor & Pine Realty assistant");
    const chip = page.locator("#chatbridge-widget .chips button", { hasText: "3 bedroom homes for sale in Austin" });
    await chip.click();
    await expect
      .poll(() => page.locator("#chatbridge-widget .bubble.user").last().textContent())
      .toContain("3 bedroom homes for sale in Austin");
    const answer = page.locator("#chatbridge-widget .bubble.bot").last();
    await expect.poll(() => answer.textContent(), { timeout: 15_000 }).toMatch(/I found \d+ matches? for .*Austin/);
    expect(await answer.locator("a").first().getAttribute("href")).toMatch(/^https:\/\/homes\.example\.com\/listing\//);
    expect(await style(page, "#chatbridge-widget .bubble.bot", "color")).toBe("rgb(255, 255, 255)");
    await page.screenshot({ path: path.join(SCREENSHOTS, "widget-desktop.png") });
    await context.close();

    // An Edit shows on the next page load: a yellow that takes dark text, and the panel opening once by itself.
    await edit({ ChatBubbleColor: "rgb(250,204,21)", ChatbotPopupOnce: true, RemoveChatLogOnBrowserClose: true });
    const next = await visit({ width: 390, height: 844 });
    await next.page.locator("#chatbridge-widget .panel").waitFor();
    expect(await style(next.page, "#chatbridge-widget header", "background-color")).toBe("rgb(250, 204, 21)");
    expect(await style(next.page, "#chatbridge-widget header", "color")).toBe("rgb(17, 24, 39)");
    // Full screen on a phone.
    expect((await next.page.locator("#chatbridge-widget .panel").boundingBox())?.width).toBe(390);
    await next.page.screenshot({ path: path.join(SCREENSHOTS, "widget-phone.png") });
    // RemoveChatLogOnBrowserClose: the visitor's conversation lives in session storage only.
    const stored = await next.page.evaluate((key) => {
      const window = globalThis as unknown as PageWindow;
      return { session: window.sessionStorage.getItem(key), local: window.localStorage.getItem(key) };
    }, `chatbridge.${serial}.visitor`);
    expect(stored.session).toMatch(/^[A-Za-z0-9_-]{16,64}\.[A-Za-z0-9_-]{43}$/);
    expect(stored.local).toBeNull();
    // Once per visitor: the next page load keeps it closed.
    await next.page.reload();
    await next.page.locator("#chatbridge-widget .launcher").waitFor();
    expect(await next.page.locator("#chatbridge-widget .panel").isHidden()).toBe(true);
    await next.context.close();
  }, 90_000);

  it("draws nothing on a page whose origin the chatbot's Domains do not admit", async () => {
    await edit({ VerifyDomain: true, Domains: "agency.example", ChatbotPopupOnce: false });
    const refused = await visit();
    const warnings: string[] = [];
    refused.page.on("console", (message) => warnings.push(message.text()));
    await refused.page.reload();
    await expect.poll(() => warnings.join("\n"), { timeout: 10_000 }).toContain("not enabled on http://127.0.0.1:");
    expect(await refused.page.locator("#chatbridge-widget").count()).toBe(0);
    await refused.context.close();

    await edit({ Domains: "agency.example, 127.0.0.1" });
    const admitted = await visit();
    await admitted.page.locator("#chatbridge-widget .launcher").waitFor();
    await admitted.context.close();
    await edit({ VerifyDomain: false });
  }, 60_000);

  it("is also chatbridge's own page at /, drawn over the whole page, greeting at once", async () => {
    await edit({ ChatbotPrivacyPolicyName: "", ChatbotPrivacyPolicyDescription: "", ChatbotPrivacyPolicyUrl: "" });
    const context = await browser.newContext({ viewport: { width: 1024, height: 700 } });
    const page = await context.newPage();
    await page.goto(`${running.url}/`);
    const panel = page.locator("#chatbridge-widget .panel");
    await panel.waitFor();
    expect(await page.locator("#chatbridge-widget .launcher").count()).toBe(0);
    expect((await panel.boundingBox())?.width).toBe(1024);
    await expect
      .poll(() => page.locator("#chatbridge-widget .bubble.bot").first().textContent(), { timeout: 10_000 })
      .toContain("Harbor & Pine Realty assistant");
    await page.screenshot({ path: path.join(SCREENSHOTS, "page.png") });
    await context.close();
  }, 30_000);

  it("asks the visitor how to reach them before handing the conversation to a person, and mails the team that", async () => {
    const { context, page } = await visit();
    await page.locator("#chatbridge-widget .launcher").click();
    await page.locator("#chatbridge-widget .human").click();
    const field = page.locator("#chatbridge-contact");
    await field.fill("call me maybe");
    await page.locator("#chatbridge-widget form.contact button[type=submit]").click();
    expect(await page.locator("#chatbridge-widget .contact .error").textContent()).toContain("Please enter an e-mail");
    expect(await field.getAttribute("aria-invalid")).toBe("true");
    await field.fill("ana@example.com");
    await page.locator("#chatbridge-widget form.contact button[type=submit]").click();
    await expect
      .poll(() => page.locator("#chatbridge-widget .bubble.user").last().textContent())
      .toContain("You can reach me at ana@example.com.");
    // What happens next, in the chatbot's words (its TalkToHumanResponseMessage).
    await expect
      .poll(() => page.locator("#chatbridge-widget .bubble.bot").last().textContent(), { timeout: 10_000 })
      .toContain("One of our agents will e-mail you shortly.");
    await expect.poll(() => smtp.received.length, { timeout: 10_000 }).toBe(1);
    const [mail] = smtp.received;
    expect(mail?.envelope.to).toEqual(["agents@homes.example"]);
    expect(mail?.text).toContain("Reach them: mailto:ana@example.com");
    const leads = await client.listLeads({ serialNumber: serial });
    expect(leads.at(-1)).toMatchObject({ Type: "Handoff", Name: "ana@example.com", Email: "ana@example.com" });
    await page.screenshot({ path: path.join(SCREENSHOTS, "widget-handoff.png") });
    await context.close();
  }, 30_000);
});
