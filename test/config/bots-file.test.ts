// biome-ignore-all lint/suspicious/noTemplateCurlyInString: BRIDGE_CONFIG files hold literal ${NAME} placeholders
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { resolveChatbots } from "../../src/app/chatbot-links.js";
import { loadBotsFile } from "../../src/config/bots-file.js";
import { ConfigError, loadConfig } from "../../src/config/config.js";
import type { EmbeddedApi } from "../../src/server/embedded-api.js";

const TOKEN = "111111:AAAAAAAAAAAAAAAAAAAAAAAAAAAA";
const OTHER_TOKEN = "222222:BBBBBBBBBBBBBBBBBBBBBBBBBBBB";

function file(name: string, content: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), "bots-"));
  const where = path.join(dir, name);
  writeFileSync(where, content);
  return where;
}

function problemsOf(run: () => unknown): string[] {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).problems;
  }
  throw new Error("expected a ConfigError");
}

describe("BRIDGE_CONFIG", () => {
  it("reads bots from YAML, replacing ${NAME} with the environment's value", () => {
    const where = file(
      "bots.yaml",
      [
        "bots:",
        "  - id: sales",
        "    chatbot: { serialNumber: sn-sales, apiKey: '${SALES_KEY}' }",
        "    welcomeText: Welcome to sales",
        "    telegram:",
        "      botToken: ${SALES_TG}",
        "      webhookSecret: s3cret",
        "    slack: { botToken: xoxb-1-sales, signingSecret: '${SALES_SIGNING}', apiUrl: 'http://127.0.0.1:9/api' }",
        "  - id: rentals",
        `    telegram: { botToken: '${OTHER_TOKEN}', mode: polling }`,
      ].join("\n"),
    );
    const bots = loadBotsFile(where, { SALES_KEY: "sk-sales", SALES_TG: TOKEN, SALES_SIGNING: "sign-me" });
    expect(bots).toEqual([
      {
        id: "sales",
        chatbot: { apiUrl: undefined, apiKey: "sk-sales", sessionKey: undefined, serialNumber: "sn-sales" },
        welcomeText: "Welcome to sales",
        channels: {
          telegram: { botToken: TOKEN, webhookSecret: "s3cret", apiRoot: undefined, mode: undefined },
          slack: {
            botToken: "xoxb-1-sales",
            signingSecret: "sign-me",
            appToken: undefined,
            apiUrl: "http://127.0.0.1:9/api/",
          },
        },
      },
      {
        id: "rentals",
        chatbot: { apiUrl: undefined, apiKey: undefined, sessionKey: undefined, serialNumber: undefined },
        welcomeText: undefined,
        channels: {
          telegram: { botToken: OTHER_TOKEN, webhookSecret: undefined, apiRoot: undefined, mode: "polling" },
        },
      },
    ]);
  });

  it("reads JSON through loadConfig, relative to the working directory", () => {
    const where = file(
      "bots.json",
      JSON.stringify({ bots: [{ id: "b2", chatbot: { apiUrl: "https://api.example.com/" } }] }),
    );
    const config = loadConfig(
      { BRIDGE_CONFIG: path.basename(where) },
      { envFile: undefined, cwd: path.dirname(where) },
    );
    expect(config.bots.map((bot) => [bot.id, bot.chatbot.apiUrl])).toEqual([["b2", "https://api.example.com"]]);
  });

  it("names the field, the file and the fix, never the token", () => {
    const where = file(
      "bots.json",
      JSON.stringify({
        bots: [{ id: "ok" }, { id: "Bad Id", telegram: { botToken: "not-a-token-secret-xyz" }, colour: 1 }],
      }),
    );
    const problems = problemsOf(() => loadBotsFile(where, {}));
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^BRIDGE_CONFIG .*bots\.json: bots\[1\]\.id must be 1-63 of a-z/),
        expect.stringMatching(/bots\[1\]\.telegram\.botToken must look like 123456789:AA/),
        expect.stringMatching(/bots\[1\].*colour/),
      ]),
    );
    expect(problems.join("\n")).not.toContain("not-a-token-secret-xyz");
  });

  it("refuses a missing ${NAME}, a repeated id, a shared token and the id `default`", () => {
    const missing = file("a.yaml", "bots:\n  - id: a\n    telegram: { botToken: '${NOPE}' }\n");
    expect(problemsOf(() => loadBotsFile(missing, {}))).toEqual([
      expect.stringContaining("uses ${NOPE}, which is not set: set NOPE in the environment"),
    ]);
    const twice = file(
      "b.json",
      JSON.stringify({
        bots: [
          { id: "a", telegram: { botToken: TOKEN } },
          { id: "a", telegram: { botToken: TOKEN } },
        ],
      }),
    );
    const problems = problemsOf(() => loadBotsFile(twice, {}));
    expect(problems).toHaveLength(2);
    expect(problems[0]).toContain('bot id "a" is used twice');
    expect(problems[1]).toContain("share one Telegram bot token");
    const reserved = file("c.json", JSON.stringify({ bots: [{ id: "default" }] }));
    expect(problemsOf(() => loadBotsFile(reserved, {}))[0]).toContain(
      "`default` is the bot the environment variables describe",
    );
  });

  it("reads WhatsApp numbers and refuses one number in two entries", () => {
    const number = { accessToken: "EAAG-x", phoneNumberId: "200000000000002", appSecret: "s", verifyToken: "v" };
    const one = file("w1.json", JSON.stringify({ bots: [{ id: "rentals", whatsapp: number }] }));
    expect(loadBotsFile(one, {})[0]?.channels.whatsapp).toEqual({ ...number, apiUrl: undefined });
    const twice = file(
      "w2.json",
      JSON.stringify({
        bots: [
          { id: "a", whatsapp: number },
          { id: "b", whatsapp: number },
        ],
      }),
    );
    expect(problemsOf(() => loadBotsFile(twice, {}))).toEqual([
      expect.stringContaining("WhatsApp phone number id 200000000000002 is used twice"),
    ]);
  });

  it("says so when the file cannot be read or parsed", () => {
    expect(problemsOf(() => loadBotsFile("/nonexistent/bots.yaml", {}))[0]).toMatch(
      /^BRIDGE_CONFIG="\/nonexistent\/bots\.yaml" cannot be read \(ENOENT/,
    );
    const broken = file("d.json", "{ bots: ");
    expect(problemsOf(() => loadBotsFile(broken, {}))[0]).toMatch(/cannot be read \(.*JSON/);
  });
});

