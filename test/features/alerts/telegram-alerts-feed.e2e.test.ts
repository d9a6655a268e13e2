import { randomBytes } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ListingInput } from "../../../src/api/types.js";
import type { RunningBridge } from "../../../src/app/bridge-app.js";
import { ChatbotClient } from "../../../src/client/index.js";
import { createLogger, type Logger } from "../../../src/common/log.js";
import { AlertsScene } from "../../adapters/telegram/alerts-scene.js";
import { type OtherInstance, sampleListing, startOtherInstance, useApiHarness } from "../../support/api-harness.js";
import { postgresForTests } from "../../support/postgres.js";
import { redisForTests } from "../../support/redis.js";
import { until } from "../../support/waiting.js";

const redis = await redisForTests();
const postgres = await postgresForTests();
const HOUR = 60 * 60 * 1000;
/** A poll an hour apart: only the change feed can explain an alert within seconds. */
const FEED_ONLY = { ALERTS_POLL_MINUTES: "60", ALERTS_QUIET_HOURS: "off" };
const FOLLOWING = "following the listing change feed";

/** A logger whose JSON lines the test reads. */
function capturedLog(): { log: Logger; lines: string[] } {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { log: createLogger("info", { destination }), lines };
}

/** A house for sale in Austin that the saved search (3+ bedrooms, up to $600,000) matches. */
function austinHome(serialNumber: string, street: string): ListingInput {
  const tag = street.toLowerCase().replace(/\W+/g, "-");
  return sampleListing(serialNumber, {
    City: "Austin",
    State: "TX",
    ZIP: "78701",
    Address: street,
    SalePrice: 500_000,
    Bedrooms: 3,
    Url: `https://homes.test/listing/${tag}`,
    Images: [`https://images.homes.test/${tag}.jpg`],
  });
}

/**
 * Waits for `count` messages in `chat` after the first `from`; returns them with the time from `since` to the first
 * of them, in ms (the card comes after it, paced by the chat's budget).
 */
async function alertAfter(scene: AlertsScene, chat: number, from: number, count: number, since: number) {
  await until(() => (scene.messages(chat).length > from ? true : undefined), 20_000);
  const ms = Math.round(performance.now() - since);
  await until(() => (scene.messages(chat).length >= from + count ? true : undefined), 20_000);
  return { messages: scene.messages(chat).slice(from), ms };
}

describe("Telegram alerts from the embedded server's change feed (SQLite)", { timeout: 40_000 }, () => {
  const CHAT = 78_001;
  let scene: AlertsScene;
  let running: RunningBridge | undefined;
  const { log, lines } = capturedLog();

  beforeAll(async () => {
    scene = await AlertsScene.open();
    const store = {
      DATA_DIR: mkdtempSync(path.join(tmpdir(), "chatbridge-alerts-feed-")),
      STORE_URL: "sqlite://bridge.db",
    };
    // No CHATBOT_API_URL: the bridge serves the self-hosted API itself, its demo created with the scene's keys.
    running = await scene.start(store, { log, env: { ...FEED_ONLY, CHATBOT_API_URL: undefined } });
  });

  afterAll(async () => {
    await running?.close(1000);
    await scene?.close();
  });

  it("sends the alert of a listing created through RealEstateCreate within seconds, the next poll an hour away", async () => {
    await until(() => (lines.some((line) => line.includes(FOLLOWING)) ? true : undefined), 20_000);
    expect(await scene.saveAustinSearch(CHAT)).toContain("Saved alert 1");
    const from = scene.messages(CHAT).length;
    const client = new ChatbotClient({
      baseUrl: running?.url ?? "",
      apiKey: "sk-test",
      sessionKey: "session-key-test",
    });
    try {
      const createdAt = performance.now();
      await client.createListing(austinHome("homes-chatbot", "7 Feed St"));
      const { messages, ms } = await alertAfter(scene, CHAT, from, 2, createdAt);
      console.info(`embedded server (SQLite): RealEstateCreate → alert on Telegram in ${ms} ms`);
      expect(messages.map((message) => message.photo ?? message.text?.split("\n")[1])).toEqual([
        "• New: $500,000 · 3 beds · 7 Feed St, Austin, TX 78701 https://homes.test/listing/7-feed-st",
        "https://images.homes.test/7-feed-st.jpg",
      ]);
    } finally {
      await client.close();
    }
  });
});

/**
 * Two bridges on one Redis in front of one self-hosted server: the holder of the background lease follows the feed;
 * each alert is sent once, also after it stops and the other takes over, following the feed in turn.
 */
