import { createServer, type Server, type Socket } from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createSmtpMailer, type Mail, MailError, type Mailer } from "../../src/mail/smtp-mailer.js";
import { SmtpSink } from "../support/smtp-sink.js";

const FROM = "Homes bot <bot@example.com>";
const MAIL: Mail = {
  to: "agents@example.com",
  subject: "Handoff: Zoë asks for a person",
  text: "Zoë wrote: I want to talk to a human.\nConversation: telegram:42",
  html: "<p>Zoë wrote: <b>I want to talk to a human.</b></p>",
  replyTo: "zoe@example.org",
};

/** The MailError a send rejected with. */
async function failure(mailer: Mailer): Promise<MailError> {
  const error = await mailer.send(MAIL).then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(MailError);
  return error as MailError;
}

describe("createSmtpMailer", () => {
  let sink: SmtpSink;
  let mailer: Mailer;

  beforeEach(async () => {
    sink = await SmtpSink.start();
    mailer = createSmtpMailer({ smtpUrl: sink.url(), from: FROM });
  });

  afterEach(async () => {
    mailer.close();
    await sink.stop();
  });

  it("logs in and delivers the mail from MAIL_FROM with its text and HTML parts", async () => {
    await mailer.send(MAIL);
    expect(sink.received).toEqual([
      {
        envelope: { from: "bot@example.com", to: ["agents@example.com"] },
        from: { name: "Homes bot", address: "bot@example.com" },
        to: "agents@example.com",
        replyTo: "zoe@example.org",
        subject: MAIL.subject,
        text: MAIL.text,
        html: MAIL.html,
        attachments: [],
      },
    ]);
  });

  it("attaches the mail's text files", async () => {
    const ics = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nSUMMARY:Visita a la casa de Zoë\r\nEND:VCALENDAR\r\n";
    await mailer.send({
      ...MAIL,
      attachments: [{ filename: "viewing.ics", contentType: "text/calendar; charset=utf-8", content: ics }],
    });
    expect(sink.received[0]?.attachments).toEqual([
      { filename: "viewing.ics", contentType: "text/calendar", content: ics },
    ]);
  });

  it("reports a 4xx reply as temporary and a 5xx reply as permanent", async () => {
    sink.failNext("RCPT", 451);
    const later = await failure(mailer);
    sink.failNext("DATA", 554);
    const never = await failure(mailer);
    expect(later).toMatchObject({ temporary: true, responseCode: 451 });
    expect(never).toMatchObject({ temporary: false, responseCode: 554 });
    expect(never.message).toContain(`smtp://127.0.0.1:${sink.port}`);
    expect(sink.received).toHaveLength(0);
  });

  it("reports a server that is down as temporary", async () => {
    await sink.stop();
    const error = await failure(mailer);
    expect(error.temporary).toBe(true);
    expect(error.responseCode).toBeUndefined();
  });

  it("never repeats the password of SMTP_URL, even when the server quotes it", async () => {
    const secret = "w0ng-P@ss:word/x";
    const wrong = createSmtpMailer({ smtpUrl: sink.url(secret), from: FROM });
    const error = await failure(wrong);
    wrong.close();
    expect(error).toMatchObject({ temporary: false, responseCode: 535 });
    expect(error.message).toContain("Authentication failed for bridge:***");
    for (const text of [error.message, String(error.stack), JSON.stringify(error)]) {
      expect(text).not.toContain(secret);
      expect(text).not.toContain(encodeURIComponent(secret));
    }
  });

  describe("against a server that accepts the connection and never answers", () => {
    let silent: Server;
    const sockets: Socket[] = [];

    beforeEach(async () => {
      silent = createServer((socket) => sockets.push(socket));
      await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    });

    afterEach(async () => {
      for (const socket of sockets.splice(0)) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    });

    it("gives up after the send deadline with a temporary error", async () => {
      const { port } = silent.address() as { port: number };
      const hung = createSmtpMailer({ smtpUrl: `smtp://127.0.0.1:${port}`, from: FROM, sendTimeoutMs: 300 });
      const started = Date.now();
      const error = await failure(hung);
      hung.close();
      expect(error.temporary).toBe(true);
      expect(Date.now() - started).toBeLessThan(5_000);
    });
  });
});
