// biome-ignore-all lint/suspicious/noTemplateCurlyInString: BRIDGE_CONFIG files hold literal ${NAME} placeholders
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHANNEL_PLUGINS } from "../../adapters/index.js";
import { type RunningBridge, startBridge } from "../../src/app/bridge-app.js";
import { createLogger } from "../../src/common/log.js";
import { ConfigError, loadConfig } from "../../src/config/config.js";
import { freePort, until } from "../support/waiting.js";
import { lofts, pigeonPlugin } from "./index.js";

// This folder is the whole channel: the plugin, its outbound side and this test. Nothing else in the repository
// names it; the configuration, BRIDGE_CONFIG and the start of the bridge take it from the list of plugins.
const plugins = [...CHANNEL_PLUGINS, pigeonPlugin];
const TOKEN = "coo-defaultloft1";
const COOP_TOKEN = "coo-coopsloft22";

let dir: string;
let running: RunningBridge;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "chatbridge-pigeon-"));
  writeFileSync(
    path.join(dir, "bots.yaml"),
    ["bots:", "  - id: coop", "    pigeon: { token: '${COOP_TOKEN}' }"].join("\n"),
  );
  const config = loadConfig(
    {
      PORT: String(await freePort()),
      DATA_DIR: path.join(dir, "data"),
      STORE_URL: "memory://",
      PIGEON_TOKEN: TOKEN,
      BRIDGE_CONFIG: "bots.yaml",
      COOP_TOKEN,
    },
    { envFile: undefined, cwd: dir, plugins },
  );
  running = await startBridge(config, createLogger("silent"), { host: "127.0.0.1" });
});
afterAll(() => running?.close(1000));

const post = (route: string, token: string | undefined, body: unknown) =>
  fetch(`${running.url}${route}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(token ? { "x-pigeon-token": token } : {}) },
    body: JSON.stringify(body),
  });

/** The messages of one chat once the answer stopped changing. */
async function settled(botId: string, chatId: string, count: number): Promise<string[]> {
  const loft = await until(() => lofts.get(botId));
  const texts = () => loft.messages.filter((message) => message.chatId === chatId).map((message) => message.text);
  let last = "";
  let stableSince = Date.now();
  await until(() => {
    const now = JSON.stringify(texts());
    if (now !== last) [last, stableSince] = [now, Date.now()];
    return texts().length >= count && Date.now() - stableSince > 400 ? true : undefined;
  }, 15_000);
  return texts();
}

describe("a channel added as one plugin folder", () => {
  it("reads its variable and its BRIDGE_CONFIG entry like the shipped channels, naming the fix", () => {
    const refused = (env: Record<string, string>) => {
      try {
        loadConfig({ DATA_DIR: dir, ...env }, { envFile: undefined, cwd: dir, plugins });
      } catch (error) {
        expect(error).toBeInstanceOf(ConfigError);
        return (error as ConfigError).problems;
      }
      throw new Error("expected a ConfigError");
    };
    expect(refused({ PIGEON_TOKEN: "pigeon" })).toEqual([
      'PIGEON_TOKEN="****" (6 characters, masked) is invalid (must look like coo-… (8 or more letters and digits)): set PIGEON_TOKEN to the loft\'s token, coo-…, or leave it unset to disable pigeons.',
    ]);
    writeFileSync(path.join(dir, "bad.json"), JSON.stringify({ bots: [{ id: "a", pigeon: { token: "nope" } }] }));
    expect(refused({ BRIDGE_CONFIG: "bad.json" })).toEqual([
      "BRIDGE_CONFIG bad.json: bots[0].pigeon.token must look like coo-… (8 or more letters and digits).",
    ]);
    // Without the plugin, the same entry is a key nobody reads.
    writeFileSync(path.join(dir, "coop.json"), JSON.stringify({ bots: [{ id: "a", pigeon: { token: COOP_TOKEN } }] }));
    expect(() => loadConfig({ BRIDGE_CONFIG: "coop.json" }, { envFile: undefined, cwd: dir })).toThrow(
      /Unrecognized key: "pigeon"/,
    );
  });

  it("starts with a banner line per bot, after the shipped channels", () => {
    expect(running.channels.map((channel) => channel.name).slice(-2)).toEqual(["Pigeon", "Pigeon (coop)"]);
    expect(running.channels.at(-1)).toEqual({
      name: "Pigeon (coop)",
      enabled: true,
      detail: "webhook /webhooks/pigeon/coop",
    });
  });

  it("answers a message end to end through the chatbot, per bot, and refuses a wrong token unprocessed", async () => {
    expect((await post("/webhooks/pigeon", "coo-wrongtoken", { id: "e0", from: "alice", text: "hi" })).status).toBe(
      401,
    );
    expect((await post("/webhooks/pigeon", undefined, { id: "e0", from: "alice", text: "hi" })).status).toBe(401);

    const first = await post("/webhooks/pigeon", TOKEN, { id: "e1", from: "alice", text: "homes for sale in Austin" });
    expect(await first.json()).toEqual({ status: "accepted" });
    const again = await post("/webhooks/pigeon", TOKEN, { id: "e1", from: "alice", text: "homes for sale in Austin" });
    expect(await again.json()).toEqual({ status: "duplicate" });
    // On first contact the embedded chatbot's greeting opens the message its answer then grows in, by edits.
    const [answer] = await settled("default", "alice", 1);
    expect(answer).toMatch(/^Hi! I'm the Harbor & Pine Realty assistant\./);
    expect(answer).toMatch(/I found \d+ matches for homes for sale in Austin:/);
    expect(lofts.get("default")?.messages.filter((message) => message.chatId === "alice")).toHaveLength(1);

    // The named bot: its own webhook, token and outbound side.
    expect((await post("/webhooks/pigeon/coop", TOKEN, { id: "c0", from: "bob", text: "hi" })).status).toBe(401);
    await post("/webhooks/pigeon/coop", COOP_TOKEN, { id: "c1", from: "bob", text: "homes for sale in Denver" });
    const coop = await settled("coop", "bob", 1);
    expect(coop).toEqual([expect.stringMatching(/I found \d+ matches for homes for sale in Denver:/)]);
    expect(lofts.get("default")?.messages.some((message) => message.chatId === "bob")).toBe(false);
  });
});