describe("resolveChatbots", () => {
  it("lets named bots fall back to the CHATBOT_* variables and share one client when they match", async () => {
    const where = file(
      "bots.json",
      JSON.stringify({ bots: [{ id: "two" }, { id: "three", chatbot: { apiKey: "sk-3", serialNumber: "sn-3" } }] }),
    );
    const config = loadConfig(
      {
        CHATBOT_API_URL: "https://api.example.com",
        CHATBOT_API_KEY: "sk-env",
        CHATBOT_SERIAL_NUMBER: "sn-env",
        BRIDGE_CONFIG: where,
      },
      { envFile: undefined },
    );
    const resolved = resolveChatbots(config, undefined);
    expect(resolved.links.map((link) => [link.botId, link.serialNumber])).toEqual([
      ["default", "sn-env"],
      ["two", "sn-env"],
      ["three", "sn-3"],
    ]);
    expect(resolved.links[1]?.client).toBe(resolved.links[0]?.client);
    expect(resolved.links[2]?.client).not.toBe(resolved.links[0]?.client);
    await resolved.close();
  });

  it("refuses a bot on an external API without its key or chatbot, naming the bot", () => {
    const where = file(
      "bots.json",
      JSON.stringify({ bots: [{ id: "ext", chatbot: { apiUrl: "https://api.example.com" } }] }),
    );
    const config = loadConfig({ BRIDGE_CONFIG: where }, { envFile: undefined });
    // The default bot talks to the embedded server; the named one to an API whose keys nobody gave.
    const embedded = {
      demo: { workspace: { secretKey: "sk-demo", sessionKey: "sess-demo" }, chatbot: { serialNumber: "sn-demo" } },
    } as unknown as EmbeddedApi;
    expect(problemsOf(() => resolveChatbots(config, embedded))).toEqual([
      'CHATBOT_API_KEY is not set for bot "ext" in BRIDGE_CONFIG: with an external chatbot API, set the workspace\'s secret key.',
      'CHATBOT_SERIAL_NUMBER is not set for bot "ext" in BRIDGE_CONFIG: with an external chatbot API, set the chatbot\'s id.',
    ]);
  });
});
