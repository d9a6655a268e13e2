import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { DEFAULT_WEB_CHAT_LIMITS } from "../../adapters/web/limit-settings.js";
import { CONFIG_VARIABLES, ConfigError, loadConfig } from "../../src/config/config.js";

const noFile = { envFile: undefined, cwd: "/srv/app" };

function problems(env: NodeJS.ProcessEnv): string[] {
  try {
    loadConfig(env, noFile);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).problems;
  }
  throw new Error("expected a ConfigError");
}

describe("loadConfig", () => {
  it("applies the documented defaults", () => {
    const config = loadConfig({}, noFile);
    expect(config).toEqual({
      port: 3000,
      shutdownGraceMs: 10_000,
      dataDir: "/srv/app/data",
      logLevel: "info",
      chatbotApi: {
        url: undefined,
        apiKey: undefined,
        sessionKey: undefined,
        serialNumber: undefined,
        timeoutMs: 120_000,
        uploadConfirmPath: "/chat/User/UploadSuccess",
      },
      databaseUrl: undefined,
      bridge: {
        storeUrl: undefined,
        storeNamespace: "chatbridge",
        publicUrl: undefined,
        groupSessionScope: "thread",
        sessionIdleMs: 86_400_000,
        resetKeyword: undefined,
        queueMode: "queue",
        answerTimeoutMs: 60_000,
        work: { concurrency: 1000, leaseMs: 15_000 },
        apologyText: "Sorry, I couldn't finish that answer. Please try again in a moment.",
        welcomeText: "Hi! How can I help you today?",
        listingCardsMax: 3,
        alerts: { pollMs: 900_000, quietHours: { from: 21, to: 8 } },
        media: {
          maxAudioSeconds: 600,
          groupWindowMs: 1500,
          unsupportedText:
            "Sorry, I can't read that kind of message. I understand text, photos (JPEG, PNG, WEBP, HEIC, still GIF), " +
            "voice notes and audio (OGG, MP3, FLAC, WAV) and videos (MP4, MKV, AVI, FLV, MPEG).",
          tooLargeText: "Sorry, that file is too large for me: I can take files of up to {limit}.",
          tooLongText: "Sorry, that recording is too long for me: I can listen to up to {limit}.",
        },
        handoff: {
          email: undefined,
          message: "Thanks! I've passed our conversation to the team: a person will reply here soon.",
          timeoutMs: 86_400_000,
          keywords: expect.arrayContaining(["talk to a human", "agent", "hablar con una persona"]),
          offerAfterNoAnswers: 1,
        },
      },
      channels: expect.any(Array),
      mail: { smtpUrl: undefined, from: undefined },
      adminToken: undefined,
      bots: [],
      llm: { baseUrl: undefined, apiKey: undefined, model: undefined, transcribeModel: undefined },
    });
  });

  it("gives each channel plugin the bot default from its variables, in the order of the banner", () => {
    const channels = loadConfig({}, noFile).channels.map(({ plugin, bots }) => [plugin.name, bots]);
    expect(channels).toEqual([
      ["web", [{ botId: "default", settings: { limits: DEFAULT_WEB_CHAT_LIMITS } }]],
      [
        "telegram",
        [
          {
            botId: "default",
            settings: {
              botToken: undefined,
              webhookSecret: undefined,
              apiRoot: "https://api.telegram.org",
              mode: "webhook",
              draftRates: { chat: 2, bot: 300 },
              webhookConnections: 100,
            },
          },
        ],
      ],
      [
        "slack",
        [
          {
            botId: "default",
            settings: {
              botToken: undefined,
              signingSecret: undefined,
              appToken: undefined,
              apiUrl: "https://slack.com/api/",
            },
          },
        ],
      ],
      [
        "whatsapp",
        [
          {
            botId: "default",
            settings: {
              accessToken: undefined,
              phoneNumberId: undefined,
              appSecret: undefined,
              verifyToken: undefined,
              apiUrl: "https://graph.facebook.com",
              apiVersion: "v26.0",
              streaming: "blocks",
              blockMinChars: 300,
              alertTemplate: undefined,
              alertTemplateLanguage: "en_US",
            },
          },
        ],
      ],
    ]);
  });

  it("completes each named bot's channel settings from the bot default's, and names a bad one", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "chatbridge-config-bots-"));
    const token = "123456789:AAbbccddeeffgghhiijjkkll";
    const number = { accessToken: "EAAG-x", phoneNumberId: "200000000000002", appSecret: "s", verifyToken: "v" };
    const bots = {
      bots: [
        { id: "sales", telegram: { botToken: token }, whatsapp: { ...number, alertTemplate: "sales_alert" } },
        { id: "quiet" },
      ],
    };
    writeFileSync(path.join(dir, "bots.json"), JSON.stringify(bots));
    const env = {
      BRIDGE_CONFIG: "bots.json",
      TELEGRAM_API_ROOT: "http://127.0.0.1:8081/",
      TELEGRAM_MODE: "polling",
      TELEGRAM_WEBHOOK_SECRET: "only-the-default-bot",
      // Drafts' pace applies to every bot.
      TELEGRAM_DRAFT_CHAT_RATE: "1.5",
      WHATSAPP_API_VERSION: "v25.0",
      WHATSAPP_STREAMING: "whole",
      // The default bot's template is its number's: another number takes only the language from here.
      WHATSAPP_ALERT_TEMPLATE: "home_alert",
      WHATSAPP_ALERT_TEMPLATE_LANGUAGE: "pt_BR",
    };
    const config = loadConfig(env, { envFile: undefined, cwd: dir });
    const botsOf = (name: string) => config.channels.find(({ plugin }) => plugin.name === name)?.bots;
    expect(botsOf("telegram")?.[1]).toEqual({
      botId: "sales",
      settings: {
        botToken: token,
        webhookSecret: undefined,
        apiRoot: "http://127.0.0.1:8081",
        mode: "polling",
        draftRates: { chat: 1.5, bot: 300 },
        webhookConnections: 100,
      },
    });
    expect(botsOf("whatsapp")?.[1]).toEqual({
      botId: "sales",
      settings: {
        ...number,
        apiUrl: "https://graph.facebook.com",
        apiVersion: "v25.0",
        streaming: "whole",
        blockMinChars: 300,
        alertTemplate: "sales_alert",
        alertTemplateLanguage: "pt_BR",
      },
    });
    expect(botsOf("whatsapp")?.[0]?.settings).toMatchObject({
      alertTemplate: "home_alert",
      alertTemplateLanguage: "pt_BR",
    });
    // A bot without a channel's entry is not on that channel; the web chat belongs to the bot default only.
    expect(botsOf("slack")?.map((bot) => bot.botId)).toEqual(["default"]);
    expect(botsOf("web")?.map((bot) => bot.botId)).toEqual(["default"]);
    writeFileSync(path.join(dir, "bots.json"), JSON.stringify({ bots: [{ id: "web", web: {} }] }));
    expect(() => loadConfig({ BRIDGE_CONFIG: "bots.json" }, { envFile: undefined, cwd: dir })).toThrow(
      /bots\[0\] Unrecognized key: "web"/,
    );
    const badTemplate = { bots: [{ id: "sales", whatsapp: { ...number, alertTemplate: "Sales Alert" } }] };
    writeFileSync(path.join(dir, "bots.json"), JSON.stringify(badTemplate));
    expect(() => loadConfig({ BRIDGE_CONFIG: "bots.json" }, { envFile: undefined, cwd: dir })).toThrow(
      /bots\[0\]\.whatsapp\.alertTemplate must be a template name/,
    );
    expect(() => loadConfig({ WHATSAPP_ALERT_TEMPLATE_LANGUAGE: "English" }, { envFile: undefined })).toThrow(
      /WHATSAPP_ALERT_TEMPLATE_LANGUAGE.*such as en_US/,
    );
  });

  it("reads every variable", () => {
    const config = loadConfig(
      {
        PORT: "8080",
        DATA_DIR: "/var/lib/chatbridge",
        LOG_LEVEL: "debug",
        CHATBOT_API_URL: "https://usapi.hottask.com/",
        CHATBOT_API_KEY: "sk-123",
        CHATBOT_SESSION_KEY: "sess-456",
        CHATBOT_SERIAL_NUMBER: "3254a9d0",
        CHATBOT_API_TIMEOUT_MS: "5000",
        CHATBOT_UPLOAD_CONFIRM_PATH: "/chat/User/Confirm",
      },
      noFile,
    );
    expect(config.port).toBe(8080);
    expect(config.dataDir).toBe("/var/lib/chatbridge");
    expect(config.logLevel).toBe("debug");
    expect(config.chatbotApi).toEqual({
      url: "https://usapi.hottask.com",
      apiKey: "sk-123",
      sessionKey: "sess-456",
      serialNumber: "3254a9d0",
      timeoutMs: 5000,
      uploadConfirmPath: "/chat/User/Confirm",
    });
  });

  it("reads the media settings and refuses an audio limit the API's 40 MB could not hold", () => {
    const config = loadConfig(
      {
        MEDIA_MAX_AUDIO_SECONDS: "120",
        MEDIA_GROUP_WINDOW_MS: "0",
        MEDIA_UNSUPPORTED_TEXT: "Solo leo texto, fotos, audios y videos.",
        MEDIA_TOO_LARGE_TEXT: "Archivo demasiado grande (máximo {limit}).",
        MEDIA_TOO_LONG_TEXT: "Audio demasiado largo (máximo {limit}).",
        LLM_TRANSCRIBE_MODEL: "whisper-1",
      },
      noFile,
    );
    expect(config.bridge.media).toEqual({
      maxAudioSeconds: 120,
      groupWindowMs: 0,
      unsupportedText: "Solo leo texto, fotos, audios y videos.",
      tooLargeText: "Archivo demasiado grande (máximo {limit}).",
      tooLongText: "Audio demasiado largo (máximo {limit}).",
    });
    expect(config.llm.transcribeModel).toBe("whisper-1");
    expect(problems({ MEDIA_MAX_AUDIO_SECONDS: "3600" })[0]).toMatch(/^MEDIA_MAX_AUDIO_SECONDS="3600" .*1 to 1200/);
  });

  it("reads the alerts' poll interval and quiet hours, off included", () => {
    const alerts = (env: NodeJS.ProcessEnv) => loadConfig(env, noFile).bridge.alerts;
    expect(alerts({ ALERTS_POLL_MINUTES: "0.5", ALERTS_QUIET_HOURS: "22-7" })).toEqual({
      pollMs: 30_000,
      quietHours: { from: 22, to: 7 },
    });
    expect(alerts({ ALERTS_POLL_MINUTES: "0", ALERTS_QUIET_HOURS: "OFF" })).toEqual({
      pollMs: 0,
      quietHours: undefined,
    });
    expect(problems({ ALERTS_QUIET_HOURS: "21-24" })[0]).toMatch(/^ALERTS_QUIET_HOURS="21-24" .*such as 21-8, or off/);
  });

  it("reads the mail and handoff settings: durations with units, keyword lists, MAIL_FROM required with SMTP_URL", () => {
    const config = loadConfig(
      {
        SMTP_URL: "smtp://bot:secret@127.0.0.1:2525",
        MAIL_FROM: "Homes bot <bot@example.com>",
        HANDOFF_EMAIL: "agents@example.com",
        HANDOFF_TIMEOUT: "90m",
        HANDOFF_KEYWORDS: " Human , Hablar con alguien ,,",
        ADMIN_TOKEN: "0123456789abcdef-admin",
      },
      noFile,
    );
    expect(config.mail).toEqual({ smtpUrl: "smtp://bot:secret@127.0.0.1:2525", from: "Homes bot <bot@example.com>" });
    expect(config.bridge.handoff).toMatchObject({
      email: "agents@example.com",
      timeoutMs: 90 * 60_000,
      keywords: ["human", "hablar con alguien"],
    });
    expect(config.adminToken).toBe("0123456789abcdef-admin");
    expect(loadConfig({ HANDOFF_TIMEOUT: "2d" }, noFile).bridge.handoff.timeoutMs).toBe(2 * 86_400_000);
    expect(loadConfig({ HANDOFF_TIMEOUT: "30" }, noFile).bridge.handoff.timeoutMs).toBe(30 * 60_000);
    expect(problems({ HANDOFF_TIMEOUT: "soon" })[0]).toMatch(/^HANDOFF_TIMEOUT="soon" is invalid/);
    const missingFrom = problems({ SMTP_URL: "smtp://bot:secret@127.0.0.1:2525" });
    expect(missingFrom).toEqual([expect.stringMatching(/MAIL_FROM/)]);
    // The SMTP password never shows in an error.
    expect(problems({ SMTP_URL: "http://bot:secret@host" }).join("\n")).not.toContain("secret");
  });

  it("names the variable, the bad value and the fix, one line each", () => {
    const lines = problems({ PORT: "eighty", LOG_LEVEL: "loud", CHATBOT_API_URL: "ftp://x" });
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/^PORT="eighty" is invalid .*: set PORT to a whole number from 1 to 65535/);
    expect(lines[1]).toMatch(/^LOG_LEVEL="loud" is invalid .*one of fatal, error, warn, info/);
    expect(lines[2]).toMatch(/^CHATBOT_API_URL="ftp:\/\/x" is invalid .*http\(s\) URL/);
    for (const line of lines) expect(line).not.toContain("\n");
  });

  it("rejects out-of-range numbers", () => {
    expect(problems({ PORT: "70000" })[0]).toContain("PORT=");
    expect(problems({ CHATBOT_API_TIMEOUT_MS: "5" })[0]).toContain("CHATBOT_API_TIMEOUT_MS=");
  });

  it("treats empty values as unset", () => {
    expect(loadConfig({ PORT: "", CHATBOT_API_KEY: "  " }, noFile).port).toBe(3000);
  });

  it("reads a .env file, with the real environment winning", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "chatbridge-env-"));
    const file = path.join(dir, ".env");
    writeFileSync(file, "PORT=4000\nLOG_LEVEL=warn\n# comment\nCHATBOT_SERIAL_NUMBER=from-file\n");
    const config = loadConfig({ LOG_LEVEL: "error" }, { envFile: file });
    expect(config.port).toBe(4000);
    expect(config.logLevel).toBe("error");
    expect(config.chatbotApi.serialNumber).toBe("from-file");
    expect(loadConfig({}, { envFile: path.join(dir, "missing.env") }).port).toBe(3000);
  });
});

describe("documentation of the variables", () => {
  it("lists every variable in .env.example and the table of docs/configuration.md", () => {
    const example = readFileSync(".env.example", "utf8");
    const table = readFileSync("docs/configuration.md", "utf8");
    for (const name of CONFIG_VARIABLES) {
      expect(example, name).toMatch(new RegExp(`^${name}=`, "m"));
      expect(table, name).toContain(`| \`${name}\` |`);
    }
    const documented = [...example.matchAll(/^([A-Z_]+)=/gm)].map((m) => m[1]);
    expect(documented.sort()).toEqual([...CONFIG_VARIABLES].sort());
  });
});
