/**
 * The web widget: its script's size (raw and gzipped, goal ≤ 35 KB gzipped) and its time to interactive on a local
 * page in Chromium — from navigation to the launcher on screen, and to the panel open and the input usable after a
 * click — over 20 fresh visitors (an empty profile each, so nothing is cached).
 * Run: npx tsx bench/widget.ts   (not a test; needs Debian's chromium)
 */
import { mkdtempSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { buildWidget } from "../adapters/web/build-widget.js";
import { startBridge } from "../src/app/bridge-app.js";
import { createLogger } from "../src/common/log.js";
import { loadConfig } from "../src/config/config.js";
import { launchChromium } from "../test/support/chromium.js";
import { freePort } from "../test/support/waiting.js";

const VISITORS = 20;
const GOAL_GZIP_BYTES = 35 * 1024;

const size = await buildWidget();
const config = loadConfig(
  {
    PORT: String(await freePort()),
    DATA_DIR: mkdtempSync(path.join(tmpdir(), "chatbridge-bench-")),
    STORE_URL: "memory://",
  },
  { envFile: undefined },
);
const running = await startBridge(config, createLogger("silent"), { host: "127.0.0.1" });
const serial = running.embedded?.demo.chatbot.serialNumber ?? "";
const site = createServer((_req, res) => {
  res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
  res.end(`<!doctype html><title>Agency</title><h1>Homes</h1>
<script src="${running.url}/widget.js" data-chatbot="${serial}" async></script>`);
});
await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
const siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}/`;
const browser = await launchChromium();

const shown: number[] = [];
const usable: number[] = [];
for (let visitor = 0; visitor < VISITORS; visitor++) {
  const context = await browser.newContext();
  const page = await context.newPage();
  const started = performance.now();
  await page.goto(siteUrl);
  const launcher = page.locator("#chatbridge-widget .launcher");
  await launcher.waitFor();
  shown.push(performance.now() - started);
  const clicked = performance.now();
  await launcher.click();
  await page.locator("#chatbridge-input:enabled").waitFor();
  usable.push(performance.now() - clicked);
  await context.close();
}
await browser.close();
site.close();
await running.close(1000);

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;
const p95 = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length * 0.95)] ?? Number.NaN;
console.log(
  `widget.js: ${size.bytes} bytes, ${size.gzipBytes} bytes gzipped (${((100 * size.gzipBytes) / GOAL_GZIP_BYTES).toFixed(0)}% of the 35 KB goal)`,
);
console.log(
  `navigation → launcher shown: median ${median(shown).toFixed(0)} ms, p95 ${p95(shown).toFixed(0)} ms (${VISITORS} fresh visitors)`,
);
console.log(
  `click → panel open, input usable: median ${median(usable).toFixed(0)} ms, p95 ${p95(usable).toFixed(0)} ms`,
);
console.log(size.gzipBytes <= GOAL_GZIP_BYTES ? "PASS: within the size goal" : "FAIL: over the size goal");
if (size.gzipBytes > GOAL_GZIP_BYTES) process.exitCode = 1;
