import { existsSync } from "node:fs";
import { type Browser, chromium } from "playwright-core";

/** Debian's Chromium, which `.ci/run` installs (`apt-get install chromium`); CHROMIUM_PATH overrides it. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

/** Whether the browser tests can run, and why not when they cannot. */
export type ChromiumAvailability = { available: true } | { available: false; reason: string };

/**
 * Whether Chromium is installed. When it is not, the browser suites skip with the reason printed — unless
 * CHATBRIDGE_REQUIRE_SERVICES=1 (set by CI), where a skipped suite would hide a broken setup: this throws.
 */
export function chromiumForTests(): ChromiumAvailability {
  if (existsSync(CHROMIUM_PATH)) return { available: true };
  const reason = `no Chromium at ${CHROMIUM_PATH} (apt-get install chromium, or set CHROMIUM_PATH)`;
  if (process.env.CHATBRIDGE_REQUIRE_SERVICES === "1") {
    throw new Error(`${reason}; CHATBRIDGE_REQUIRE_SERVICES=1 requires it`);
  }
  console.warn(`skipping the browser tests: ${reason}`);
  return { available: false, reason };
}

/**
 * Headless Chromium as this machine runs it: no sandbox (tests run as root), no GPU, and none of the background
 * connections to Google's hosts that a closed network refuses; `extraArgs` add switches (a fake microphone).
 */
export function launchChromium(extraArgs: string[] = []): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      ...extraArgs,
    ],
  });
}
