/**
 * The widget's accessibility in a real browser (Debian's Chromium through playwright-core): axe-core audits the
 * agency's page with the widget's open shadow root in each state a visitor meets (closed, the privacy notice, the
 * greeting, an answer with listing links), on a desktop and a 390×844 phone, in light and dark mode, and finds
 * nothing serious or critical; the widget is usable with the keyboard alone. Screenshots go to reports/screenshots/.
 */

import { mkdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import type { AxeResults } from "axe-core";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningBridge } from "../../../src/app/bridge-app.js";
import { chromiumForTests, launchChromium } from "../../support/chromium.js";
import { type AgencySite, SCREENSHOTS, serveAgencySite, startDemoBridge } from "../../support/widget-harness.js";

const AXE_SOURCE = readFileSync(
  path.join(path.dirname(createRequire(import.meta.url).resolve("axe-core")), "axe.min.js"),
  "utf8",
);
const browserSupport = chromiumForTests();

const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };

let running: RunningBridge;
let site: AgencySite;
let siteUrl: string;
let browser: Browser;

beforeAll(async () => {
  if (!browserSupport.available) return;
  const { running: bridge, serial, client } = await startDemoBridge();
  running = bridge;
  await client.editChatbot(serial, {
    ChatbotPrivacyPolicyName: "Privacy notice",
    ChatbotPrivacyPolicyDescription: "We keep your messages for 30 days.",
    ChatbotPrivacyPolicyUrl: "https://agency.example/privacy",
    FacebookUrl: "https://facebook.com/harborpine",
  });
  // An agency's page on another origin that is accessible itself, so that whatever axe finds is the widget's.
  site = await serveAgencySite(running.url, serial, {
    body: '<main><h1>Homes for sale</h1><p><a href="/listings">All listings</a></p></main>',
  });
  siteUrl = site.url;
  browser = await launchChromium();
  mkdirSync(SCREENSHOTS, { recursive: true });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  site?.close();
  await running?.close(1000);
});

/** What axe found, as the page returns it: one line per rule with its impact, summary and elements. */
type Finding = {
  id: string;
  impact: string | null | undefined;
  help: string;
  nodes: { target: unknown; summary: string }[];
};

/** The serious and critical violations axe-core finds on the page, the widget's open shadow root included. */
async function audit(page: Page): Promise<Finding[]> {
  if (!(await page.evaluate(() => "axe" in globalThis))) await page.addScriptTag({ content: AXE_SOURCE });
  const violations = await page.evaluate(async () => {
    const { axe } = globalThis as unknown as { axe: { run(options: object): Promise<AxeResults> } };
    const results = await axe.run({ resultTypes: ["violations"] });
    return results.violations.map((violation) => ({
      id: violation.id,
      impact: violation.impact,
      help: violation.help,
      nodes: violation.nodes.map((node) => ({ target: node.target, summary: node.failureSummary ?? "" })),
    }));
  });
  return violations.filter((violation) => violation.impact === "serious" || violation.impact === "critical");
}

/** The findings as a failure message a person can act on. */
function explain(findings: Finding[], where: string): string {
  const lines = findings.flatMap((finding) => [
    `${where}: ${finding.id} (${finding.impact}) ${finding.help}`,
    ...finding.nodes.map((node) => `  ${JSON.stringify(node.target)}: ${node.summary.replace(/\n/g, " ")}`),
  ]);
  return lines.join("\n");
}

/** The element that has the focus, looking into the widget's shadow root: its tag, class and label. */
function focused(page: Page): Promise<string> {
  return page.evaluate(() => {
    type Focusable = {
      tagName: string;
      className: string;
      getAttribute(name: string): string | null;
      textContent: string | null;
      shadowRoot?: { activeElement: Focusable | null } | null;
    };
    let element = (globalThis as unknown as { document: { activeElement: Focusable | null } }).document.activeElement;
    while (element?.shadowRoot?.activeElement) element = element.shadowRoot.activeElement;
    if (!element) return "none";
    const label = element.getAttribute("aria-label") ?? element.textContent?.trim().slice(0, 40) ?? "";
    return `${element.tagName.toLowerCase()}${element.className ? `.${element.className}` : ""} ${label}`.trim();
  });
}

