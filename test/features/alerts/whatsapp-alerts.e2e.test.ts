import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ALERT_TEMPLATE, WhatsAppAlertsScene } from "../../adapters/whatsapp/whatsapp-alerts-scene.js";
import { shownText } from "../../emulators/whatsapp.js";
import { until } from "../../support/waiting.js";
import { listingItem } from "../../upstream/scripted-chatbot.js";

/** A user who writes again just before the alert: inside the 24-hour window. */
const INSIDE = "15550101001";
/** A user whose last message is 25 hours old when the alert comes: outside the window. */
const OUTSIDE = "15550101002";
const HOUR = 60 * 60 * 1000;
const TEMPLATE_ENV = { WHATSAPP_ALERT_TEMPLATE: ALERT_TEMPLATE.name };

let scene: WhatsAppAlertsScene;
let store: Record<string, string>;
/** How many messages each user had when the current test began. */
let before: Record<string, number>;

beforeAll(async () => {
  scene = await WhatsAppAlertsScene.open();
  scene.chatbot.listings = [listingItem("TX-9", { City: "Dallas", Price: "300000" })];
  store = {
    DATA_DIR: mkdtempSync(path.join(tmpdir(), "chatbridge-whatsapp-alerts-")),
    STORE_URL: "sqlite://bridge.db",
  };
  await scene.start(store, TEMPLATE_ENV);
});

afterAll(async () => {
  await scene?.close();
});

const mark = () => {
  before = { [INSIDE]: scene.sentTo(INSIDE).length, [OUTSIDE]: scene.sentTo(OUTSIDE).length };
};
const since = (waId: string) => scene.sentTo(waId).slice(before[waId]);
/** What the start-up banner says of WhatsApp. */
const whatsappStatus = () => scene.running?.channels.find((channel) => channel.name === "WhatsApp")?.detail;
/** Graph calls for `waId` since the test began that were not accepted (131047 would be a free-form attempt). */
const refusedTo = (waId: string) =>
  scene.whatsapp.calls.filter((call) => call.status !== 200 && (call.body as { to?: string } | undefined)?.to === waId);

describe("WhatsApp alerts and the 24-hour window (Cloud API emulator, scripted chatbot, SQLite store)", {
  timeout: 120_000,
}, () => {
  it("saves a search through /alert for two users", async () => {
    expect(whatsappStatus()).toContain(", alert template home_alert (en_US)");
    await scene.pollsPass(1);
    const saved = await Promise.all([scene.saveAustinSearch(INSIDE), scene.saveAustinSearch(OUTSIDE)]);
    expect(saved).toEqual(
      [INSIDE, OUTSIDE].map(
        () =>
          "Saved alert 1: 3+ bedrooms for sale in Austin up to $600,000. /alerts lists your alerts, /stop ends them.",
      ),
    );
  });

  it("inside the window sends the alert and its card; outside it exactly one template, never a free-form message", async () => {
    scene.clock += 25 * HOUR;
    // INSIDE writes again, which opens a new window; OUTSIDE last wrote 25 hours ago.
    const [list] = await scene.say(INSIDE, "/alerts");
    expect(list && shownText(list)).toContain("1. 3+ bedrooms for sale in Austin up to $600,000");
    mark();
    const calls = scene.whatsapp.calls.length;
    scene.chatbot.listings.push(listingItem("TX-2", { Price: "500000", Address: "3 Elm St" }));
    await scene.pollsPass();
    await until(() => (since(INSIDE).length >= 2 && since(OUTSIDE).length >= 1 ? true : undefined), 30_000);
    await scene.pollsPass(2);

    const [text, card] = since(INSIDE);
    expect(text?.text).toBe(
      "A home for your alerts:\n• New: $500,000 · 3 beds · 3 Elm St, Austin, TX 78701 https://homes.test/listing/tx-2\n\n" +
        "/alerts lists your alerts, /stop ends them.",
    );
    expect(card?.type).toBe("interactive");
    expect(card && shownText(card)).toContain("https://homes.test/listing/tx-2");
    expect(since(INSIDE)).toHaveLength(2);

    expect(since(OUTSIDE)).toEqual([
      expect.objectContaining({
        type: "template",
        template: {
          name: "home_alert",
          language: "en_US",
          parameters: [
            "A new home matches your alert",
            "$500,000 · 3 beds · 3 Elm St, Austin, TX 78701",
            "https://homes.test/listing/tx-2",
          ],
        },
      }),
    ]);
    // Not even tried free-form: the emulator refused nothing (131047) to OUTSIDE.
    expect(refusedTo(OUTSIDE).filter((call) => scene.whatsapp.calls.indexOf(call) >= calls)).toEqual([]);
    expect(await scene.alertsCounted()).toEqual({ sent: 1, template: 1 });
  });

  it("does not send the template again after a restart on the same store", async () => {
    mark();
    await scene.running?.close(1000);
    await scene.start(store, TEMPLATE_ENV);
    await scene.pollsPass(5);
    expect(since(OUTSIDE)).toEqual([]);
    expect(since(INSIDE)).toEqual([]);
    expect(await scene.alertsCounted()).toEqual({});
  });

  it("outside the window without a template sends nothing and counts the alert skipped", async () => {
    await scene.running?.close(1000);
    await scene.start(store);
    expect(whatsappStatus()).not.toContain("alert template");
    mark();
    const calls = scene.whatsapp.calls.length;
    // An hour after the last alert and outside the quiet hours; INSIDE's window (2 hours old) is still open.
    scene.clock += 2 * HOUR;
    scene.chatbot.listings.push(listingItem("TX-3", { Price: "550000", Address: "5 Pine St" }));
    await scene.pollsPass();
    await until(() => (since(INSIDE).length >= 2 ? true : undefined), 30_000);
    await scene.pollsPass(2);
    expect(since(INSIDE)[0]?.text).toContain("• New: $550,000 · 3 beds · 5 Pine St");
    expect(since(OUTSIDE)).toEqual([]);
    const toOutside = scene.whatsapp.calls
      .slice(calls)
      .filter((call) => (call.body as { to?: string } | undefined)?.to === OUTSIDE);
    expect(toOutside).toEqual([]);
    expect(await scene.alertsCounted()).toEqual({ sent: 1, skipped: 1 });
  });
});
