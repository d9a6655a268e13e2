import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Handoff, HandoffDesk } from "../../../src/bridge/handoff/handoff-desk.js";
import { handoffTexts } from "../../../src/bridge/handoff/handoff-texts.js";
import type { InboundMessage } from "../../../src/bridge/inbound.js";
import { createBridgeMetrics } from "../../../src/bridge/metrics.js";
import { openBridgeStore } from "../../../src/bridge/store/bridge-store.js";
import { createLogger } from "../../../src/log.js";
import { MailOutbox } from "../../../src/mail/mail-outbox.js";
import { createSmtpMailer } from "../../../src/mail/smtp-mailer.js";
import { SmtpSink } from "../../support/smtp-sink.js";

const HANDOFF_TEXTS = handoffTexts(undefined);

let smtp: SmtpSink;

beforeAll(async () => {
  smtp = await SmtpSink.start();
});

afterAll(async () => {
  await smtp.stop();
});

let nextEvent = 0;
function message(text: string, chatId = "77"): InboundMessage {
  return {
    channel: "whatsapp",
    botId: "default",
    eventId: `wamid.${++nextEvent}`,
    target: { chatId, isGroup: false },
    user: { id: chatId, name: "Luis", handle: `+${chatId}`, link: `https://wa.me/${chatId}` },
    text,
    media: [],
    receivedAt: new Date(),
  };
}

/** A desk on a fresh memory store, with a clock the test moves and the users' notifications recorded. */
async function desk(options: { smtp?: boolean } = {}) {
  const store = await openBridgeStore({ url: "memory://", dataDir: "/tmp", namespace: `desk${++nextEvent}` });
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  const log = createLogger("info", { destination });
  let now = Date.UTC(2026, 10, 24, 12);
  const metrics = createBridgeMetrics();
  const outbox =
    options.smtp === false
      ? undefined
      : new MailOutbox({
          store,
          mailer: createSmtpMailer({ smtpUrl: smtp.url(), from: "bot@homes.example" }),
          log,
          metrics,
          now: () => now,
        });
  const told: { conversation: string; text: string }[] = [];
  const subject = new HandoffDesk({
    keyv: store.keyv,
    outbox,
    timeoutMs: 60 * 60_000,
    log,
    now: () => now,
    notify: async (handoff: Handoff, text: string) => {
      told.push({ conversation: handoff.conversation, text });
    },
  });
  const context = {
    mailTo: "desk@homes.example",
    confirmation: "Someone will write.",
    timeZone: undefined,
    transcript: [],
  };
  return {
    subject,
    told,
    lines,
    context,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

describe("HandoffDesk", () => {
  it("batches what the user writes into one follow-up mail a minute after the first", async () => {
    const { subject, context, advance } = await desk();
    expect(await subject.request(message("agent"), "c1", context)).toEqual({
      outcome: "sent",
      reply: "Someone will write.",
    });
    const mails = smtp.received.length;
    const handoff = (await subject.active("c1")) as Handoff;
    await subject.followUp(handoff, message("first"), "first");
    advance(30_000);
    await subject.followUp((await subject.active("c1")) as Handoff, message("second"), "second");
    await subject.sweep();
    expect(smtp.received.length).toBe(mails);
    advance(31_000);
    await subject.sweep();
    await subject.sweep();
    expect(smtp.received.length).toBe(mails + 1);
    expect(smtp.received.at(-1)?.text).toMatch(/first[\s\S]*second/);
    expect(smtp.received.at(-1)?.text).toContain("https://wa.me/77");
    expect((await subject.active("c1"))?.followUps).toEqual([]);
  });

  it("ends a handoff when its time is up and tells the user the bot is back", async () => {
    const { subject, context, told, advance } = await desk();
    await subject.request(message("agent", "88"), "c2", context);
    expect((await subject.list()).map((handoff) => handoff.conversation)).toEqual(["c2"]);
    advance(60 * 60_000 - 1);
    await subject.sweep();
    expect(told).toEqual([]);
    advance(1);
    await subject.sweep();
    expect(told).toEqual([{ conversation: "c2", text: HANDOFF_TEXTS.botBack }]);
    expect(await subject.list()).toEqual([]);
    expect(await subject.active("c2")).toBeUndefined();
  });

  it("speaks the chatbot's language: Spanish texts for a Spanish chatbot", async () => {
    const { subject, context, told } = await desk({ smtp: false });
    const spanish = handoffTexts("Spanish");
    expect(spanish.botBack).toBe("Vuelves a hablar con el asistente.");
    expect(handoffTexts("Español").button).toBe("Hablar con una persona");
    expect(handoffTexts("French")).toEqual(HANDOFF_TEXTS);
    expect((await subject.request(message("agente"), "c8", { ...context, language: "Spanish" })).reply).toBe(
      spanish.unavailable,
    );
    const mailing = await desk();
    await mailing.subject.request(message("agente"), "c9", { ...context, language: "Spanish" });
    mailing.advance(60 * 60_000);
    await mailing.subject.sweep();
    expect(mailing.told).toEqual([{ conversation: "c9", text: spanish.botBack }]);
    expect(told).toEqual([]);
  });

  it("lets an operator resume a conversation, mailing what was still waiting and telling the user", async () => {
    const { subject, context, told } = await desk();
    await subject.request(message("agent", "99"), "c3", context);
    await subject.followUp((await subject.active("c3")) as Handoff, message("bye"), "bye");
    const mails = smtp.received.length;
    expect((await subject.resume("c3", "operator"))?.conversation).toBe("c3");
    expect(smtp.received.length).toBe(mails + 1);
    expect(told).toEqual([{ conversation: "c3", text: HANDOFF_TEXTS.botBack }]);
    expect(await subject.resume("c3", "operator")).toBeUndefined();
  });

  it("answers honestly and keeps the bot when no mail can be sent, telling the operator once", async () => {
    const { subject, context, lines } = await desk({ smtp: false });
    for (const conversation of ["c4", "c5"]) {
      expect(await subject.request(message("agent"), conversation, context)).toEqual({
        outcome: "unavailable",
        reply: HANDOFF_TEXTS.unavailable,
      });
    }
    expect(await subject.active("c4")).toBeUndefined();
    expect(lines.filter((line) => line.includes("set SMTP_URL and MAIL_FROM"))).toHaveLength(1);
    const withoutAddress = await desk();
    expect(
      (await withoutAddress.subject.request(message("agent"), "c6", { ...context, mailTo: undefined })).outcome,
    ).toBe("unavailable");
  });

  it("keeps the bot and says so when the mail server refuses the mail for good", async () => {
    const { subject, context } = await desk();
    smtp.failNext("RCPT", 550);
    expect(await subject.request(message("agent"), "c7", context)).toEqual({
      outcome: "failed",
      reply: HANDOFF_TEXTS.failed,
    });
    expect(await subject.active("c7")).toBeUndefined();
  });
});