describe.skipIf(!browserSupport.available)("the widget's accessibility, in Chromium", () => {
  for (const [size, viewport] of [
    ["desktop", DESKTOP],
    ["phone", PHONE],
  ] as const) {
    for (const scheme of ["light", "dark"] as const) {
      it(`has no serious or critical axe violations on a ${size} in ${scheme} mode`, async () => {
        const context = await browser.newContext({ viewport, colorScheme: scheme });
        const page = await context.newPage();
        await page.goto(siteUrl);
        const where = `${size}, ${scheme}`;
        const launcher = page.locator("#chatbridge-widget .launcher");
        await launcher.waitFor();
        const found: string[] = [];
        const check = async (state: string) => {
          const findings = await audit(page);
          if (findings.length > 0) found.push(explain(findings, `${where}, ${state}`));
        };
        await check("closed");
        await launcher.click();
        await page.locator("#chatbridge-widget .privacy").waitFor();
        await check("privacy notice");
        await page.locator("#chatbridge-widget .consent").click();
        const greeting = page.locator("#chatbridge-widget .bubble.bot").first();
        await expect
          .poll(() => greeting.textContent(), { timeout: 10_000 })
          .toContain("Harbor & Pine Realty assistant");
        await check("greeting");
        await page.locator("#chatbridge-input").fill("3 bedroom homes for sale in Austin");
        await page.locator("#chatbridge-input").press("Enter");
        const answer = page.locator("#chatbridge-widget .bubble.bot").last();
        await expect.poll(() => answer.locator("a").count(), { timeout: 15_000 }).toBeGreaterThan(0);
        await check("answer with listing links");
        await page.screenshot({ path: path.join(SCREENSHOTS, `widget-a11y-${size}-${scheme}.png`) });
        await context.close();
        expect(found, found.join("\n")).toEqual([]);
      }, 60_000);
    }
  }

  it("is also accessible as chatbridge's own page at /, which has a language, a title and an icon", async () => {
    for (const scheme of ["light", "dark"] as const) {
      const context = await browser.newContext({ viewport: PHONE, colorScheme: scheme });
      const page = await context.newPage();
      await page.goto(`${running.url}/`);
      await page.locator("#chatbridge-widget .privacy").waitFor();
      expect(await page.locator("html").getAttribute("lang")).toBe("en");
      expect(await page.title()).not.toBe("");
      expect(await page.locator("link[rel=icon]").getAttribute("href")).toMatch(/^data:image\/svg\+xml,/);
      const findings = await audit(page);
      expect(findings, explain(findings, `/ on a phone, ${scheme}`)).toEqual([]);
      await context.close();
    }
  }, 30_000);

  it("is usable with the keyboard alone: launcher, panel, header controls and chips, Escape", async () => {
    const context = await browser.newContext({ viewport: DESKTOP });
    const page = await context.newPage();
    await page.goto(siteUrl);
    await page.locator("#chatbridge-widget .launcher").waitFor();
    // Tab from the top of the page: the page's own link, then the launcher.
    const reached: string[] = [];
    for (let press = 0; press < 5 && !reached.at(-1)?.startsWith("button.launcher"); press++) {
      await page.keyboard.press("Tab");
      reached.push(await focused(page));
    }
    expect(reached.at(-1), reached.join(" → ")).toMatch(/^button\.launcher Chat with /);
    // Enter opens the panel; the privacy notice must be answered first, so it has the focus.
    await page.keyboard.press("Enter");
    await page.locator("#chatbridge-widget .panel").waitFor();
    expect(await focused(page)).toBe("button.consent I agree");
    await page.keyboard.press("Enter");
    // Once the bridge recorded the consent, the input is enabled and has the focus.
    await expect.poll(() => focused(page)).toBe("input");
    const chip = page.locator("#chatbridge-widget .chips button").first();
    await chip.waitFor({ timeout: 10_000 });
    // Backwards from the input: the chips, then the header's controls, then the launcher.
    const back: string[] = [];
    for (let press = 0; press < 12 && !back.at(-1)?.startsWith("button.launcher"); press++) {
      await page.keyboard.press("Shift+Tab");
      back.push(await focused(page));
    }
    const order = back.join(" → ");
    expect(order).toContain("button 3 bedroom homes for sale in Austin");
    expect(order).toMatch(/button\.close Close chat → button\.reset New conversation → .*a\.social .* on Facebook/);
    expect(back.at(-1), order).toMatch(/^button\.launcher /);
    // A chip is pressed with the keyboard: its question is asked.
    for (let press = 0; press < 12 && !(await focused(page)).includes("3 bedroom homes"); press++) {
      await page.keyboard.press("Tab");
    }
    await page.keyboard.press("Enter");
    await expect
      .poll(() => page.locator("#chatbridge-widget .bubble.user").last().textContent())
      .toContain("3 bedroom homes for sale in Austin");
    // Escape closes the panel from wherever the focus is in it, and the focus goes back to the launcher.
    await page.locator("#chatbridge-input").focus();
    await page.keyboard.press("Escape");
    expect(await page.locator("#chatbridge-widget .panel").isHidden()).toBe(true);
    expect(await focused(page)).toMatch(/^button\.launcher /);
    expect(await page.locator("#chatbridge-widget .launcher").getAttribute("aria-expanded")).toBe("false");
    await context.close();
  }, 60_000);

  it("on a phone, takes the whole screen and keeps the keyboard out of the launcher it covers", async () => {
    const context = await browser.newContext({ viewport: PHONE });
    const page = await context.newPage();
    await page.goto(siteUrl);
    const launcher = page.locator("#chatbridge-widget .launcher");
    await launcher.focus();
    await page.keyboard.press("Enter");
    const panel = page.locator("#chatbridge-widget .panel");
    await panel.waitFor();
    expect(await panel.boundingBox()).toEqual({ x: 0, y: 0, width: PHONE.width, height: PHONE.height });
    expect(await launcher.isVisible()).toBe(false);
    // Backwards from the privacy notice's button to the page's own link, the focus stays on what can be seen.
    const back: string[] = [];
    for (let press = 0; press < 8 && back.at(-1) !== "a All listings"; press++) {
      await page.keyboard.press("Shift+Tab");
      back.push(await focused(page));
    }
    expect(back.at(-1)).toBe("a All listings");
    expect(back.join(" → ")).not.toContain("launcher");
    // Forwards again, the panel's first control; Escape there closes it.
    await page.keyboard.press("Tab");
    expect(await focused(page)).toMatch(/^a\.social /);
    await page.keyboard.press("Escape");
    expect(await focused(page)).toMatch(/^button\.launcher /);
    await context.close();
  }, 30_000);

  it("reads each answer out once, when it is complete, through its live region", async () => {
    const context = await browser.newContext({ viewport: DESKTOP });
    const page = await context.newPage();
    await page.goto(siteUrl);
    await page.locator("#chatbridge-widget .launcher").click();
    // Every text the live region is given, in order (a screen reader reads each change once).
    await page.evaluate(() => {
      type Region = { textContent: string | null };
      const window = globalThis as unknown as {
        document: { querySelector(selector: string): { shadowRoot: { querySelector(s: string): Region } } };
        MutationObserver: new (callback: () => void) => { observe(target: Region, options: object): void };
        announced: string[];
      };
      const region = window.document.querySelector("#chatbridge-widget").shadowRoot.querySelector(".announcer");
      window.announced = [];
      new window.MutationObserver(() => window.announced.push(region.textContent ?? "")).observe(region, {
        childList: true,
        characterData: true,
        subtree: true,
      });
    });
    await page.locator("#chatbridge-widget .consent").click();
    await page.locator("#chatbridge-input").fill("3 bedroom homes for sale in Austin");
    await page.locator("#chatbridge-input").press("Enter");
    const answer = page.locator("#chatbridge-widget .bubble.bot").nth(1);
    const announced = () => page.evaluate(() => (globalThis as unknown as { announced: string[] }).announced);
    await expect.poll(announced, { timeout: 15_000 }).toHaveLength(2);
    // A moment more: an answer still growing would be read out again.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const [greeting, listing] = await announced();
    expect(await announced()).toHaveLength(2);
    expect(greeting).toMatch(/^Harbor & Pine Realty: .*Harbor & Pine Realty assistant/s);
    expect(listing).toBe(`Harbor & Pine Realty: ${await answer.locator(".body").textContent()}`);
    expect(listing).toMatch(/I found \d+ matches? for .*Austin/);
    await context.close();
  }, 30_000);
});