describe.skipIf(!redis.available)(
  "Telegram alerts from the change feed, two bridges on Redis",
  { timeout: 60_000 },
  () => {
    const CHAT = 78_101;
    const api = useApiHarness("sqlite");
    let scene: AlertsScene;
    const bridges: { running: RunningBridge; lines: string[] }[] = [];

    beforeAll(async () => {
      scene = await AlertsScene.open();
      const store = {
        STORE_URL: redis.available ? redis.url : "",
        STORE_NAMESPACE: `alerts-feed-${randomBytes(4).toString("hex")}`,
      };
      const env = {
        ...FEED_ONLY,
        CHATBOT_API_URL: api.url,
        CHATBOT_API_KEY: api.a.secretKey,
        CHATBOT_SESSION_KEY: api.a.sessionKey,
        CHATBOT_SERIAL_NUMBER: api.a.serialNumber,
      };
      for (const _instance of [1, 2]) {
        const { log, lines } = capturedLog();
        const dataDir = mkdtempSync(path.join(tmpdir(), "chatbridge-alerts-feed-redis-"));
        bridges.push({ running: await scene.start({ ...store, DATA_DIR: dataDir }, { log, env }), lines });
      }
    });

    afterAll(async () => {
      await Promise.all(bridges.map((bridge) => bridge.running.close(1000)));
      await scene?.close();
    });

    const following = (bridge: { lines: string[] } | undefined) =>
      bridge?.lines.some((line) => line.includes(FOLLOWING)) ? true : undefined;

    it("sends each alert once, from whichever bridge follows the feed", async () => {
      await until(() => following(bridges[0]), 20_000);
      expect(following(bridges[1])).toBeUndefined();
      expect(await scene.saveAustinSearch(CHAT)).toContain("Saved alert 1");
      const from = scene.messages(CHAT).length;
      const client = api.client(api.a);
      const firstAt = performance.now();
      await client.createListing(austinHome(api.a.serialNumber, "2 Elm St"));
      const first = await alertAfter(scene, CHAT, from, 2, firstAt);
      // The first one started holds the background lease: stopped, it lets the lease go and the second follows.
      await bridges.shift()?.running.close(1000);
      await until(() => following(bridges[0]), 20_000);
      scene.clock += 2 * HOUR;
      const secondAt = performance.now();
      await client.createListing(austinHome(api.a.serialNumber, "3 Oak St"));
      const second = await alertAfter(scene, CHAT, from + 2, 2, secondAt);
      console.info(
        `two bridges on Redis: RealEstateCreate → alert on Telegram in ${first.ms} ms, then ${second.ms} ms`,
      );
      expect(
        scene
          .messages(CHAT)
          .slice(from)
          .map((message) => message.photo ?? message.text),
      ).toEqual([
        "A home for your alerts:\n• New: $500,000 · 3 beds · 2 Elm St, Austin, TX 78701 https://homes.test/listing/2-elm-st\n\n" +
          "/alerts lists your alerts, /stop ends them.",
        "https://images.homes.test/2-elm-st.jpg",
        "A home for your alerts:\n• New: $500,000 · 3 beds · 3 Oak St, Austin, TX 78701 https://homes.test/listing/3-oak-st\n\n" +
          "/alerts lists your alerts, /stop ends them.",
        "https://images.homes.test/3-oak-st.jpg",
      ]);
    });
  },
);

/**
 * Two instances of the self-hosted server on one PostgreSQL database: the bridge follows the feed of instance B, and
 * a listing created through instance A reaches it (NOTIFY on A's commit, LISTEN on B).
 */
describe.skipIf(!postgres.available)(
  "Telegram alerts from a change made through another server instance",
  {
    timeout: 40_000,
  },
  () => {
    const CHAT = 78_201;
    const api = useApiHarness("postgres");
    let other: OtherInstance | undefined;
    let scene: AlertsScene;
    let running: RunningBridge | undefined;
    const { log, lines } = capturedLog();

    beforeAll(async () => {
      other = await startOtherInstance(api);
      scene = await AlertsScene.open();
      const store = {
        DATA_DIR: mkdtempSync(path.join(tmpdir(), "chatbridge-alerts-feed-pg-")),
        STORE_URL: "memory://",
      };
      running = await scene.start(store, {
        log,
        env: {
          ...FEED_ONLY,
          CHATBOT_API_URL: other.url,
          CHATBOT_API_KEY: api.a.secretKey,
          CHATBOT_SESSION_KEY: api.a.sessionKey,
          CHATBOT_SERIAL_NUMBER: api.a.serialNumber,
        },
      });
    });

    afterAll(async () => {
      await running?.close(1000);
      await other?.close();
      await scene?.close();
    });

    it("sends the alert of a listing created through the other instance", async () => {
      await until(() => (lines.some((line) => line.includes(FOLLOWING)) ? true : undefined), 20_000);
      expect(await scene.saveAustinSearch(CHAT)).toContain("Saved alert 1");
      const from = scene.messages(CHAT).length;
      const createdAt = performance.now();
      await api.client(api.a).createListing(austinHome(api.a.serialNumber, "9 Notify Ln"));
      const { messages, ms } = await alertAfter(scene, CHAT, from, 2, createdAt);
      console.info(`PostgreSQL, change through instance A, bridge on instance B: alert on Telegram in ${ms} ms`);
      expect(messages.map((message) => message.photo ?? message.text?.split("\n")[1])).toEqual([
        "• New: $500,000 · 3 beds · 9 Notify Ln, Austin, TX 78701 https://homes.test/listing/9-notify-ln",
        "https://images.homes.test/9-notify-ln.jpg",
      ]);
    });
  },
);
