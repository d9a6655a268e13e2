import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/config.js";
import { createSmtpMailer, type Mailer } from "../../src/mail/smtp-mailer.js";
import { openEmbeddedApi } from "../../src/server/embedded-api.js";
import { addDays, dayStart, zonedDay } from "../../src/server/services/zoned-time.js";
import { SmtpSink } from "../support/smtp-sink.js";
import { removeDataDir, tempDataDir } from "../support/sqlite.js";
import { until } from "../support/waiting.js";
import { newMessage } from "./store/fixtures.js";

const silent = pino({ level: "silent" });

/** The embedded API as `chatbridge start` opens it, given a mailer: it mails the daily digests. */
describe("the embedded API's daily digests", () => {
  let sink: SmtpSink;
  let mailer: Mailer;
  let dataDir: string;

  beforeAll(async () => {
    sink = await SmtpSink.start();
    mailer = createSmtpMailer({ smtpUrl: sink.url(), from: "Homes bot <bot@example.com>" });
    dataDir = tempDataDir();
  });
  afterAll(async () => {
    mailer.close();
    await sink.stop();
    removeDataDir(dataDir);
  });

  it("mails yesterday's digest as it opens, and stops with close", async () => {
    const config = loadConfig({ DATA_DIR: dataDir }, { envFile: undefined });
    // The first start creates the demo; its owner then sets the digest address and a user writes.
    const first = await openEmbeddedApi(config, silent);
    const { chatbot } = first.demo;
    await first.store.chatbots.updateSettings(chatbot.id, {
      ...chatbot.settings,
      EmailForDailyChatLogs: "logs@harbor.example",
    });
    const session = await first.store.sessions.create({ chatbotId: chatbot.id, uri: "web" });
    const message = await first.store.messages.add(newMessage(session, "User", "Any lofts downtown?"));
    await first.close();

    // The next start happens just after that day's midnight in the demo's zone.
    const zone = chatbot.settings.TimeZone;
    const day = zonedDay(message.createdAt, zone);
    const afterMidnight = new Date(dayStart(addDays(day, 1), zone).getTime() + 60_000);
    const second = await openEmbeddedApi(config, silent, { mailer, now: () => afterMidnight });
    try {
      const mail = await until(() => sink.received[0]);
      expect(mail.subject).toBe(`${chatbot.settings.Name}: 1 conversation on ${day}`);
      expect(mail.envelope.to).toEqual(["logs@harbor.example"]);
      expect(mail.text).toContain("User: Any lofts downtown?");
    } finally {
      await second.close();
    }
    expect(sink.received).toHaveLength(1);
  });
});
