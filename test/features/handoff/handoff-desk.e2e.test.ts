import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { InboundMessage } from "../../../src/bridge/inbound.js";
import { type BridgeMetrics, createBridgeMetrics } from "../../../src/bridge/metrics.js";
import { openBridgeStore } from "../../../src/bridge/store/open-bridge-store.js";
import { createLogger } from "../../../src/common/log.js";
import type { HandoffAction } from "../../../src/features/handoff/handoff-action.js";
import { type Handoff, HandoffDesk } from "../../../src/features/handoff/handoff-desk.js";
import { handoffMetrics } from "../../../src/features/handoff/handoff-metrics.js";
import { handoffTexts } from "../../../src/features/handoff/handoff-texts.js";
import { MailOutbox } from "../../../src/mail/mail-outbox.js";
import { createSmtpMailer } from "../../../src/mail/smtp-mailer.js";
import { SmtpSink } from "../../support/smtp-sink.js";
import { until } from "../../support/waiting.js";

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

/**
 * A desk on a fresh memory store, with a clock the test moves and the users' notifications recorded. Its events
 * are handled at once, as the conversation's holder would — or, `queued`, kept in `queue` for the test to handle.
 */
async function desk(options: { smtp?: boolean; queued?: boolean; notify?: (text: string) => Promise<void> } = {}) {
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
  // As the conversation's holder would: each event once, handled in turn (here at once).
  const scheduled = new Set<string>();
  const queue: { conversation: string; action: HandoffAction }[] = [];
  const subject: HandoffDesk = new HandoffDesk({
    keyv: store.keyv,
    sets: store.sets,
    schedule: async (place, action, id) => {
      if (scheduled.has(id)) return;
      scheduled.add(id);
      if (options.queued) queue.push({ conversation: place.conversation, action });
      else await subject.handle(place.conversation, action, new AbortController().signal);
    },
    outbox,
    timeoutMs: 60 * 60_000,
    log,
    metrics: handoffMetrics(metrics.registry),
    now: () => now,
    notify: async (handoff: Handoff, text: string) => {
      await options.notify?.(text);
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
    outbox: outbox as MailOutbox,
    store,
    metrics,
    told,
    lines,
    context,
    queue,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

async function notices(metrics: BridgeMetrics, notice: string, outcome: string): Promise<number> {
  const { values } = await handoffMetrics(metrics.registry).handoffNotices.get();
  return values.find((value) => value.labels.notice === notice && value.labels.outcome === outcome)?.value ?? 0;
}

describe("HandoffDesk, when the handoff mail goes out later", () => {
  it("confirms to the user once, when a retry gets the queued mail accepted", async () => {
    const { subject, outbox, metrics, context, told, advance } = await desk();
    smtp.failNext("RCPT", 451);
    expect(await subject.request(message("agent", "61"), "q1", context)).toEqual({
      outcome: "queued",
      reply: HANDOFF_TEXTS.delayed,
    });
    const mails = smtp.received.length;
    await outbox.retryDue();
    expect(told).toEqual([]);
    advance(30_000);
    await outbox.retryDue();
    expect(smtp.received.length).toBe(mails + 1);
    expect(told).toEqual([{ conversation: "q1", text: "Someone will write." }]);
    advance(60 * 60_000 - 30_001);
    await outbox.retryDue();
    await subject.sweep();
    expect(told).toHaveLength(1);
    expect(await notices(metrics, "confirmation", "sent")).toBe(1);
    expect((await subject.active("q1"))?.mailId).toMatch(/^handoff:whatsapp:default:wamid\.\d+$/);
  });

  it("confirms in turn when the retry comes before the handoff is stored: the event waits behind the request", async () => {
    const { subject, outbox, store, context, told, advance, queue } = await desk({ queued: true });
    smtp.failNext("RCPT", 451);
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    let holding = false;
    const set = store.keyv.set.bind(store.keyv);
    // The handoff's own record is slow to write, after the outbox has queued its mail.
    vi.spyOn(store.keyv, "set").mockImplementation(async (key, value, ttl) => {
      if (key === "handoff:q2") {
        holding = true;
        await held;
      }
      return set(key, value, ttl);
    });
    const requested = subject.request(message("agent", "62"), "q2", context);
    await until(() => (holding ? true : undefined));
    advance(30_000);
    const retried = outbox.retryDue();
    await until(() => (smtp.received.at(-1)?.text.includes("+62") ? true : undefined));
    await new Promise((resolve) => setTimeout(resolve, 100));
    await retried;
    expect(told).toEqual([]);
    // The news is an event of the conversation: its holder handles it after the job that asked for a person.
    expect(queue.map((event) => event.action.type)).toEqual(["mail-settled"]);
    release();
    expect((await requested).outcome).toBe("queued");
    await queue
      .splice(0)
      .reduce(
        (done, event) =>
          done.then(() => subject.handle(event.conversation, event.action, new AbortController().signal)),
        Promise.resolve(),
      );
    expect(told).toEqual([{ conversation: "q2", text: "Someone will write." }]);
  });

  it("says nothing more when the handoff was over before the mail went out; the mail still goes", async () => {
    const { subject, outbox, context, told, advance } = await desk();
    smtp.failNext("RCPT", 451, 2);
    await subject.request(message("agent", "63"), "q3", context);
    await subject.request(message("agent", "64"), "q4", context);
    await subject.resume("q3", "user");
    await subject.resume("q4", "operator");
    expect(told).toEqual([{ conversation: "q4", text: HANDOFF_TEXTS.botBack }]);
    const mails = smtp.received.length;
    advance(30_000);
    await outbox.retryDue();
    expect(smtp.received.length).toBe(mails + 2);
    expect(told).toEqual([{ conversation: "q4", text: HANDOFF_TEXTS.botBack }]);
  });

  it("does not confirm a handoff that timed out, nor a later one in the same conversation", async () => {
    const { subject, outbox, context, told, advance } = await desk();
    smtp.failNext("RCPT", 451, 2);
    await subject.request(message("agent", "65"), "q5", context);
    advance(60 * 60_000);
    await subject.sweep();
    expect(told).toEqual([{ conversation: "q5", text: HANDOFF_TEXTS.botBack }]);
    // The user asks again: a new handoff with a new mail, still waiting too.
    await subject.request(message("agent again", "65"), "q5", context);
    advance(30_000);
    await outbox.retryDue();
    expect(told).toEqual([
      { conversation: "q5", text: HANDOFF_TEXTS.botBack },
      { conversation: "q5", text: "Someone will write." },
    ]);
  });

  it("ends the handoff and says so honestly when the queued mail is given up", async () => {
    const { subject, outbox, metrics, context, told, advance } = await desk();
    smtp.failNext("RCPT", 451);
    await subject.request(message("agente", "66"), "q6", { ...context, language: "Spanish" });
    await subject.followUp((await subject.active("q6")) as Handoff, message("hola?"), "hola?");
    smtp.failNext("RCPT", 550);
    const mails = smtp.received.length;
    advance(30_000);
    await outbox.retryDue();
    expect(told).toEqual([{ conversation: "q6", text: handoffTexts("Spanish").undelivered }]);
    expect(await subject.active("q6")).toBeUndefined();
    expect(await subject.list()).toEqual([]);
    // The follow-up had no request to follow: it is not mailed.
    advance(5 * 60_000);
    await subject.sweep();
    await outbox.retryDue();
    expect(smtp.received.length).toBe(mails);
    expect(await notices(metrics, "undelivered", "sent")).toBe(1);
  });

  it("does not repeat the confirmation when the delivered mail could not leave the outbox and goes again", async () => {
    const { subject, outbox, store, context, told, advance } = await desk();
    smtp.failNext("RCPT", 451);
    await subject.request(message("agent", "67"), "q7", context);
    const remove = store.sets.remove.bind(store.sets);
    let failIndexWrite = true;
    // The delivered mail cannot be unlisted once: the next pass sends it again (at least once).
    vi.spyOn(store.sets, "remove").mockImplementation(async (set, member) => {
      if (set === "mail-outbox:pending" && failIndexWrite && told.length > 0) {
        failIndexWrite = false;
        throw new Error("disk full");
      }
      return remove(set, member);
    });
    const mails = smtp.received.length;
    advance(30_000);
    await outbox.retryDue();
    await outbox.retryDue();
    expect(smtp.received.length).toBe(mails + 2);
    expect(told).toEqual([{ conversation: "q7", text: "Someone will write." }]);
  });

  it("logs and counts a confirmation the platform refused, and goes on", async () => {
    const { subject, outbox, metrics, context, told, lines, advance } = await desk({
      notify: async () => {
        throw new Error("403: Forbidden: bot was blocked by the user");
      },
    });
    smtp.failNext("RCPT", 451);
    await subject.request(message("agent", "68"), "q8", context);
    advance(30_000);
    await expect(outbox.retryDue()).resolves.toBeUndefined();
    expect(told).toEqual([]);
    expect(await notices(metrics, "confirmation", "failed")).toBe(1);
    expect(lines.some((line) => line.includes("could not tell the user what became of their handoff"))).toBe(true);
    expect(await outbox.pending()).toEqual([]);
  });
});

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
