import { randomBytes } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningBridge } from "../../../src/app/bridge-app.js";
import { AlertsScene } from "../../adapters/telegram/alerts-scene.js";
import { redisForTests } from "../../support/redis.js";
import { listingItem } from "../../upstream/scripted-chatbot.js";

const redis = await redisForTests();
const CHAT = 77_101;

/**
 * Two bridges on one Redis: whichever holds the background lease polls, each listing event is queued and sent once,
 * and when that one stops the other takes over from the same snapshot, sending nothing twice.
 */
describe.skipIf(!redis.available)("Telegram alerts, two instances on Redis", { timeout: 40_000 }, () => {
  let scene: AlertsScene;
  const bridges: RunningBridge[] = [];

  beforeAll(async () => {
    scene = await AlertsScene.open();
    scene.chatbot.listings = [listingItem("TX-1")];
    const store = {
      STORE_URL: redis.available ? redis.url : "",
      STORE_NAMESPACE: `alerts-${randomBytes(4).toString("hex")}`,
    };
    for (const _instance of [1, 2]) {
      bridges.push(
        await scene.start({ ...store, DATA_DIR: mkdtempSync(path.join(tmpdir(), "chatbridge-alerts-redis-")) }),
      );
    }
  });

  afterAll(async () => {
    await Promise.all(bridges.map((bridge) => bridge.close(1000)));
    await scene?.close();
  });

  it("sends each alert once, also after the polling instance stops", async () => {
    expect(await scene.saveAustinSearch(CHAT)).toContain("Saved alert 1");
    const from = scene.messages(CHAT).length;
    scene.chatbot.listings.push(listingItem("TX-2", { Address: "2 Elm St" }));
    const first = await scene.messagesAfter(CHAT, from, 2);
    await scene.pollsPass();
    expect(scene.messages(CHAT).slice(from)).toEqual(first);
    expect(first.map((message) => message.photo ?? message.text?.split("\n")[1])).toEqual([
      "• New: $450,000 · 3 beds · 2 Elm St, Austin, TX 78701 https://homes.test/listing/tx-2",
      "https://images.homes.test/tx-2-1.jpg",
    ]);
    // The first one started holds the background lease: stopped, it lets the lease go and the second polls on.
    await bridges.shift()?.close(1000);
    await scene.pollsPass();
    scene.clock += 2 * 60 * 60 * 1000;
    scene.chatbot.listings.push(listingItem("TX-3", { Address: "3 Oak St" }));
    const second = await scene.messagesAfter(CHAT, from + 2, 2);
    expect(second).toHaveLength(2);
    expect(second[0]?.text).toContain("• New: $450,000 · 3 beds · 3 Oak St");
  });
});
