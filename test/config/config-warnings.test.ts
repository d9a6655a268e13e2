import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/config.js";
import { configWarnings } from "../../src/config/config-warnings.js";

const external = { CHATBOT_API_URL: "https://api.example.com/", CHATBOT_API_KEY: "sk", CHATBOT_SERIAL_NUMBER: "1" };

function warningsFor(env: Record<string, string>, bots?: unknown): string[] {
  const dir = mkdtempSync(path.join(tmpdir(), "warnings-"));
  if (bots) writeFileSync(path.join(dir, "bots.json"), JSON.stringify({ bots }));
  const config = loadConfig(bots ? { ...env, BRIDGE_CONFIG: "bots.json" } : env, { envFile: undefined, cwd: dir });
  return configWarnings(config).filter((line) => line.includes("CHATBOT_SESSION_KEY"));
}

describe("the start banner's warning about listing cards", () => {
  it("names CHATBOT_SESSION_KEY and what it enables when an external API has no session key", () => {
    const [warning, ...more] = warningsFor(external);
    expect(more).toEqual([]);
    expect(warning).toMatch(/^CHATBOT_SESSION_KEY is not set: listing cards/);
    expect(warning).toContain("Book a viewing");
    expect(warning).toContain("LISTING_CARDS_MAX=0");
  });

  it("stays quiet with a session key, with the embedded demo, or with the cards turned off", () => {
    expect(warningsFor({ ...external, CHATBOT_SESSION_KEY: "session" })).toEqual([]);
    expect(warningsFor({})).toEqual([]);
    expect(warningsFor({ ...external, LISTING_CARDS_MAX: "0" })).toEqual([]);
  });

  it("names the bots of BRIDGE_CONFIG that have no session key of their own or from the environment", () => {
    const bots = [
      { id: "homes", chatbot: { apiUrl: "https://other.example.com/", apiKey: "k", serialNumber: "2" } },
      {
        id: "keyed",
        chatbot: { apiUrl: "https://other.example.com/", sessionKey: "s", apiKey: "k", serialNumber: "3" },
      },
    ];
    const [warning, ...more] = warningsFor({}, bots);
    expect(more).toEqual([]);
    expect(warning).toMatch(/^CHATBOT_SESSION_KEY is not set \(bots: homes\)/);
  });
});
